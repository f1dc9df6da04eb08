package refimpl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/imagetest"
)

// allOutputs returns Expect's reference and every variant's output for p.
func allOutputs(t *testing.T, p convolve.Problem, in *convolve.Image) map[string]*convolve.Image {
	t.Helper()
	ref, _, err := Expect(p, in)
	if err != nil {
		t.Fatalf("Expect %v: %v", p, err)
	}
	outs := map[string]*convolve.Image{"Expect": ref}
	for _, vn := range variantNames {
		outs[vn] = runVariant(t, vn, p, in)
	}
	return outs
}

// TestIdentity checks that identity filters (square, and a rectangular
// one) return the input exactly under every border and mode.
func TestIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	filters := []*convolve.Filter{
		mustFilter(convolve.Identity(1)),
		mustFilter(convolve.Identity(3)),
		mustFilter(convolve.Identity(9)),
		newFilter("identity5x3", 5, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
	}
	for _, f := range filters {
		for _, b := range convolve.Borders {
			for _, m := range convolve.Modes {
				g := convolve.Geometry{Width: 1 + r.IntN(12), Height: 1 + r.IntN(12), Channels: 1 + r.IntN(4),
					Type: convolve.ElemTypes[r.IntN(3)], Layout: convolve.Layouts[r.IntN(2)]}
				in := imagetest.Random(r, g, imagetest.NonZero)
				p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: b, Mode: m}
				for who, out := range allOutputs(t, p, in) {
					forEach(g, func(x, y, c int) {
						if got, want := out.At(x, y, c), in.At(x, y, c); got != want {
							t.Fatalf("%v %s: (x=%d,y=%d,c=%d) = %v, want the input %v", p, who, x, y, c, got, want)
						}
					})
				}
			}
		}
	}
}

// TestImpulse puts a single 1 in a zero image: correlation returns the
// filter rotated by 180 degrees around the impulse, convolution returns
// the filter as written. With the anchor (ax, ay) = (KW/2, KH/2):
//
//	correlate: out(px+u, py+v) = w(ax-u, ay-v)
//	convolve:  out(px+u, py+v) = w(ax+u, ay+v)
//
// and 0 farther away. Every weight is distinct, so a transposed or
// unflipped filter shows.
func TestImpulse(t *testing.T) {
	const kw, kh = 5, 3
	ws := make([]float32, kw*kh)
	for i := range ws {
		ws[i] = float32(i+1) * 0.5
	}
	f := newFilter("distinct5x3", kw, kh, ws...)
	const px, py = 4, 3
	for _, b := range convolve.Borders {
		for _, m := range convolve.Modes {
			g := convolve.Geometry{Width: 10, Height: 7, Channels: 1, Type: convolve.Float32}
			in, _ := convolve.NewImage(g)
			in.Set(px, py, 0, 1)
			p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: b, Mode: m}
			for who, out := range allOutputs(t, p, in) {
				for y := 0; y < g.Height; y++ {
					for x := 0; x < g.Width; x++ {
						u, v := x-px, y-py
						want := 0.0
						if u >= -kw/2 && u <= kw/2 && v >= -kh/2 && v <= kh/2 {
							if m == convolve.Correlate {
								want = float64(f.At(kw/2-u, kh/2-v))
							} else {
								want = float64(f.At(kw/2+u, kh/2+v))
							}
						}
						if got := out.At(x, y, 0); got != want {
							t.Errorf("%v/%v %s: (%d,%d) = %v, want %v", b, m, who, x, y, got, want)
						}
					}
				}
			}
		}
	}
}

// TestCorrelateFlippedIsConvolve checks, bit for bit, that correlating
// with f.Flipped() gives what convolving with f gives, for every variant.
func TestCorrelateFlippedIsConvolve(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 40
	if testing.Short() {
		n = 10
	}
	for k := 0; k < n; k++ {
		p := randomProblem(r)
		if p.Op != convolve.Filter2D {
			continue
		}
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		p.Mode = convolve.Convolve
		conv := allOutputs(t, p, in)
		q := p
		q.Mode, q.Filter = convolve.Correlate, p.Filter.Flipped()
		corr := allOutputs(t, q, in)
		for who := range conv {
			if imagetest.BitDiff(conv[who], corr[who]) != nil {
				t.Errorf("%v %s: convolve with f differs from correlate with f.Flipped()", p, who)
			}
		}
	}
}

// TestSeparablePath checks that cpu-fast takes the separable path exactly
// for filters whose factors reproduce the weights closely enough, and that
// the separable path equals the 2-D path: bit for bit where every value is
// a small integer (float32 sums exact), within the reference tolerance
// otherwise.
func TestSeparablePath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var row7 [7]float32
	var col5 [5]float32
	for i := range row7 {
		row7[i] = imagetest.Weight(r)
	}
	for j := range col5 {
		col5[j] = imagetest.Weight(r)
	}
	outer := make([]float32, 7*5)
	for j := range col5 {
		for i := range row7 {
			outer[j*7+i] = float32(float64(col5[j]) * float64(row7[i]))
		}
	}
	// Rank 1 within Separable's 1e-6 but not within the 8*2^-24 relative
	// error per weight the tolerance argument needs.
	near := convolve.GaussianInt3()
	near.Weights[0] *= 1 + 1e-6
	tests := []struct {
		f         *convolve.Filter
		separable bool
		exact     bool // integer weights: both paths give identical bits
	}{
		{convolve.SobelX(), true, true},
		{convolve.SobelY(), true, true},
		{convolve.PrewittX(), true, true},
		{newFilter("binomial5", 5, 5, scale32(16, convolve.GaussianInt5().Weights)...), true, true},
		{newFilter("ones7x1", 7, 1, 1, 1, 1, 1, 1, 1, 1), true, true},
		{newFilter("ones1x5", 1, 5, 1, 1, 1, 1, 1), true, true},
		{mustFilter(convolve.Box(5)), true, false},
		{mustFilter(convolve.Gaussian(7, 0)), true, false},
		{mustFilter(convolve.Gaussian(15, 2.5)), true, false},
		{newFilter("outer7x5", 7, 5, outer...), true, false},
		{near, false, false},
		{convolve.Laplacian(), false, false},
		{convolve.Sharpen(), false, false},
	}
	for _, tc := range tests {
		for _, m := range convolve.Modes {
			if got := newStage(tc.f.Oriented(m)).row != nil; got != tc.separable {
				t.Errorf("%v %v: separable path %v, want %v", tc.f, m, got, tc.separable)
			}
		}
		for _, b := range convolve.Borders {
			for _, typ := range []convolve.ElemType{convolve.Uint8, convolve.Float32} {
				g := convolve.Geometry{Width: 3 + r.IntN(30), Height: 1 + r.IntN(20), Channels: 2, Type: typ, Layout: convolve.Planar}
				in := imagetest.Random(r, g, imagetest.NonZero)
				p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: tc.f, Border: b, Mode: convolve.Convolve}
				sep, flat := runFastBothPaths(t, p, in)
				ref, tol, err := Expect(p, in)
				if err != nil {
					t.Fatal(err)
				}
				for name, out := range map[string]*convolve.Image{"separable": sep, "2-D": flat} {
					m, _ := convolve.Compare(out, ref, tol)
					if !m.OK() {
						t.Errorf("%v %v path: %v", p, name, m)
					}
				}
				if tc.exact && typ == convolve.Uint8 && imagetest.BitDiff(sep, flat) != nil {
					t.Errorf("%v: separable and 2-D paths differ on integer data", p)
				}
			}
		}
	}
}

func scale32(s float32, w []float32) []float32 {
	out := make([]float32, len(w))
	for i, v := range w {
		out[i] = v * s
	}
	return out
}

// runFastBothPaths runs cpu-fast as planned and again with its separable
// stages forced onto the 2-D path.
func runFastBothPaths(t *testing.T, p convolve.Problem, in *convolve.Image) (sep, flat *convolve.Image) {
	t.Helper()
	var outs [2]*convolve.Image
	for k := range outs {
		plan, err := fast{}.Plan(p, convolve.Config{})
		if err != nil {
			t.Fatal(err)
		}
		fp := plan.(*fastPlan)
		if k == 1 {
			for s := range fp.stages {
				fp.stages[s].row, fp.stages[s].col = nil, nil
			}
			for i := range fp.workers {
				fp.workers[i] = fp.newWorker()
			}
		}
		outs[k], _ = p.NewOutput()
		outs[k].Fill(math.NaN())
		if err := plan.Run(in, outs[k]); err != nil {
			t.Fatal(err)
		}
	}
	return outs[0], outs[1]
}

// naiveOrder is the float32 sum cpu-naive documents, written again from
// its documentation with Image.At, to pin the summation order GPU kernels
// built with --fmad=false reproduce.
func naiveOrder(in *convolve.Image, c, x, y int, f *convolve.Filter, b convolve.Border) float32 {
	var s float32
	for j := 0; j < f.Height; j++ {
		for i := 0; i < f.Width; i++ {
			var pixel float32
			ix, okx := b.Index(x+i-f.Width/2, in.Width)
			iy, oky := b.Index(y+j-f.Height/2, in.Height)
			if okx && oky {
				pixel = float32(in.At(ix, iy, c))
			}
			s += float32(f.At(i, j) * pixel) // the conversion forbids fusing into an FMA
		}
	}
	return s
}

// TestNaiveSummationOrder checks cpu-naive bit for bit against its
// documented loop on random problems.
func TestNaiveSummationOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	n := 60
	if testing.Short() {
		n = 15
	}
	for k := 0; k < n; k++ {
		p := randomProblem(r)
		if p.Op == convolve.RGBToYUV {
			continue
		}
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		out := runVariant(t, "cpu-naive", p, in)
		fx, fy := sobelWeights()
		bad := 0
		forEach(in.Geometry, func(x, y, c int) {
			var want float32
			if p.Op == convolve.SobelMagnitude {
				gx, gy := naiveOrder(in, c, x, y, fx, p.Border), naiveOrder(in, c, x, y, fy, p.Border)
				want = float32(math.Sqrt(float64(float32(gx*gx) + float32(gy*gy))))
			} else {
				want = naiveOrder(in, c, x, y, p.Filter.Oriented(p.Mode), p.Border)
			}
			if got := out.F32[out.Offset(x, y, c)]; math.Float32bits(got) != math.Float32bits(want) && bad == 0 {
				bad++
				t.Errorf("%v: (x=%d,y=%d,c=%d) = %v, want %v", p, x, y, c, got, want)
			}
		})
	}
}

// TestNaiveRoundsEveryProduct uses taps whose sum differs when the second
// product is fused into the add: (1+2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to
// 1 + 2^-11 (a tie, to even), which cancels the first tap exactly, while a
// fused multiply-add keeps 2^-24.
func TestNaiveRoundsEveryProduct(t *testing.T) {
	a := float32(1 + 0x1p-12)
	f := newFilter("fma-probe", 3, 1, -(1 + 0x1p-11), a, 0)
	g := convolve.Geometry{Width: 3, Height: 1, Channels: 1, Type: convolve.Float32}
	in, _ := convolve.WrapFloat32(g, []float32{1, a, 0})
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: convolve.Zero}
	out := runVariant(t, "cpu-naive", p, in)
	if got := out.At(1, 0, 0); got != 0 {
		t.Errorf("cpu-naive at x=1 = %v, want 0 (every product rounded before the add)", got)
	}
	ref, _, err := Expect(p, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := ref.At(1, 0, 0); got != 0x1p-24 {
		t.Errorf("Expect at x=1 = %v, want the exact 2^-24", got)
	}
}

// TestToleranceDetectsErrors checks that the tolerance is tight: an output
// off by 10^-4 of the data's scale, sum|w| * max|x|, is reported, so
// agreement within the tolerance means something.
func TestToleranceDetectsErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 30; k++ {
		p := randomProblem(r)
		if p.Op == convolve.RGBToYUV {
			continue
		}
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		ref, tol, err := Expect(p, in)
		if err != nil {
			t.Fatal(err)
		}
		out := runVariant(t, "cpu-fast", p, in)
		var sumW, maxX float64
		f := p.Filter
		if p.Op == convolve.SobelMagnitude {
			f = convolve.SobelX() // |SobelY| sums the same
		}
		for _, w := range f.Weights {
			sumW += math.Abs(float64(w))
		}
		forEach(in.Geometry, func(x, y, c int) { maxX = math.Max(maxX, math.Abs(in.At(x, y, c))) })
		x, y, c := r.IntN(p.Input.Width), r.IntN(p.Input.Height), r.IntN(p.Input.Channels)
		out.Set(x, y, c, ref.At(x, y, c)+1e-4*sumW*maxX)
		m, _ := convolve.Compare(out, ref, tol)
		if m.Violations != 1 || m.First.X != x || m.First.Y != y || m.First.C != c {
			t.Errorf("%v: an error of 1e-4*%v at (%d,%d,%d) gave %v", p, sumW*maxX, x, y, c, m)
		}
	}
}

// TestBadInput checks that plans and Expect return errors, never panic, on
// bad images, problems and configurations.
func TestBadInput(t *testing.T) {
	box := mustFilter(convolve.Box(3))
	g := convolve.Geometry{Width: 5, Height: 4, Channels: 2, Type: convolve.Uint8, Layout: convolve.Planar}
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: box, Border: convolve.Mirror}
	in, _ := convolve.NewImage(g)
	out, _ := p.NewOutput()
	wider := g
	wider.Width = 6
	inWide, _ := convolve.NewImage(wider)
	f32 := g
	f32.Type = convolve.Float32
	inF32, _ := convolve.NewImage(f32)
	outU8, _ := convolve.NewImage(convolve.Geometry{Width: 5, Height: 4, Channels: 2, Type: convolve.Uint8, Layout: convolve.Planar})
	outInter, _ := convolve.NewImage(convolve.Geometry{Width: 5, Height: 4, Channels: 2, Type: convolve.Float32})
	short := &convolve.Image{Geometry: g, U8: make([]uint8, 3)}
	runs := []struct {
		name    string
		in, out *convolve.Image
	}{
		{"nil input", nil, out},
		{"nil output", in, nil},
		{"input data too short", short, out},
		{"input width differs", inWide, out},
		{"input type differs", inF32, out},
		{"output type u8", in, outU8},
		{"output layout differs", in, outInter},
	}
	for _, vn := range variantNames {
		v, _ := convolve.Lookup(vn)
		plan, err := v.Plan(p, convolve.Config{})
		if err != nil {
			t.Fatalf("%s: %v", vn, err)
		}
		for _, tc := range runs {
			if err := plan.Run(tc.in, tc.out); err == nil {
				t.Errorf("%s: Run with %s: no error", vn, tc.name)
			}
		}
		plans := []struct {
			name string
			p    convolve.Problem
			cfg  convolve.Config
		}{
			{"nil filter", convolve.Problem{Op: convolve.Filter2D, Input: g}, convolve.Config{}},
			{"even filter", convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: &convolve.Filter{Name: "even", Width: 2, Height: 1, Weights: []float32{1, 1}}}, convolve.Config{}},
			{"bad border", convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: box, Border: 9}, convolve.Config{}},
			{"zero width", convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Height: 3, Channels: 1}, Filter: box}, convolve.Config{}},
			{"yuv on 2 channels", convolve.Problem{Op: convolve.RGBToYUV, Input: g}, convolve.Config{}},
			{"block shape", p, convolve.Config{Block: convolve.Block{X: 32, Y: 8}}},
			{"fmad=false", p, convolve.Config{NoFMA: true}},
			{"fast math", p, convolve.Config{FastMath: true}},
			{"tunable", p, convolve.Config{Tunables: map[string]int{"tile": 4}}},
		}
		for _, tc := range plans {
			// Directly and through PlanFor: both must refuse.
			if _, err := v.Plan(tc.p, tc.cfg); err == nil {
				t.Errorf("%s: Plan with %s: no error", vn, tc.name)
			}
			if _, err := convolve.PlanFor(v, tc.p, tc.cfg); err == nil {
				t.Errorf("%s: PlanFor with %s: no error", vn, tc.name)
			}
		}
		_, err = v.Plan(p, convolve.Config{Block: convolve.Block{X: 32, Y: 8}})
		if ce, ok := err.(*convolve.CapabilityError); !ok || ce.Variant != vn {
			t.Errorf("%s: Plan with a block shape: %v, want a CapabilityError naming the variant", vn, err)
		}
	}
	// In place: the output over the input's data.
	gf := convolve.Geometry{Width: 6, Height: 5, Channels: 1, Type: convolve.Float32}
	pf := convolve.Problem{Op: convolve.Filter2D, Input: gf, Filter: box}
	data := make([]float32, gf.Len()+4)
	inF, _ := convolve.WrapFloat32(gf, data)
	outF, _ := convolve.WrapFloat32(gf, data[2:])
	for _, vn := range []string{"cpu-naive", "cpu-fast"} {
		v, _ := convolve.Lookup(vn)
		plan, err := v.Plan(pf, convolve.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := plan.Run(inF, outF); err == nil {
			t.Errorf("%s: Run in place: no error", vn)
		}
		if err := plan.Run(inF, inF); err == nil {
			t.Errorf("%s: Run with out == in: no error", vn)
		}
	}
	if _, _, err := Expect(p, nil); err == nil {
		t.Error("Expect with a nil image: no error")
	}
	if _, _, err := Expect(p, inWide); err == nil {
		t.Error("Expect with a mismatched image: no error")
	}
	if _, _, err := Expect(convolve.Problem{Op: convolve.Filter2D, Input: g}, in); err == nil {
		t.Error("Expect without a filter: no error")
	}
}

// TestDescriptions checks the registered descriptions.
func TestDescriptions(t *testing.T) {
	reports := map[string]string{"reference": "", "cpu-naive": "000", "cpu-fast": "004"}
	for _, vn := range variantNames {
		v, err := convolve.Lookup(vn)
		if err != nil {
			t.Fatal(err)
		}
		d := v.Describe()
		if d.Name != vn || d.Summary == "" || d.Report != reports[vn] || d.Caps.GPU {
			t.Errorf("%s: description %+v", vn, d)
		}
		for _, op := range convolve.Operations {
			for _, b := range convolve.Borders {
				for _, ch := range []int{1, 3} {
					p := convolve.Problem{Op: op, Input: convolve.Geometry{Width: 4, Height: 4, Channels: ch, Type: convolve.Uint8, Layout: convolve.Planar},
						Filter: mustFilter(convolve.Box(3)), Border: b}
					if op == convolve.RGBToYUV && ch != 3 {
						continue
					}
					if err := d.Caps.Check(p); err != nil {
						t.Errorf("%s: capabilities refuse %v: %v", vn, p, fmt.Sprint(err))
					}
				}
			}
		}
	}
}
