package refimpl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/imagetest"
)

// randomFilter returns a KW x KH filter of one of three kinds: random
// non-zero weights (not separable), an outer product of two random
// vectors rounded to float32 (separable), or a library filter.
func randomFilter(r *rand.Rand) *convolve.Filter {
	kw, kh := 1+2*r.IntN(8), 1+2*r.IntN(8)
	switch r.IntN(4) {
	case 0, 1:
		return imagetest.RandomFilter(r, kw, kh)
	case 2:
		return imagetest.SeparableFilter(r, kw, kh)
	default:
		lib := []func() (*convolve.Filter, error){
			func() (*convolve.Filter, error) { return convolve.Box(kw) },
			func() (*convolve.Filter, error) { return convolve.Gaussian(kw, 0) },
			func() (*convolve.Filter, error) { return convolve.Gaussian(kw, 0.5+3*r.Float64()) },
			func() (*convolve.Filter, error) { return convolve.SobelX(), nil },
			func() (*convolve.Filter, error) { return convolve.Laplacian(), nil },
			func() (*convolve.Filter, error) { return convolve.Emboss(), nil },
		}
		f, err := lib[r.IntN(len(lib))]()
		if err != nil {
			panic(err)
		}
		return f
	}
}

// randomProblem draws a problem: sizes 1..70, odd filter sides 1..15
// (often larger than the image), every border, mode, type, channel count
// and layout, and random row strides.
func randomProblem(r *rand.Rand) convolve.Problem {
	g := convolve.Geometry{
		Width:    1 + r.IntN(70),
		Height:   1 + r.IntN(70),
		Channels: 1 + r.IntN(4),
		Type:     convolve.ElemTypes[r.IntN(len(convolve.ElemTypes))],
		Layout:   convolve.Layouts[r.IntN(len(convolve.Layouts))],
	}
	p := convolve.Problem{
		Border: convolve.Borders[r.IntN(len(convolve.Borders))],
		Mode:   convolve.Modes[r.IntN(len(convolve.Modes))],
	}
	switch k := r.IntN(10); {
	case k < 7:
		p.Op = convolve.Filter2D
		p.Filter = randomFilter(r)
	case k < 9:
		p.Op = convolve.SobelMagnitude
	default:
		p.Op = convolve.RGBToYUV
		g.Channels, g.Type = 3, convolve.Uint8
	}
	if r.IntN(2) == 0 {
		g.Stride = g.RowElems() + r.IntN(7)
	}
	p.Input = g
	return p
}

// poisonedOutput allocates an output for p with a random row stride and
// fills every element with NaN (255 for uint8, a value no YUV output takes).
func poisonedOutput(r *rand.Rand, p convolve.Problem) *convolve.Image {
	g := p.OutputGeometry()
	if r.IntN(2) == 0 {
		g.Stride = g.RowElems() + r.IntN(5)
	}
	out, err := convolve.NewImage(g)
	if err != nil {
		panic(err)
	}
	out.Fill(math.NaN())
	if out.Type == convolve.Uint8 {
		out.Fill(255)
	}
	return out
}

// paddingUntouched reports whether every element outside the image data
// (row padding) still holds the poison.
func paddingUntouched(out *convolve.Image) bool {
	inside := make([]bool, out.Len())
	forEach(out.Geometry, func(x, y, c int) { inside[out.Offset(x, y, c)] = true })
	for i, in := range inside {
		if in {
			continue
		}
		if out.Type == convolve.Float32 && !math.IsNaN(float64(out.F32[i])) ||
			out.Type == convolve.Uint8 && out.U8[i] != 255 {
			return false
		}
	}
	return true
}

// TestVariantsAgreeWithExpect runs every variant of this package on
// random problems and checks each output element against Expect's
// reference within its tolerance.
func TestVariantsAgreeWithExpect(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"reference", "cpu-naive", "cpu-fast"}
	separable := 0
	for k := 0; k < n; k++ {
		p := randomProblem(r)
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		ref, tol, err := Expect(p, in)
		if err != nil {
			t.Fatalf("problem %d %v: Expect: %v", k, p, err)
		}
		if p.Op == convolve.Filter2D && newStage(p.Filter.Oriented(p.Mode)).row != nil {
			separable++
		}
		for _, name := range names {
			v, err := convolve.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := convolve.PlanFor(v, p, convolve.Config{})
			if err != nil {
				t.Fatalf("problem %d %v: %s: plan: %v", k, p, name, err)
			}
			out := poisonedOutput(r, p)
			if err := plan.Run(in, out); err != nil {
				t.Fatalf("problem %d %v: %s: run: %v", k, p, name, err)
			}
			m, err := convolve.Compare(out, ref, tol)
			if err != nil {
				t.Fatal(err)
			}
			if !m.OK() {
				t.Errorf("problem %d %v: %s: %v", k, p, name, m)
			}
			if !paddingUntouched(out) {
				t.Errorf("problem %d %v: %s: wrote into the output's row padding", k, p, name)
			}
			if err := plan.Close(); err != nil {
				t.Errorf("%s: close: %v", name, err)
			}
		}
	}
	if separable == 0 {
		t.Errorf("no random problem took the separable path of cpu-fast")
	}
}
