package variants

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

// gpuVariant is a registered variant under test with the configuration
// it is tested in and the largest filter side it must accept.
type gpuVariant struct {
	name    string
	cfg     convolve.Config
	maxSide int  // largest square side accepted on an H100 (constant memory: 127)
	sep     bool // needs rank-1 filters
}

func (v gpuVariant) String() string {
	if s := v.cfg.String(); s != "" {
		return v.name + "[" + s + "]"
	}
	return v.name
}

var gpuVariants = []gpuVariant{
	{name: "gpu-naive", maxSide: 1023},
	{name: "gpu-const", maxSide: 127},
	{name: "gpu-shared", maxSide: 127},
	{name: "gpu-shared-rows", maxSide: 127},
	{name: "gpu-naive-padded", maxSide: 1023},
	{name: "gpu-texture", maxSide: 127},
	{name: "gpu-texture-filter", maxSide: 1023},
	{name: "gpu-texture-shared", maxSide: 127},
	{name: "gpu-tiled", maxSide: 127},
	{name: "gpu-tiled", cfg: convolve.Config{Tunables: map[string]int{tunableRY: 1}}, maxSide: 127},
	{name: "gpu-tiled", cfg: convolve.Config{Tunables: map[string]int{tunableRY: 8}}, maxSide: 127},
	{name: "gpu-separable", maxSide: 1023, sep: true},
	{name: "gpu-separable", cfg: convolve.Config{Tunables: map[string]int{tunableShared: 0}}, maxSide: 1023, sep: true},
	{name: "gpu-sepfused", maxSide: sepfusedMaxSide, sep: true},
	{name: "gpu-sepfused", cfg: convolve.Config{Tunables: map[string]int{tunableRY: 1}}, maxSide: sepfusedMaxSide, sep: true},
	{name: "gpu-sepfused", cfg: convolve.Config{Tunables: map[string]int{tunableRY: 2}}, maxSide: sepfusedMaxSide, sep: true},
}

// kernelCase is one specialization (everything but the image size).
type kernelCase struct {
	kw, kh   int
	border   convolve.Border
	mode     convolve.Mode
	typ      convolve.ElemType
	channels int
	layout   convolve.Layout
	block    convolve.Block
}

// agreementCases covers, for one variant: every border with small filters,
// rectangular filters, every element type with 1 to 4 channels in both
// layouts, both modes, the reports' block shapes and an odd one, and the
// largest filters the variant accepts.
func agreementCases(v gpuVariant) []kernelCase {
	var cs []kernelCase
	for bi, b := range convolve.Borders {
		for _, k := range []int{1, 3, 5} {
			cs = append(cs, kernelCase{kw: k, kh: k, border: b, mode: convolve.Modes[bi%2], typ: convolve.Float32, channels: 1})
		}
	}
	cs = append(cs,
		kernelCase{kw: 7, kh: 7, border: convolve.Reflect, typ: convolve.Float32, channels: 1},
		kernelCase{kw: 9, kh: 9, border: convolve.Wrap, typ: convolve.Float32, channels: 1},
		kernelCase{kw: 3, kh: 7, border: convolve.Mirror, mode: convolve.Convolve, typ: convolve.Float32, channels: 1},
		kernelCase{kw: 7, kh: 1, border: convolve.Replicate, typ: convolve.Float32, channels: 1},
		kernelCase{kw: 1, kh: 5, border: convolve.Zero, mode: convolve.Convolve, typ: convolve.Float32, channels: 1},
		kernelCase{kw: 15, kh: 15, border: convolve.Zero, typ: convolve.Float32, channels: 1},
		kernelCase{kw: 31, kh: 31, border: convolve.Mirror, typ: convolve.Float32, channels: 1},
	)
	layouts := []struct {
		c int
		l convolve.Layout
	}{{1, convolve.Interleaved}, {3, convolve.Interleaved}, {3, convolve.Planar}, {2, convolve.Interleaved}, {4, convolve.Planar}, {4, convolve.Interleaved}}
	for ti, typ := range []convolve.ElemType{convolve.Uint8, convolve.Int16, convolve.Float32} {
		for li, l := range layouts {
			b := convolve.Borders[(ti*len(layouts)+li)%len(convolve.Borders)]
			cs = append(cs, kernelCase{kw: 3 + 2*(li%2), kh: 3, border: b, mode: convolve.Modes[li%2], typ: typ, channels: l.c, layout: l.l})
		}
	}
	for _, blk := range []convolve.Block{{X: 4, Y: 4}, {X: 32, Y: 8}, {X: 16, Y: 8}, {X: 7, Y: 5}, {X: 32, Y: 32}} {
		cs = append(cs, kernelCase{kw: 5, kh: 5, border: convolve.Reflect, typ: convolve.Uint8, channels: 1, block: blk})
	}
	m := v.maxSide
	cs = append(cs,
		kernelCase{kw: m, kh: 1, border: convolve.Wrap, typ: convolve.Float32, channels: 1},
		kernelCase{kw: 1, kh: m, border: convolve.Mirror, typ: convolve.Uint8, channels: 1},
	)
	if m <= 127 {
		cs = append(cs, kernelCase{kw: m, kh: m, border: convolve.Replicate, typ: convolve.Float32, channels: 1})
	} else {
		cs = append(cs, kernelCase{kw: 127, kh: 127, border: convolve.Replicate, typ: convolve.Float32, channels: 1},
			kernelCase{kw: 255, kh: 63, border: convolve.Reflect, typ: convolve.Float32, channels: 1})
	}
	return cs
}

// agreementSizes are image sizes that are not block multiples: a single
// pixel, small odd rectangles, tall and wide strips, one with padded rows.
var agreementSizes = []convolve.Geometry{
	{Width: 1, Height: 1},
	{Width: 37, Height: 23},
	{Width: 3, Height: 71},
	{Width: 71, Height: 2},
	{Width: 19, Height: 17, Stride: -1}, // Stride -1: the row length plus 3
}

func (kc kernelCase) problem(g convolve.Geometry, f *convolve.Filter) convolve.Problem {
	g.Channels, g.Type, g.Layout = kc.channels, kc.typ, kc.layout
	if g.Stride == -1 {
		g.Stride = 0
		g.Stride = g.RowElems() + 3
	}
	return convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: kc.border, Mode: kc.mode}
}

// agreeAll compiles the specializations of every case (warmAll), then
// plans v with cfg (and each case's block) for every case over its
// agreementSizes (sizesFor), with a filter drawn by filter per case, runs each plan
// twice on fresh random inputs (the plan is reusable) against the
// reference, and closes it. More than ten failures end the test.
func agreeAll(t *testing.T, name string, v convolve.Variant, cfg convolve.Config, cases []kernelCase, r *rand.Rand,
	filter func(r *rand.Rand, kw, kh int) *convolve.Filter) {
	t.Helper()
	var specs []WarmSpec
	wr := rand.New(rand.NewPCG(0, 0))
	for i, kc := range cases {
		c := cfg
		c.Block = kc.block
		f := filter(wr, kc.kw, kc.kh)
		for _, g := range sizesFor(i, agreementSizes) {
			specs = append(specs, WarmSpec{Variant: v, Problem: kc.problem(g, f), Config: c})
		}
	}
	warmAll(t, specs)
	logDepth(t, len(specs), len(cases)*len(agreementSizes))
	failures := 0
	for i, kc := range cases {
		f := filter(r, kc.kw, kc.kh)
		c := cfg
		c.Block = kc.block
		for _, g := range sizesFor(i, agreementSizes) {
			p := kc.problem(g, f)
			plan, err := convolve.PlanFor(v, p, c)
			if err != nil {
				t.Errorf("%s %v: Plan: %v", name, p, err)
				failures++
				continue
			}
			for range 2 {
				if _, ok := agree(t, name, plan, p, imagetest.Random(r, p.Input, imagetest.NonZero)); !ok {
					failures++
				}
			}
			if err := plan.Close(); err != nil {
				t.Errorf("%s %v: Close: %v", name, p, err)
			}
			if failures > 10 {
				t.Fatalf("too many failures")
			}
		}
	}
}

// variantAgreement runs the GPU variant gv (the vi-th of gpuVariants) over
// agreementCases x agreementSizes (sizesFor) with fresh random inputs and
// filters on NaN-poisoned outputs, and checks every element against
// refimpl.Expect within its tolerance. Cases sharing a specialization
// reuse its compiled module. TestAgreementSuites runs it.
func variantAgreement(t *testing.T, vi int, gv gpuVariant) {
	v, err := convolve.Lookup(gv.name)
	if err != nil {
		t.Fatal(err)
	}
	filter := imagetest.RandomFilter
	if gv.sep {
		filter = imagetest.SeparableFilter
	}
	agreeAll(t, gv.String(), v, gv.cfg, agreementCases(gv), rand.New(rand.NewPCG(uint64(vi), 1)), filter)
}

// TestBitExactNoFMA checks report 002's exactness point: compiled with
// --fmad=false, the direct kernels that sum in the reference order equal
// cpu-naive bit for bit.
func TestBitExactNoFMA(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	cpu, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	names := referenceOrderGPU()
	r := rand.New(rand.NewPCG(7, 7))
	cases := []kernelCase{
		{kw: 3, kh: 3, border: convolve.Zero, typ: convolve.Float32, channels: 1},
		{kw: 5, kh: 5, border: convolve.Replicate, mode: convolve.Convolve, typ: convolve.Uint8, channels: 3},
		{kw: 7, kh: 3, border: convolve.Reflect, typ: convolve.Int16, channels: 3, layout: convolve.Planar},
		{kw: 9, kh: 9, border: convolve.Mirror, typ: convolve.Float32, channels: 2},
		{kw: 15, kh: 15, border: convolve.Wrap, typ: convolve.Float32, channels: 1},
	}
	for _, name := range names {
		v, err := convolve.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, kc := range cases {
			p := kc.problem(convolve.Geometry{Width: 45, Height: 29}, imagetest.RandomFilter(r, kc.kw, kc.kh))
			in := imagetest.Random(r, p.Input, imagetest.NonZero)
			want := poisoned(t, p)
			cp, err := convolve.PlanFor(cpu, p, convolve.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if err := cp.Run(in, want); err != nil {
				t.Fatal(err)
			}
			cp.Close()
			plan, err := convolve.PlanFor(v, p, convolve.Config{NoFMA: true})
			if err != nil {
				t.Errorf("%s %v: %v", name, p, err)
				continue
			}
			got := poisoned(t, p)
			err = plan.Run(in, got)
			plan.Close()
			if err != nil {
				t.Errorf("%s %v: %v", name, p, err)
				continue
			}
			m, err := convolve.Compare(got, want, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !m.OK() {
				t.Errorf("%s --fmad=false %v: not bit-equal to cpu-naive: %v", name, p, m)
			}
		}
	}
}

// checkerboard is a w x h float image of 8x8 squares of 0 and 1.
func checkerboard(w, h int) *convolve.Image {
	im, _ := convolve.NewImage(convolve.Geometry{Width: w, Height: h, Channels: 1, Type: convolve.Float32})
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if (x/8+y/8)%2 == 1 {
				im.F32[y*w+x] = 1
			}
		}
	}
	return im
}

// TestReport000Table reproduces report 000's correctness table: seven
// filter configurations run by V1 (gpu-naive), V1_const (gpu-const) and V2
// (gpu-shared) on a 64x64 checkerboard with zero padding, default compile
// options; each passes when its max abs error against the CPU reference is
// below 1e-5 (and within the per-element tolerance).
func TestReport000Table(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	gauss7, err := convolve.Gaussian(7, convolve.GaussianDefaultSigma(7))
	if err != nil {
		t.Fatal(err)
	}
	box3, _ := convolve.Box(3)
	box5, _ := convolve.Box(5)
	rows := []struct {
		name string
		f    *convolve.Filter
	}{
		{"Gaussian", convolve.GaussianInt3()},
		{"Gaussian", convolve.GaussianInt5()},
		{"Gaussian", gauss7},
		{"Sobel X", convolve.SobelX()},
		{"Laplacian", convolve.Laplacian()},
		{"Box Blur", box3},
		{"Box Blur", box5},
	}
	kernels := []struct{ label, variant string }{{"V1", "gpu-naive"}, {"V1_const", "gpu-const"}, {"V2", "gpu-shared"}}
	in := checkerboard(64, 64)
	t.Logf("%-10s %-5s %-12s %-12s %-12s %s", "Filter", "Size", "V1", "V1_const", "V2", "Status")
	for _, row := range rows {
		p := convolve.Problem{Op: convolve.Filter2D, Input: in.Geometry, Filter: row.f, Border: convolve.Zero}
		ref, tol, err := refimpl.Expect(p, in)
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(kernels))
		status := "PASS"
		for i, k := range kernels {
			v, err := convolve.Lookup(k.variant)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := convolve.PlanFor(v, p, convolve.Config{})
			if err != nil {
				t.Fatalf("%s %v: %v", k.variant, p, err)
			}
			out := poisoned(t, p)
			err = plan.Run(in, out)
			plan.Close()
			if err != nil {
				t.Fatalf("%s %v: %v", k.variant, p, err)
			}
			m, err := convolve.Compare(out, ref, tol)
			if err != nil {
				t.Fatal(err)
			}
			cells[i] = fmt.Sprintf("%.2e", m.MaxAbs)
			if !(m.MaxAbs < 1e-5) || !m.OK() {
				status = "FAIL"
				t.Errorf("%s %s %dx%d: %v", k.label, row.name, row.f.Width, row.f.Height, m)
			}
		}
		t.Logf("%-10s %-5s %-12s %-12s %-12s %s", row.name, fmt.Sprintf("%dx%d", row.f.Width, row.f.Height), cells[0], cells[1], cells[2], status)
	}
}

// TestDevicePlan checks the timed path of every variant: Upload,
// TimeKernel, Download give the output Run gives, and the time is
// positive.
func TestDevicePlan(t *testing.T) {
	gputest.DeviceNoLeakCheck(t)
	r := rand.New(rand.NewPCG(3, 3))
	for _, gv := range gpuVariants {
		v, _ := convolve.Lookup(gv.name)
		f := imagetest.RandomFilter(r, 5, 5)
		if gv.sep {
			f = imagetest.SeparableFilter(r, 5, 5)
		}
		p := kernelCase{kw: 5, kh: 5, border: convolve.Mirror, typ: convolve.Uint8, channels: 3}.problem(convolve.Geometry{Width: 200, Height: 130}, f)
		plan, err := convolve.PlanFor(v, p, gv.cfg)
		if err != nil {
			t.Errorf("%v: %v", gv, err)
			continue
		}
		dp, ok := plan.(convolve.DevicePlan)
		if !ok {
			t.Errorf("%v: plan %T is not a convolve.DevicePlan", gv, plan)
			plan.Close()
			continue
		}
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		want := poisoned(t, p)
		got := poisoned(t, p)
		if err := dp.Run(in, want); err != nil {
			t.Errorf("%v: Run: %v", gv, err)
		} else if err := dp.Upload(in); err != nil {
			t.Errorf("%v: Upload: %v", gv, err)
		} else if d, err := dp.TimeKernel(3); err != nil || d <= 0 {
			t.Errorf("%v: TimeKernel(3) = %v, %v; want a positive time", gv, d, err)
		} else if err := dp.Download(got); err != nil {
			t.Errorf("%v: Download: %v", gv, err)
		} else if m, _ := convolve.Compare(got, want, nil); !m.OK() {
			t.Errorf("%v: Upload+TimeKernel+Download differs from Run: %v", gv, m)
		}
		if _, err := dp.TimeKernel(0); err == nil {
			t.Errorf("%v: TimeKernel(0) succeeded", gv)
		}
		if err := dp.Close(); err != nil {
			t.Errorf("%v: Close: %v", gv, err)
		}
		if err := dp.Run(in, got); err == nil {
			t.Errorf("%v: Run after Close succeeded", gv)
		}
	}
}

// TestLimitsOnDevice checks that filters and blocks past the device's
// constant and shared memory limits are refused at plan time with a
// *convolve.CapabilityError naming the variant, without leaking.
func TestLimitsOnDevice(t *testing.T) {
	d := gputest.DeviceNoLeakCheck(t)
	leakCheck := gputest.LeakCheck(t, d)
	r := rand.New(rand.NewPCG(5, 5))
	g := convolve.Geometry{Width: 40, Height: 30, Channels: 1, Type: convolve.Float32}
	cases := []struct {
		variant string
		kw, kh  int
		cfg     convolve.Config
		what    string
	}{
		{"gpu-const", 129, 129, convolve.Config{}, "constant memory"},
		{"gpu-shared", 129, 129, convolve.Config{}, "constant memory"},
		{"gpu-texture", 1023, 17, convolve.Config{}, "constant memory"},
		{"gpu-shared", 15, 1023, convolve.Config{Block: convolve.Block{X: 64, Y: 16}}, "shared memory"},
		{"gpu-shared-rows", 15, 1023, convolve.Config{Block: convolve.Block{X: 64, Y: 16}}, "shared memory"},
		{"gpu-texture-shared", 15, 1023, convolve.Config{Block: convolve.Block{X: 64, Y: 16}}, "shared memory"},
		{"gpu-separable", 3, 1023, convolve.Config{Block: convolve.Block{X: 1024, Y: 1}}, "shared memory"},
		{"gpu-tiled", 15, 1023, convolve.Config{Block: convolve.Block{X: 64, Y: 16}}, "shared memory"},
		{"gpu-sepfused", 3, 63, convolve.Config{Block: convolve.Block{X: 1024, Y: 1}}, "shared memory"},
	}
	for _, c := range cases {
		v, _ := convolve.Lookup(c.variant)
		f := imagetest.RandomFilter(r, c.kw, c.kh)
		if c.variant == "gpu-separable" || c.variant == "gpu-sepfused" {
			f = imagetest.SeparableFilter(r, c.kw, c.kh)
		}
		p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f}
		plan, err := convolve.PlanFor(v, p, c.cfg)
		var ce *convolve.CapabilityError
		if !errors.As(err, &ce) || ce.Variant != c.variant || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s %dx%d %v: err = %v, want a *convolve.CapabilityError about %s", c.variant, c.kw, c.kh, c.cfg, err, c.what)
		}
		if plan != nil {
			plan.Close()
		}
	}
	leakCheck()
}

// TestNoDevice checks that without a driver or GPU every variant still
// registers and a valid plan fails with the *cudabind.UnavailableError.
func TestNoDevice(t *testing.T) {
	if _, err := cudabind.Default(); err == nil {
		t.Skip("a CUDA device is present")
	}
	r := rand.New(rand.NewPCG(1, 1))
	for _, gv := range gpuVariants {
		v, err := convolve.Lookup(gv.name)
		if err != nil {
			t.Fatal(err)
		}
		p := kernelCase{kw: 3, kh: 3, typ: convolve.Float32, channels: 1}.problem(convolve.Geometry{Width: 8, Height: 8}, imagetest.SeparableFilter(r, 3, 3))
		_, err = convolve.PlanFor(v, p, gv.cfg)
		var ue *cudabind.UnavailableError
		if !errors.As(err, &ue) {
			t.Errorf("%v: Plan without a device: err = %v, want a *cudabind.UnavailableError", gv, err)
		}
	}
}
