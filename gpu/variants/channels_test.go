package variants

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

// channelVariants are report 003's strategies in the configurations
// tested: grid3d also with the report's transposed thread map.
var channelVariants = []gpuVariant{
	{name: "gpu-ch-loop", maxSide: channelsMaxFilterSide},
	{name: "gpu-ch-grid3d", maxSide: channelsMaxFilterSide},
	{name: "gpu-ch-grid3d", cfg: convolve.Config{Tunables: map[string]int{tunableTransposed: 1}}, maxSide: channelsMaxFilterSide},
	{name: "gpu-ch-linear", maxSide: channelsMaxFilterSide},
	{name: "gpu-ch-arrays", maxSide: channelsMaxFilterSide},
}

// channelCases covers every border with every element type in both
// layouts (3x5 filters, both modes), filter sizes from 1x1 to the
// 127x127 limit, and the reports' block shapes plus an odd one.
func channelCases() []kernelCase {
	var cs []kernelCase
	i := 0
	for _, b := range convolve.Borders {
		for _, typ := range convolve.ElemTypes {
			for _, l := range convolve.Layouts {
				cs = append(cs, kernelCase{kw: 3, kh: 5, border: b, mode: convolve.Modes[i%2], typ: typ, channels: 3, layout: l})
				i++
			}
		}
	}
	for _, k := range [][2]int{{1, 1}, {7, 7}, {9, 3}, {31, 31}, {127, 1}, {1, 127}, {127, 127}} {
		cs = append(cs, kernelCase{kw: k[0], kh: k[1], border: convolve.Borders[i%5], mode: convolve.Modes[i%2],
			typ: convolve.ElemTypes[i%3], channels: 3, layout: convolve.Layouts[i%2]})
		i++
	}
	for _, blk := range []convolve.Block{{X: 4, Y: 4}, {X: 32, Y: 8}, {X: 7, Y: 5}, {X: 32, Y: 32}} {
		cs = append(cs, kernelCase{kw: 5, kh: 5, border: convolve.Mirror, typ: convolve.Int16, channels: 3,
			layout: convolve.Layouts[i%2], block: blk})
		i++
	}
	return cs
}

// compileFor is the compile check of family for p under cfg, with the
// block blk and the extra macros.
func compileFor(t *testing.T, family string, p convolve.Problem, cfg convolve.Config, blk convolve.Block, extra map[string]string) compileCheck {
	t.Helper()
	src, err := sourceOf(family)
	if err != nil {
		t.Fatal(err)
	}
	return compileCheck{src, CompileOptions(p, cfg, blk, false, extra), fmt.Sprintf("%s %v %v %v", family, p, cfg, extra)}
}

// TestChannelKernelsCompile compiles channels.cu for sm_90 with the
// macros each strategy's plan uses, over channelCases (every border,
// type, layout, the filter sizes up to 127x127, the block shapes), plus
// --fmad=false, fast math and 64-bit indexing once each.
func TestChannelKernelsCompile(t *testing.T) {
	t.Parallel() // NVRTC only: no device memory, so beside the other compile checks
	gputest.NVRTC(t)
	f := func(kw, kh int) *convolve.Filter {
		return &convolve.Filter{Name: "ones", Width: kw, Height: kh, Weights: make([]float32, kw*kh)}
	}
	var checks []compileCheck
	for _, s := range []chStrategy{chLoop, chGrid3D, chLinear, chArrays} {
		for _, kc := range channelCases() {
			p := kc.problem(convolve.Geometry{Width: 37, Height: 23}, f(kc.kw, kc.kh))
			blk := kc.block
			if blk == (convolve.Block{}) {
				blk = defaultBlock
			}
			checks = append(checks, compileFor(t, "channels", p, convolve.Config{}, blk, chDefines(p, s, false)))
			if s == chGrid3D && kc.kw == 3 && kc.border == convolve.Zero {
				checks = append(checks, compileFor(t, "channels", p, convolve.Config{}, blk, chDefines(p, s, true)))
			}
		}
		p := kernelCase{kw: 5, kh: 3, border: convolve.Reflect, typ: convolve.Uint8, channels: 3, layout: convolve.Interleaved}.
			problem(convolve.Geometry{Width: 37, Height: 23}, f(5, 3))
		checks = append(checks,
			compileFor(t, "channels", p, convolve.Config{NoFMA: true}, defaultBlock, chDefines(p, s, false)),
			compileFor(t, "channels", p, convolve.Config{FastMath: true}, defaultBlock, chDefines(p, s, false)))
		index64 := compileFor(t, "channels", p, convolve.Config{}, defaultBlock, chDefines(p, s, false))
		index64.opts = CompileOptions(p, convolve.Config{}, defaultBlock, true, chDefines(p, s, false))
		index64.what = fmt.Sprintf("strategy %d INDEX64", int(s))
		checks = append(checks, index64)
	}
	checkCompiles(t, checks)
}

// TestChannelKernelsRefuseMismatch checks that the plane readers refuse
// to compile for an interleaved read, instead of addressing it wrongly.
func TestChannelKernelsRefuseMismatch(t *testing.T) {
	gputest.NVRTC(t)
	src, err := sourceOf("channels")
	if err != nil {
		t.Fatal(err)
	}
	p := kernelCase{kw: 3, kh: 3, typ: convolve.Float32, channels: 3}.problem(convolve.Geometry{Width: 8, Height: 8},
		&convolve.Filter{Name: "one", Width: 3, Height: 3, Weights: make([]float32, 9)})
	for _, s := range []chStrategy{chLinear, chArrays} {
		opts := CompileOptions(p, convolve.Config{}, defaultBlock, false, map[string]string{"STRATEGY": fmt.Sprint(int(s)), "PLANAR": "0"})
		opts.Arch = compileArch
		var ce *cudabind.CompileError
		if _, err := cudabind.CompileOnly(src, opts); !errors.As(err, &ce) {
			t.Errorf("strategy %d with PLANAR=0 compiled: err = %v, want a *cudabind.CompileError", s, err)
		}
	}
}

// TestChannelCapabilities checks what the strategies refuse before any
// device is touched: other channel counts, filters past 127, unknown or
// out-of-range tunables.
func TestChannelCapabilities(t *testing.T) {
	f3 := &convolve.Filter{Name: "one", Width: 3, Height: 3, Weights: make([]float32, 9)}
	f129 := &convolve.Filter{Name: "big", Width: 129, Height: 1, Weights: make([]float32, 129)}
	g := func(c int) convolve.Geometry {
		return convolve.Geometry{Width: 16, Height: 16, Channels: c, Type: convolve.Uint8}
	}
	for _, name := range []string{"gpu-ch-loop", "gpu-ch-grid3d", "gpu-ch-linear", "gpu-ch-arrays"} {
		v, err := convolve.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			p   convolve.Problem
			cfg convolve.Config
		}{
			{convolve.Problem{Op: convolve.Filter2D, Input: g(1), Filter: f3}, convolve.Config{}},
			{convolve.Problem{Op: convolve.Filter2D, Input: g(4), Filter: f3}, convolve.Config{}},
			{convolve.Problem{Op: convolve.Filter2D, Input: g(3), Filter: f129}, convolve.Config{}},
			{convolve.Problem{Op: convolve.SobelMagnitude, Input: g(3)}, convolve.Config{}},
			{convolve.Problem{Op: convolve.Filter2D, Input: g(3), Filter: f3}, convolve.Config{Tunables: map[string]int{"nope": 1}}},
		} {
			_, err := convolve.PlanFor(v, c.p, c.cfg)
			var ce *convolve.CapabilityError
			if !errors.As(err, &ce) {
				t.Errorf("%s %v %v: err = %v, want a *convolve.CapabilityError", name, c.p, c.cfg, err)
			}
		}
	}
	if _, err := tunable("gpu-ch-grid3d", convolve.Config{Tunables: map[string]int{tunableTransposed: 2}}, tunableTransposed); err == nil {
		t.Error("transposed=2 accepted")
	}
}

// channelAgreement runs the channel strategy gv (the vi-th of
// channelVariants) over channelCases x agreementSizes (sizesFor) on fresh
// random inputs and filters, NaN-poisoned outputs, against
// refimpl.Expect; every plan is run twice and closed. TestAgreementSuites
// runs it.
func channelAgreement(t *testing.T, vi int, gv gpuVariant) {
	v, err := convolve.Lookup(gv.name)
	if err != nil {
		t.Fatal(err)
	}
	agreeAll(t, gv.String(), v, gv.cfg, channelCases(), rand.New(rand.NewPCG(uint64(vi), 3)), imagetest.RandomFilter)
}

// TestChannelsDevicePlan checks the timed path of each strategy: Upload,
// TimeKernel (for gpu-ch-loop including the per-channel transfers) and
// Download give the reference output, and the measured time is positive.
// Compile options --fmad=false and fast math are exercised here too.
func TestChannelsDevicePlan(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	r := rand.New(rand.NewPCG(11, 3))
	for _, gv := range channelVariants {
		v, err := convolve.Lookup(gv.name)
		if err != nil {
			t.Fatal(err)
		}
		for _, layout := range convolve.Layouts {
			for _, extra := range []convolve.Config{{}, {NoFMA: true}, {FastMath: true}} {
				cfg := gv.cfg
				cfg.NoFMA, cfg.FastMath = extra.NoFMA, extra.FastMath
				kc := kernelCase{kw: 5, kh: 7, border: convolve.Reflect, typ: convolve.Int16, channels: 3, layout: layout}
				p := kc.problem(convolve.Geometry{Width: 53, Height: 41}, imagetest.RandomFilter(r, 5, 7))
				devicePlanAgrees(t, v, p, cfg, imagetest.Random(r, p.Input, imagetest.NonZero))
			}
		}
	}
}

// devicePlanAgrees plans p, then runs Upload, TimeKernel(3) and Download
// and checks the output against the reference.
func devicePlanAgrees(t *testing.T, v convolve.Variant, p convolve.Problem, cfg convolve.Config, in *convolve.Image) {
	t.Helper()
	name := v.Describe().Name + "[" + cfg.String() + "]"
	plan, err := convolve.PlanFor(v, p, cfg)
	if err != nil {
		t.Errorf("%s %v: Plan: %v", name, p, err)
		return
	}
	defer plan.Close()
	dp, ok := plan.(convolve.DevicePlan)
	if !ok {
		t.Errorf("%s: plan %T is not a convolve.DevicePlan", name, plan)
		return
	}
	if err := dp.Upload(in); err != nil {
		t.Errorf("%s %v: Upload: %v", name, p, err)
		return
	}
	el, err := dp.TimeKernel(3)
	if err != nil {
		t.Errorf("%s %v: TimeKernel: %v", name, p, err)
		return
	}
	if el <= 0 || el > time.Minute {
		t.Errorf("%s %v: TimeKernel(3) = %v", name, p, el)
	}
	out := poisoned(t, p)
	if err := dp.Download(out); err != nil {
		t.Errorf("%s %v: Download: %v", name, p, err)
		return
	}
	compareToReference(t, name, p, in, out)
}

// compareToReference checks out against refimpl.Expect(p, in) within the
// per-element tolerance (exactly, for RGB->YUV), and returns the errors.
func compareToReference(t *testing.T, name string, p convolve.Problem, in, out *convolve.Image) convolve.Metrics {
	t.Helper()
	ref, tol, err := refimpl.Expect(p, in)
	if err != nil {
		t.Fatalf("Expect(%v): %v", p, err)
	}
	m, err := convolve.Compare(out, ref, tol)
	if err != nil {
		t.Fatalf("%s %v: Compare: %v", name, p, err)
	}
	if !m.OK() {
		t.Errorf("%s %v: %v", name, p, m)
	}
	return m
}
