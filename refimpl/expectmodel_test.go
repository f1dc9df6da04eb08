package refimpl

import (
	"math"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// TestExpectModelFFTTerms checks the norms ExpectModel feeds the FFT
// bound on a 2x1 image [1 2] with a 3x1 filter of ones, worked out by
// hand for each border: the bordered row is one pixel longer on each
// side, filled through the border mapping.
func TestExpectModelFFTTerms(t *testing.T) {
	tests := []struct {
		border   convolve.Border
		bordered []float64
	}{
		{convolve.Zero, []float64{0, 1, 2, 0}},
		{convolve.Replicate, []float64{1, 1, 2, 2}},
		{convolve.Reflect, []float64{1, 1, 2, 2}},
		{convolve.Mirror, []float64{2, 1, 2, 1}},
		{convolve.Wrap, []float64{2, 1, 2, 1}},
	}
	g := convolve.Geometry{Width: 2, Height: 1, Channels: 1, Type: convolve.Float32}
	in, err := convolve.NewImage(g)
	if err != nil {
		t.Fatal(err)
	}
	in.Set(0, 0, 0, 1)
	in.Set(1, 0, 0, 2)
	f := newFilter("ones", 3, 1, 1, 1, 1)
	for _, tt := range tests {
		p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: tt.border}
		var l2 float64
		for _, v := range tt.bordered {
			l2 += v * v
		}
		want := convolve.FFTTerms{InL2: math.Sqrt(l2), FilterL2: math.Sqrt(3), LogN: 2}
		terms, err := FFTTerms(p, in)
		if err != nil {
			t.Fatalf("%v: %v", tt.border, err)
		}
		if len(terms) != 1 || terms[0] != want {
			t.Errorf("%v: FFTTerms = %+v, want %+v", tt.border, terms, want)
		}
		for _, m := range []convolve.ErrorModel{convolve.FFT64, convolve.FFT32} {
			ref, tol, err := ExpectModel(p, in, m)
			if err != nil {
				t.Fatalf("%v %v: %v", tt.border, m, err)
			}
			for x := 0; x < 2; x++ {
				r := tt.bordered[x] + tt.bordered[x+1] + tt.bordered[x+2]
				if ref.At(x, 0, 0) != r {
					t.Errorf("%v %v: ref(%d) = %v, want %v", tt.border, m, x, ref.At(x, 0, 0), r)
				}
				wt := float64(roundUp(convolve.FFTTolerance(want, r, m.FFTRoundoff())))
				if got := tol.At(x, 0, 0); got != wt {
					t.Errorf("%v %v: tol(%d) = %v, want %v", tt.border, m, x, got, wt)
				}
			}
		}
	}
}

// TestExpectModelDirectModels: Direct gives Expect's tolerance, TF32 and
// BF16 the operand bound on the same sums, and the reference is the same.
func TestExpectModelDirectModels(t *testing.T) {
	g := convolve.Geometry{Width: 4, Height: 3, Channels: 1, Type: convolve.Float32}
	in, _ := convolve.NewImage(g)
	for i, v := range ramp43 {
		in.Set(i%4, i/4, 0, v)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: newFilter("box", 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), Border: convolve.Replicate}
	ref0, tol0, err := Expect(p, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []convolve.ErrorModel{convolve.Direct, convolve.TF32, convolve.BF16} {
		ref, tol, err := ExpectModel(p, in, m)
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < 3; y++ {
			for x := 0; x < 4; x++ {
				if ref.At(x, y, 0) != ref0.At(x, y, 0) {
					t.Errorf("%v: ref(%d,%d) = %v, Expect's %v", m, x, y, ref.At(x, y, 0), ref0.At(x, y, 0))
				}
				// All terms are positive, so sum|w*x| is the result.
				s := ref0.At(x, y, 0)
				want := float64(roundUp(convolve.OperandTolerance(3, 3, s, s, m.OperandRoundoff())))
				if got := tol.At(x, y, 0); got != want {
					t.Errorf("%v: tol(%d,%d) = %v, want %v", m, x, y, got, want)
				}
				if m == convolve.Direct && tol.At(x, y, 0) != tol0.At(x, y, 0) {
					t.Errorf("Direct: tol(%d,%d) = %v, Expect's %v", x, y, tol.At(x, y, 0), tol0.At(x, y, 0))
				}
			}
		}
	}
}

func TestExpectModelRefusals(t *testing.T) {
	g := convolve.Geometry{Width: 4, Height: 4, Channels: 1, Type: convolve.Float32}
	in, _ := convolve.NewImage(g)
	sobel := convolve.Problem{Op: convolve.SobelMagnitude, Input: g}
	if _, _, err := ExpectModel(sobel, in, convolve.FFT32); err == nil {
		t.Error("ExpectModel(SobelMagnitude, FFT32): no error")
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: newFilter("one", 1, 1, 1)}
	if _, _, err := ExpectModel(p, in, convolve.ErrorModel(42)); err == nil {
		t.Error("ExpectModel with an unknown model: no error")
	}
	if _, err := FFTTerms(sobel, in); err == nil {
		t.Error("FFTTerms(SobelMagnitude): no error")
	}
}
