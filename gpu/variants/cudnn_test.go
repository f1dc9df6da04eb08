package variants

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/cudnn"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

var cudnnPeers = []string{"cudnn", "cudnn-tf32"}

func lookupPeer(t *testing.T, name string) *cudnnPeer {
	t.Helper()
	v, err := convolve.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := v.(*cudnnPeer)
	if !ok {
		t.Fatalf("%s is a %T, want a *cudnnPeer", name, v)
	}
	return p
}

// TestCUDNNCapabilities checks what each peer declares and the refusals
// that come before cuDNN or a device is needed: with neither on this
// host, a refusal that came later would be an UnavailableError instead.
func TestCUDNNCapabilities(t *testing.T) {
	for name, model := range map[string]convolve.ErrorModel{"cudnn": convolve.Direct, "cudnn-tf32": convolve.TF32} {
		v := lookupPeer(t, name)
		caps := v.Describe().Caps
		if caps.Accuracy != model || !caps.GPU || !caps.FiniteInput {
			t.Errorf("%s declares accuracy %v, GPU %v, FiniteInput %v; want %v, true, true", name, caps.Accuracy, caps.GPU, caps.FiniteInput, model)
		}
		f, _ := convolve.Box(3)
		ok := convolve.Geometry{Width: 16, Height: 9, Channels: 1, Type: convolve.Float32}
		for _, tc := range []struct {
			what string
			g    convolve.Geometry
			b    convolve.Border
			cfg  convolve.Config
		}{
			{"element type", convolve.Geometry{Width: 16, Height: 9, Channels: 1, Type: convolve.Uint8}, convolve.Zero, convolve.Config{}},
			{"border", ok, convolve.Replicate, convolve.Config{}},
			{"layout", convolve.Geometry{Width: 16, Height: 9, Channels: 3, Type: convolve.Float32, Layout: convolve.Interleaved}, convolve.Zero, convolve.Config{}},
			{"tunable", ok, convolve.Zero, convolve.Config{Tunables: map[string]int{"algo": int(cudnn.AlgoFFT)}}},
			{"tunable", ok, convolve.Zero, convolve.Config{Tunables: map[string]int{"algo": int(cudnn.AlgoWinograd)}}},
			{"tunable", ok, convolve.Zero, convolve.Config{Tunables: map[string]int{"algo": 8}}},
			{"tunable", ok, convolve.Zero, convolve.Config{Tunables: map[string]int{"rx": 2}}},
			{"block shape", ok, convolve.Zero, convolve.Config{Block: convolve.Block{X: 32, Y: 8}}},
		} {
			p := convolve.Problem{Op: convolve.Filter2D, Input: tc.g, Filter: f, Border: tc.b}
			for via, plan := range map[string]func() (convolve.Plan, error){
				"PlanFor": func() (convolve.Plan, error) { return convolve.PlanFor(v, p, tc.cfg) },
				"Plan":    func() (convolve.Plan, error) { return v.Plan(p, tc.cfg) },
			} {
				pl, err := plan()
				if pl != nil {
					pl.Close()
				}
				var ce *convolve.CapabilityError
				if !errors.As(err, &ce) || ce.What != tc.what || ce.Variant != name {
					t.Errorf("%s %s %v %v %v: err = %v, want a *convolve.CapabilityError about the %s naming the variant", name, via, tc.g, tc.b, tc.cfg, err, tc.what)
				}
			}
		}
	}
}

// TestCUDNNConv checks the descriptors a problem becomes: one plane per
// channel, the host's row stride, the mode.
func TestCUDNNConv(t *testing.T) {
	f, _ := convolve.NewFilter("r", 5, 3, make([]float32, 15))
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Mode: convolve.Convolve,
		Input: convolve.Geometry{Width: 30, Height: 20, Channels: 3, Type: convolve.Float32, Layout: convolve.Planar, Stride: 33}}
	want := cudnn.Conv2D{Batch: 3, Width: 30, Height: 20, RowStride: 33, PlaneStride: 660, KW: 5, KH: 3, Correlate: false, Math: cudnn.FMAMath}
	if got := cudnnConv(p, cudnn.FMAMath); got != want {
		t.Errorf("cudnnConv = %+v, want %+v", got, want)
	}
	p.Mode = convolve.Correlate
	p.Input = convolve.Geometry{Width: 30, Height: 20, Channels: 1, Type: convolve.Float32}
	want = cudnn.Conv2D{Batch: 1, Width: 30, Height: 20, RowStride: 30, PlaneStride: 600, KW: 5, KH: 3, Correlate: true, Math: cudnn.TensorOpMath}
	if got := cudnnConv(p, cudnn.TensorOpMath); got != want {
		t.Errorf("cudnnConv = %+v, want %+v", got, want)
	}
	if got := cudnnConv(p, cudnn.FMAMath); got.InputElements() != int64(p.Input.Len()) {
		t.Errorf("the descriptors span %d elements, the image %d", got.InputElements(), p.Input.Len())
	}
}

// searchResults is a search's answer, fastest first, with every reason a
// result is passed over.
var searchResults = []cudnn.AlgoPerf{
	{Algo: cudnn.AlgoFFT, Time: 0.01, Memory: 1 << 20, Deterministic: 1, MathType: cudnn.FMAMath},
	{Algo: cudnn.AlgoWinograd, Time: 0.02, Deterministic: 1, MathType: cudnn.TensorOpMath},
	{Algo: cudnn.AlgoImplicitPrecompGEMM, Time: 0.03, Deterministic: 0, MathType: cudnn.TensorOpMath},
	{Algo: cudnn.AlgoImplicitPrecompGEMM, Time: 0.035, Deterministic: 1, MathType: cudnn.TensorOpMathAllowConversion},
	{Algo: cudnn.AlgoImplicitPrecompGEMM, Time: 0.04, Memory: 2048, Deterministic: 1, MathType: cudnn.TensorOpMath},
	{Algo: cudnn.AlgoGEMM, Status: cudnn.StatusNotSupported, Time: -1, Deterministic: 1, MathType: cudnn.FMAMath},
	{Algo: cudnn.AlgoImplicitGEMM, Time: 0.06, Deterministic: 1, MathType: cudnn.FMAMath},
}

// TestCUDNNChoose checks which search result each peer runs.
func TestCUDNNChoose(t *testing.T) {
	for _, tc := range []struct {
		peer   string
		forced cudnn.Algo
		want   int // index in searchResults, -1: none
	}{
		{"cudnn", -1, 6},
		{"cudnn-tf32", -1, 4},
		{"cudnn", cudnn.AlgoImplicitPrecompGEMM, -1},
		{"cudnn-tf32", cudnn.AlgoImplicitGEMM, 6},
		{"cudnn-tf32", cudnn.AlgoGEMM, -1},
	} {
		v := lookupPeer(t, tc.peer)
		got, ok := v.choose(searchResults, tc.forced)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("%s forced %v: chose %v, want none", tc.peer, tc.forced, got)
		case tc.want >= 0 && (!ok || got != searchResults[tc.want]):
			t.Errorf("%s forced %v: chose %v (%v), want %v", tc.peer, tc.forced, got, ok, searchResults[tc.want])
		}
	}
	v := lookupPeer(t, "cudnn")
	conv := cudnn.Conv2D{Batch: 1, Width: 8, Height: 8, KW: 3, KH: 3, Math: cudnn.FMAMath}
	var ce *convolve.CapabilityError
	if err := v.noAlgorithm(conv, searchResults, cudnn.AlgoGEMM); !errors.As(err, &ce) || !strings.Contains(err.Error(), "algo=2 (GEMM)") {
		t.Errorf("forced algorithm not found: %v, want a *convolve.CapabilityError naming it", err)
	}
	err := v.noAlgorithm(conv, searchResults[:2], -1)
	if !errors.As(err, &ce) || ce.What != "problem" || !strings.Contains(err.Error(), "FFT (CUDNN_FMA_MATH") || !strings.Contains(err.Error(), "WINOGRAD") {
		t.Errorf("no usable algorithm: %v, want a *convolve.CapabilityError listing the results", err)
	}
}

// TestCUDNNUnavailable: where cuDNN or a GPU is missing, a plan is an
// UnavailableError (the property suite and the GPU tests skip on it),
// never another failure.
func TestCUDNNUnavailable(t *testing.T) {
	_, _, libErr := cudnnLibrary()
	_, devErr := cudabind.Default()
	if libErr == nil && devErr == nil {
		t.Skip("cuDNN and a GPU are both here; the GPU tests plan the peers")
	}
	if libErr != nil {
		var ue *cudabind.UnavailableError
		if !errors.As(libErr, &ue) || ue.Lib != "libcudnn" {
			t.Errorf("CUDNNLibrary: %v, want a *cudabind.UnavailableError for libcudnn", libErr)
		}
	}
	f, _ := convolve.Box(3)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 16, Height: 9, Channels: 1, Type: convolve.Float32}, Filter: f}
	for _, name := range cudnnPeers {
		pl, err := convolve.PlanFor(lookupPeer(t, name), p, convolve.Config{})
		if pl != nil {
			pl.Close()
		}
		var ue *cudabind.UnavailableError
		if !errors.As(err, &ue) {
			t.Errorf("%s without cuDNN or a GPU: %v, want a *cudabind.UnavailableError", name, err)
		}
	}
}

// cudnnOrSkip returns the device, or skips without a GPU or cuDNN.
func cudnnOrSkip(t *testing.T) *cudabind.Device {
	t.Helper()
	d := gputest.DeviceNoLeakCheck(t)
	name, version, err := cudnnLibrary()
	gputest.Need(t, "cuDNN", err)
	// cuDNN can load and yet not run here (a sub-library missing, a GPU
	// it does not support): the first plan says so.
	f, _ := convolve.Box(3)
	pl, err := convolve.PlanFor(lookupPeer(t, "cudnn"), convolve.Problem{Op: convolve.Filter2D,
		Input: convolve.Geometry{Width: 8, Height: 8, Channels: 1, Type: convolve.Float32}, Filter: f}, convolve.Config{})
	var ue *cudabind.UnavailableError
	if errors.As(err, &ue) {
		t.Skipf("cuDNN %s (version %d) cannot run here: %v", name, version, err)
	}
	if err != nil {
		t.Fatalf("cudnn: a plan of 8x8 with a 3x3 box: %v", err)
	}
	pl.Close()
	t.Logf("cuDNN: %s, version %d", name, version)
	return d
}

// agreeModel runs plan on in and compares with the reference within the
// tolerance of the variant's declared error model; it logs the plan's
// setting.
func agreeModel(t *testing.T, v convolve.Variant, plan convolve.Plan, p convolve.Problem, in *convolve.Image) bool {
	t.Helper()
	name := v.Describe().Name
	out := poisoned(t, p)
	if err := plan.Run(in, out); err != nil {
		t.Errorf("%s %v: Run: %v", name, p, err)
		return false
	}
	ref, tol, err := refimpl.ExpectModel(p, in, v.Describe().Caps.Accuracy)
	if err != nil {
		t.Fatalf("ExpectModel(%v): %v", p, err)
	}
	m, err := convolve.Compare(out, ref, tol)
	if err != nil {
		t.Fatalf("%s %v: Compare: %v", name, p, err)
	}
	if !m.OK() {
		tp := plan.(convolve.TunedPlan)
		t.Errorf("%s %v (%v, %s): %v", name, p, tp.Setting(), tp.SettingSource(), m)
	}
	return m.OK()
}

// TestCUDNNAgreement runs both peers, on the search's choice and on each
// direct-sum algorithm asked for, over odd square and rectangular filters
// from 1x1 to 31x31, both modes, one to three planar channels and the
// agreement sizes (a padded stride among them), against the reference
// within each peer's declared model, on NaN-poisoned outputs; then the
// Upload, TimeKernel, Download path, and that every allocation of the
// plans was released.
func TestCUDNNAgreement(t *testing.T) {
	d := cudnnOrSkip(t)
	leakCheck := gputest.LeakCheck(t, d)
	r := rand.New(rand.NewPCG(16, 9))
	var cases []kernelCase
	for i, k := range [][2]int{{1, 1}, {3, 3}, {5, 3}, {3, 7}, {9, 9}, {15, 15}, {31, 31}} {
		cases = append(cases, kernelCase{kw: k[0], kh: k[1], border: convolve.Zero, mode: convolve.Modes[i%2],
			typ: convolve.Float32, channels: 1 + i%3, layout: convolve.Planar})
	}
	for _, name := range cudnnPeers {
		v := lookupPeer(t, name)
		t.Run(name, func(t *testing.T) {
			failures := 0
			for _, tune := range []map[string]int{nil, {"algo": 0}, {"algo": 1}} {
				for _, kc := range cases {
					f := imagetest.RandomFilter(r, kc.kw, kc.kh)
					for _, g := range agreementSizes {
						p := kc.problem(g, f)
						plan, err := convolve.PlanFor(v, p, convolve.Config{Tunables: tune})
						var ce *convolve.CapabilityError
						if errors.As(err, &ce) && tune != nil {
							t.Logf("%v %v: refused: %v", tune, p, err)
							continue
						}
						if err != nil {
							t.Errorf("%v %v: Plan: %v", tune, p, err)
							failures++
							continue
						}
						for range 2 {
							if !agreeModel(t, v, plan, p, imagetest.Random(r, p.Input, imagetest.NonZero)) {
								failures++
							}
						}
						if err := plan.Close(); err != nil {
							t.Errorf("%v: Close: %v", p, err)
						}
						if failures > 10 {
							t.Fatal("too many failures")
						}
					}
				}
			}
			p := kernelCase{kw: 7, kh: 5, border: convolve.Zero, mode: convolve.Convolve, typ: convolve.Float32, channels: 2, layout: convolve.Planar}.
				problem(convolve.Geometry{Width: 123, Height: 45}, imagetest.RandomFilter(r, 7, 5))
			cudnnDevicePlanAgrees(t, v, p, imagetest.Random(r, p.Input, imagetest.NonZero))
		})
	}
	leakCheck()
}

// cudnnDevicePlanAgrees checks Upload, TimeKernel, Download and
// TimeKernelGraph, Download on a fresh plan, without a Run before.
func cudnnDevicePlanAgrees(t *testing.T, v convolve.Variant, p convolve.Problem, in *convolve.Image) {
	t.Helper()
	name := v.Describe().Name
	plan, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		t.Fatalf("%s %v: Plan: %v", name, p, err)
	}
	defer plan.Close()
	dp := plan.(convolve.DevicePlan)
	ref, tol, err := refimpl.ExpectModel(p, in, v.Describe().Caps.Accuracy)
	if err != nil {
		t.Fatal(err)
	}
	if err := dp.Upload(in); err != nil {
		t.Fatalf("%s: Upload: %v", name, err)
	}
	for timing, run := range map[string]func() error{
		"TimeKernel(3)": func() error { _, err := dp.TimeKernel(3); return err },
		"TimeKernelGraph(GraphBatch+2)": func() error {
			_, err := dp.TimeKernelGraph(GraphBatch + 2)
			return err
		},
	} {
		out := poisoned(t, p)
		if err := run(); err != nil {
			t.Errorf("%s %v: %s: %v", name, p, timing, err)
			continue
		}
		if err := dp.Download(out); err != nil {
			t.Fatalf("%s: Download: %v", name, err)
		}
		if m, err := convolve.Compare(out, ref, tol); err != nil || !m.OK() {
			t.Errorf("%s %v: output after Upload, %s, Download: %v %v", name, p, timing, m, err)
		}
	}
}

// TestCUDNNSearchKept: two plans of one shape run the same algorithm and
// give the same bits (the property suite's determinism asks it of every
// variant), and the setting names it.
func TestCUDNNSearchKept(t *testing.T) {
	cudnnOrSkip(t)
	r := rand.New(rand.NewPCG(4, 4))
	f := imagetest.RandomFilter(r, 11, 11)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 512, Height: 384, Channels: 1, Type: convolve.Float32}, Filter: f}
	in := imagetest.Random(r, p.Input, imagetest.NonZero)
	for _, name := range cudnnPeers {
		v := lookupPeer(t, name)
		var outs [2]*convolve.Image
		var settings [2]string
		for i := range outs {
			plan, err := convolve.PlanFor(v, p, convolve.Config{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tp := plan.(convolve.TunedPlan)
			settings[i] = tp.Setting().String() + " " + tp.SettingSource()
			outs[i] = poisoned(t, p)
			if err := plan.Run(in, outs[i]); err != nil {
				t.Fatal(err)
			}
			plan.Close()
		}
		t.Logf("%s on %v with an 11x11 filter: %s", name, p.Input, settings[0])
		if settings[0] != settings[1] {
			t.Errorf("%s: two plans of one shape run %q and %q", name, settings[0], settings[1])
		}
		if !strings.HasPrefix(settings[0], "algo=") || !strings.Contains(settings[0], "searched") {
			t.Errorf("%s: setting %q does not name the searched algorithm", name, settings[0])
		}
		for i := range outs[0].F32 {
			if outs[0].F32[i] != outs[1].F32[i] {
				t.Errorf("%s: element %d differs between two plans: %v and %v", name, i, outs[0].F32[i], outs[1].F32[i])
				break
			}
		}
	}
}

// TestCUDNNTF32Rounding checks the rounding the TF32 model assumes on
// values where it shows: every input and weight is v = 1 + 3*2^-12, which
// TF32 rounds to nearest as 1 + 2^-10 but truncates to 1. A product of
// rounded operands then errs by under half the model's 2u (u = 2^-11),
// one of truncated operands by 1.5 times it, so a cuDNN whose tensor
// cores drop the low bits fails the TF32 bound here (and cudnn-tf32
// would have to declare a looser model). Each direct-sum algorithm the
// search lets cudnn-tf32 run is tried; the log says which ran on tensor
// cores.
func TestCUDNNTF32Rounding(t *testing.T) {
	cudnnOrSkip(t)
	v := lookupPeer(t, "cudnn-tf32")
	const val = 1 + 3.0/4096
	w := make([]float32, 7*7)
	for i := range w {
		w[i] = val
	}
	f, _ := convolve.NewFilter("v", 7, 7, w)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 1024, Height: 512, Channels: 1, Type: convolve.Float32}, Filter: f}
	in, _ := convolve.NewImage(p.Input)
	for i := range in.F32 {
		in.F32[i] = val
	}
	ran := 0
	for _, tune := range []map[string]int{nil, {"algo": 0}, {"algo": 1}, {"algo": 2}, {"algo": 3}} {
		plan, err := convolve.PlanFor(v, p, convolve.Config{Tunables: tune})
		var ce *convolve.CapabilityError
		if errors.As(err, &ce) {
			t.Logf("%v: %v", tune, err)
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tune, err)
		}
		tp := plan.(convolve.TunedPlan)
		t.Logf("%v runs %v: %s", tune, tp.Setting(), tp.SettingSource())
		agreeModel(t, v, plan, p, in)
		plan.Close()
		ran++
	}
	if ran == 0 {
		t.Error("cudnn-tf32 could run none of the direct-sum algorithms")
	}
}

// TestCUDNNSettingSource checks that a searched plan names the search,
// its workspace and time, and lists every result, failures by status.
func TestCUDNNSettingSource(t *testing.T) {
	p := &cudnnPlan{choice: searchResults[6], search: cudnnSearch{perf: searchResults, took: 1500 * time.Millisecond}}
	got := p.SettingSource()
	for _, want := range []string{"cuDNN's heuristic candidates timed on the plan's buffers, 1.5 s", "every result: FFT CUDNN_FMA_MATH 0.01 ms", "GEMM CUDNN_FMA_MATH CUDNN_STATUS_NOT_SUPPORTED", "IMPLICIT_GEMM CUDNN_FMA_MATH 0.06 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("SettingSource() = %q, want it to contain %q", got, want)
		}
	}
	p.forced = true
	if got := p.SettingSource(); strings.Contains(got, "every result") {
		t.Errorf("forced plan's SettingSource() = %q lists the search", got)
	}
}

// cudnnLibrary returns the name and version of the cuDNN that loaded, or
// the *cudabind.UnavailableError saying why none did.
func cudnnLibrary() (name string, version int, err error) {
	l, err := cudnn.Load()
	if err != nil {
		return "", 0, err
	}
	return l.Name, l.Version, nil
}
