package verify_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/verify"
)

// roundUp is the smallest float32 not below t: tolerances are stored
// rounded up, so that they never shrink below the float64 bound.
func roundUp(t float64) float32 {
	f := float32(t)
	if float64(f) < t {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// constant returns a w x h image of c channels of typ with every element v.
func constant(t *testing.T, w, h, c int, typ convolve.ElemType, v float64) *convolve.Image {
	t.Helper()
	im, err := convolve.NewImage(convolve.Geometry{Width: w, Height: h, Channels: c, Type: typ})
	if err != nil {
		t.Fatal(err)
	}
	im.Fill(v)
	return im
}

func filled(t *testing.T, k int, w float32) *convolve.Filter {
	t.Helper()
	ws := make([]float32, k*k)
	for i := range ws {
		ws[i] = w
	}
	f, err := convolve.NewFilter(fmt.Sprintf("k%d", k), k, k, ws)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReferenceTolerances pins the tolerance of every error model: on a
// constant image v under the Replicate border, a k x k filter of weights
// w gives every output s = k*k*w*v with sum|terms| = |s|, and a bordered
// channel of (W+k-1)(H+k-1) pixels v. Each element's tolerance must be
// the model's bound of those, rounded up to float32: the direct bound
// with the model's operand rounding (Direct, TF32, BF16) or the FFT bound
// with the model's arithmetic (FFT64, FFT32).
func TestReferenceTolerances(t *testing.T) {
	const W, H = 13, 9
	tests := []struct {
		typ  convolve.ElemType
		v    float64
		k    int
		w    float32
		ch   int
		want map[convolve.ErrorModel]float32 // pinned values, where listed
	}{
		{convolve.Uint8, 200, 1, 1, 1, nil},
		{convolve.Uint8, 7, 3, 0.25, 3, nil},
		{convolve.Int16, -1234, 5, -0.5, 2, nil},
		{convolve.Int16, 32767, 15, 1.0 / 3, 1, nil},
		{convolve.Float32, 0.1, 31, 0.75, 4, nil},
		{convolve.Float32, -3.5, 63, 1e-3, 1, nil},
		// Pinned: a change of any model's bound shows here.
		{convolve.Float32, 1, 1, 1, 1, map[convolve.ErrorModel]float32{
			convolve.Direct: 2.3841864e-07, // 3u/(1-3u) + u + 2^-126
			convolve.FFT64:  1.192104e-07,
			convolve.FFT32:  0.0005846416,
			convolve.TF32:   0.0009770396,
			convolve.BF16:   0.007827999,
		}},
	}
	for _, tt := range tests {
		for _, m := range convolve.ErrorModels {
			name := fmt.Sprintf("%v/%v/k=%d/%v", m, tt.typ, tt.k, tt.v)
			t.Run(name, func(t *testing.T) {
				in := constant(t, W, H, tt.ch, tt.typ, tt.v)
				f := filled(t, tt.k, tt.w)
				p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Border: convolve.Replicate, Input: in.Geometry}
				ref, tol, err := verify.Reference(p, in, m)
				if err != nil {
					t.Fatal(err)
				}
				v := in.At(0, 0, 0) // as stored
				s := float64(tt.k*tt.k) * float64(tt.w) * v
				var bound float64
				if m.IsFFT() {
					terms := convolve.FFTTerms{
						InL2:     math.Sqrt(float64((W+tt.k-1)*(H+tt.k-1))) * math.Abs(v),
						FilterL2: float64(tt.k) * math.Abs(float64(tt.w)),
						LogN:     convolve.FFTLogPoints(W, H, tt.k, tt.k),
					}
					bound = convolve.FFTTolerance(terms, s, m.FFTRoundoff())
				} else {
					bound = convolve.OperandTolerance(tt.k, tt.k, math.Abs(s), s, m.OperandRoundoff())
				}
				want := roundUp(bound)
				if pin, ok := tt.want[m]; ok && pin != want {
					t.Fatalf("bound of the model %v, pinned %v", want, pin)
				}
				for c := 0; c < tt.ch; c++ {
					for _, xy := range [][2]int{{0, 0}, {W / 2, H / 2}, {W - 1, H - 1}} {
						x, y := xy[0], xy[1]
						if got := float32(tol.At(x, y, c)); got != want {
							t.Errorf("tol(%d,%d,%d) = %v, want %v", x, y, c, got, want)
						}
						if got := ref.At(x, y, c); got != float64(float32(s)) {
							t.Errorf("ref(%d,%d,%d) = %v, want %v", x, y, c, got, float32(s))
						}
					}
				}
			})
		}
	}
}

// TestFFTToleranceFromSum pins the one rule of an FFT model's tolerance:
// it is convolve.FFTTolerance of the exact float64 result, which already
// allows for the reference's rounding to float32, not of the float32
// reference enlarged by one more rounding (which would count it twice).
// On a one-pixel image of 1 under a 1x1 filter of 1 the two differ.
func TestFFTToleranceFromSum(t *testing.T) {
	in := constant(t, 1, 1, 1, convolve.Float32, 1)
	p := convolve.Problem{Op: convolve.Filter2D, Filter: filled(t, 1, 1), Input: in.Geometry}
	for _, m := range []convolve.ErrorModel{convolve.FFT64, convolve.FFT32} {
		_, tol, err := verify.Reference(p, in, m)
		if err != nil {
			t.Fatal(err)
		}
		terms := convolve.FFTTerms{InL2: 1, FilterL2: 1, LogN: 0}
		want := roundUp(convolve.FFTTolerance(terms, 1, m.FFTRoundoff()))
		twice := roundUp(convolve.FFTTolerance(terms, 1+0x1p-23, m.FFTRoundoff()))
		if want == twice {
			t.Fatalf("%v: the two rules agree here; the test shows nothing", m)
		}
		if got := float32(tol.At(0, 0, 0)); got != want {
			t.Errorf("%v: tol = %v, want %v (the rounding counted twice gives %v)", m, got, want, twice)
		}
	}
}

// crop returns the w x h rectangle at (x0, y0) of in with the filter's
// reach rx, ry on each side, pixels outside in read through b.
func crop(t *testing.T, in *convolve.Image, b convolve.Border, x0, y0, w, h, rx, ry int) *convolve.Image {
	t.Helper()
	g := in.Geometry
	g.Width, g.Height, g.Stride = w+2*rx, h+2*ry, 0
	c, err := convolve.NewImage(g)
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < g.Height; y++ {
		sy, oky := b.Index(y0-ry+y, in.Height)
		for x := 0; x < g.Width; x++ {
			sx, okx := b.Index(x0-rx+x, in.Width)
			if !oky || !okx {
				continue // Zero: 0, as the crop starts
			}
			for ch := 0; ch < g.Channels; ch++ {
				c.Set(x, y, ch, in.At(sx, sy, ch))
			}
		}
	}
	return c
}

// TestCropReference: the reference and tolerance of a window computed
// from a crop with the whole input's terms equal those of the whole
// input bit for bit, under every model and border; under an FFT model
// the crop's own terms would give a smaller bound.
func TestCropReference(t *testing.T) {
	g := convolve.Geometry{Width: 40, Height: 30, Channels: 2, Type: convolve.Float32}
	in, err := convolve.NewImage(g)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.F32 {
		in.F32[i] = float32(math.Sin(float64(i)*0.7)) * 3
	}
	ws := make([]float32, 5*3)
	for i := range ws {
		ws[i] = float32(math.Cos(float64(i))) / 4
	}
	f, err := convolve.NewFilter("f", 5, 3, ws)
	if err != nil {
		t.Fatal(err)
	}
	const x0, y0, w, h = 31, 2, 9, 6 // touches the right edge
	for _, b := range convolve.Borders {
		for _, m := range convolve.ErrorModels {
			t.Run(fmt.Sprintf("%v/%v", b, m), func(t *testing.T) {
				p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Border: b, Mode: convolve.Convolve, Input: g}
				ref, tol, err := verify.Reference(p, in, m)
				if err != nil {
					t.Fatal(err)
				}
				whole, err := verify.Terms(p, in)
				if err != nil {
					t.Fatal(err)
				}
				cr := crop(t, in, b, x0, y0, w, h, 2, 1)
				cp := p
				cp.Input = cr.Geometry
				cref, ctol, err := verify.CropReference(cp, cr, m, whole)
				if err != nil {
					t.Fatal(err)
				}
				_, own, err := verify.CropReference(cp, cr, m, nil)
				if err != nil {
					t.Fatal(err)
				}
				smaller := false
				for c := 0; c < g.Channels; c++ {
					for y := 0; y < h; y++ {
						for x := 0; x < w; x++ {
							if a, b := cref.At(x+2, y+1, c), ref.At(x0+x, y0+y, c); a != b {
								t.Fatalf("ref(%d,%d,%d): crop %v, whole %v", x0+x, y0+y, c, a, b)
							}
							if a, b := ctol.At(x+2, y+1, c), tol.At(x0+x, y0+y, c); a != b {
								t.Fatalf("tol(%d,%d,%d): crop %v, whole %v", x0+x, y0+y, c, a, b)
							}
							smaller = smaller || own.At(x+2, y+1, c) < tol.At(x0+x, y0+y, c)
						}
					}
				}
				if m.IsFFT() && !smaller {
					t.Error("the crop's own terms give the whole input's bound; the test shows nothing")
				}
			})
		}
	}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: g}
	if _, _, err := verify.CropReference(p, in, convolve.FFT32, make([]convolve.FFTTerms, 1)); err == nil {
		t.Error("one FFT term for two channels: no error")
	}
}

// declares is a variant that declares the error model it is; Output
// reads no more of it.
type declares convolve.ErrorModel

func (m declares) Describe() convolve.Description {
	return convolve.Description{Name: "declares-" + convolve.ErrorModel(m).String(),
		Caps: convolve.Capabilities{Accuracy: convolve.ErrorModel(m)}}
}

func (declares) Plan(convolve.Problem, convolve.Config) (convolve.Plan, error) {
	return nil, errors.New("declares: not runnable")
}

// TestOutput: an output is compared with the reference within the
// tolerance of the model its variant declares for the problem (Direct
// for an operation other than Filter2D), and by class where an element
// is not finite.
func TestOutput(t *testing.T) {
	filter := convolve.Problem{Op: convolve.Filter2D, Filter: filled(t, 3, 0.5)}
	sobel := convolve.Problem{Op: convolve.SobelMagnitude}
	tests := []struct {
		name   string
		p      convolve.Problem
		model  convolve.ErrorModel
		factor float32 // out = ref * factor
		nan    bool    // and one element NaN
		wantOK bool
	}{
		{"exact direct", filter, convolve.Direct, 1, false, true},
		{"2^-9 off direct", filter, convolve.Direct, 1 + 0x1p-9, false, false},
		{"2^-9 off tf32", filter, convolve.TF32, 1 + 0x1p-9, false, false},
		{"2^-9 off bf16", filter, convolve.BF16, 1 + 0x1p-9, false, true},
		{"2^-5 off bf16", filter, convolve.BF16, 1 + 0x1p-5, false, false},
		{"NaN for a finite element", filter, convolve.BF16, 1, true, false},
		{"sobel held to direct", sobel, convolve.BF16, 1 + 0x1p-9, false, false},
		{"sobel exact", sobel, convolve.BF16, 1, false, true},
	}
	g := convolve.Geometry{Width: 23, Height: 17, Channels: 1, Type: convolve.Float32}
	in, err := convolve.NewImage(g)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.F32 {
		in.F32[i] = float32(i%7) + 0.5
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			p.Input = g
			ref, _, err := verify.Reference(p, in, convolve.Direct)
			if err != nil {
				t.Fatal(err)
			}
			out := ref.Clone()
			for i := range out.F32 {
				out.F32[i] *= tt.factor
			}
			if tt.nan {
				out.Set(4, 5, 0, math.NaN())
			}
			m, err := verify.Output(declares(tt.model), p, convolve.Config{}, in, out)
			if err != nil {
				t.Fatal(err)
			}
			if m.OK() != tt.wantOK {
				t.Errorf("OK = %v, want %v: %v", m.OK(), tt.wantOK, m)
			}
		})
	}
}
