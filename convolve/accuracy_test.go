package convolve_test

import (
	"math"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// TestModelToleranceByHand checks the direct models on cases whose bound
// is worked out beside each: n = KW*KH+KW+KH roundings, gamma_n =
// n*u/(1-n*u) with u = 2^-24, d = 2*uop + uop^2 for the operand format.
func TestModelToleranceByHand(t *testing.T) {
	const u = 0x1p-24
	g3 := 3 * u / (1 - 3*u) // a 1x1 filter: n = 1+1+1
	tests := []struct {
		name          string
		m             convolve.ErrorModel
		kw, kh        int
		absSum, ref   float64
		want          float64
		relativeError float64
	}{
		// Direct is Tolerance: gamma_3*1 + u*1 + 2^-126.
		{"direct 1x1", convolve.Direct, 1, 1, 1, 1, g3 + u + 0x1p-126, 0},
		// TF32 with absSum 0: only the floor is left.
		{"tf32 zero", convolve.TF32, 3, 3, 0, 0, 0x1p-126, 0},
		// BF16: d = 2^-7 + 2^-16 = 0.0078277587890625;
		// gamma_3*(1+d) + u + 2^-126 + d = 0.007827998607386172.
		{"bf16 1x1", convolve.BF16, 1, 1, 1, 1, 0.007827998607386172, 1e-15},
		// TF32: d = 2^-10 + 2^-22; for absSum 2^10 the operand term alone
		// is 1 + 2^-12, and the summation adds gamma_3*(1+d)*2^10 + u*ref.
		{"tf32 1x1", convolve.TF32, 1, 1, 1024, 1024, 1 + 0x1p-12 + g3*(1+0x1p-10+0x1p-22)*1024 + u*1024 + 0x1p-126, 1e-15},
	}
	for _, tt := range tests {
		got, err := convolve.ModelTolerance(tt.m, tt.kw, tt.kh, tt.absSum, tt.ref)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if math.Abs(got-tt.want) > tt.relativeError*tt.want {
			t.Errorf("%s: ModelTolerance = %.17g, want %.17g", tt.name, got, tt.want)
		}
	}
	if got, _ := convolve.ModelTolerance(convolve.Direct, 5, 7, 3.5, -2); got != convolve.Tolerance(5, 7, 3.5, -2) {
		t.Errorf("Direct's tolerance %v differs from Tolerance's %v", got, convolve.Tolerance(5, 7, 3.5, -2))
	}
	for _, m := range []convolve.ErrorModel{convolve.FFT64, convolve.FFT32, convolve.ErrorModel(99)} {
		if _, err := convolve.ModelTolerance(m, 3, 3, 1, 1); err == nil {
			t.Errorf("ModelTolerance(%v): no error", m)
		}
	}
}

// TestModelsOrdered: on the same output the bounds grow with the operand
// roundoff: Direct < TF32 < BF16.
func TestModelsOrdered(t *testing.T) {
	var last float64
	for _, m := range []convolve.ErrorModel{convolve.Direct, convolve.TF32, convolve.BF16} {
		got, err := convolve.ModelTolerance(m, 7, 7, 100, 30)
		if err != nil {
			t.Fatal(err)
		}
		if got <= last {
			t.Errorf("%v: tolerance %v not above the previous model's %v", m, got, last)
		}
		last = got
	}
}

// TestFFTToleranceByHand checks FFTTolerance on worked cases.
func TestFFTToleranceByHand(t *testing.T) {
	const u = 0x1p-24
	g2 := 2 * u / (1 - 2*u)
	tests := []struct {
		name  string
		terms convolve.FFTTerms
		ref   float64
		u     float64
		want  float64
	}{
		// One point (LogN 0): the transforms are exact (gF = 0), only the
		// pointwise product rounds: E = sqrt2*gamma_2*Bx*Bw = sqrt2*gamma_2,
		// plus u32*(2|ref|/(1-u32) + E) and 2^-126.
		{"one point fft32", convolve.FFTTerms{InL2: 1, FilterL2: 1}, 1, u,
			math.Sqrt2*g2 + u*(2/(1-u)+math.Sqrt2*g2) + 0x1p-126},
		// A 1x4 bordered input [1 1 2 2] (Replicate, 2 pixels, 3 taps) with
		// a 1x3 filter of ones: Bx = sqrt10, Bw = sqrt3, LogN 2, ref 4.
		// The values were worked out with the formula of FFTTolerance's
		// comment in double precision: mu = 32u, eta = mu +
		// gamma_4(sqrt2+mu), gF = 2eta/(1-2eta),
		// d = 2gF + gF^2 + sqrt2 gamma_2 (1+gF)^2, E = Bx Bw (d + gF(1+d)).
		{"four points fft32", convolve.FFTTerms{InL2: math.Sqrt(10), FilterL2: math.Sqrt(3), LogN: 2}, 4, u,
			7.516349171761232e-05},
		{"four points fft64", convolve.FFTTerms{InL2: math.Sqrt(10), FilterL2: math.Sqrt(3), LogN: 2}, 4, 0x1p-53,
			4.768373257382812e-07},
	}
	for _, tt := range tests {
		got := convolve.FFTTolerance(tt.terms, tt.ref, tt.u)
		if math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("%s: FFTTolerance = %.17g, want %.17g", tt.name, got, tt.want)
		}
	}
}

// TestFFTToleranceGrows: the bound grows with log2 n and with each norm,
// and FFT32's is above FFT64's.
func TestFFTToleranceGrows(t *testing.T) {
	base := convolve.FFTTerms{InL2: 20, FilterL2: 1, LogN: 10}
	b := convolve.FFTTolerance(base, 1, 0x1p-24)
	more := []convolve.FFTTerms{base, base, base}
	more[0].LogN = 20
	more[1].InL2 = 40
	more[2].FilterL2 = 2
	for _, m := range more {
		if got := convolve.FFTTolerance(m, 1, 0x1p-24); got <= b {
			t.Errorf("%+v: tolerance %v not above the base's %v", m, got, b)
		}
	}
	if f64 := convolve.FFTTolerance(base, 1, convolve.FFT64.FFTRoundoff()); f64 >= b {
		t.Errorf("FFT64 tolerance %v not below FFT32's %v", f64, b)
	}
}

func TestFFTLogPoints(t *testing.T) {
	tests := []struct{ w, h, kw, kh, want int }{
		{1, 1, 1, 1, 0},
		{2, 1, 1, 1, 1},
		{5, 3, 4, 2, 5},           // 8 x 4
		{4096, 4096, 21, 21, 26},  // 4116 -> 8192 on each axis
		{1000, 24, 25, 1, 10 + 5}, // 1024 x 24 -> 1024 x 32
	}
	for _, tt := range tests {
		if got := convolve.FFTLogPoints(tt.w, tt.h, tt.kw, tt.kh); got != tt.want {
			t.Errorf("FFTLogPoints(%d, %d, %d, %d) = %d, want %d", tt.w, tt.h, tt.kw, tt.kh, got, tt.want)
		}
	}
}

func TestErrorModelNames(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range convolve.ErrorModels {
		if !m.Valid() || seen[m.String()] {
			t.Errorf("model %d: name %q invalid or repeated", int(m), m)
		}
		seen[m.String()] = true
	}
	if convolve.ErrorModel(99).Valid() {
		t.Error("ErrorModel(99) is valid")
	}
	var c convolve.Capabilities
	if c.Accuracy != convolve.Direct {
		t.Errorf("zero Capabilities declare %v, want direct", c.Accuracy)
	}
}

// modelVariant declares model; perProblemVariant holds a filter of more
// than 5 taps a side to FFT32 (a variant that picks its path per problem).
type modelVariant struct {
	model convolve.ErrorModel
}

func (v modelVariant) Describe() convolve.Description {
	return convolve.Description{Name: "model-test", Caps: convolve.Capabilities{Accuracy: v.model}}
}
func (v modelVariant) Plan(convolve.Problem, convolve.Config) (convolve.Plan, error) { return nil, nil }

type perProblemVariant struct{ modelVariant }

func (v perProblemVariant) ModelFor(p convolve.Problem, cfg convolve.Config) convolve.ErrorModel {
	if kw, kh := p.KernelSize(); max(kw, kh) > 5 {
		return convolve.FFT32
	}
	return v.model
}

func TestModelOf(t *testing.T) {
	box := func(k int) convolve.Problem {
		f, err := convolve.Box(k)
		if err != nil {
			t.Fatal(err)
		}
		return convolve.Problem{Op: convolve.Filter2D, Filter: f}
	}
	tests := []struct {
		name string
		v    convolve.Variant
		p    convolve.Problem
		want convolve.ErrorModel
	}{
		{"declared direct", modelVariant{model: convolve.Direct}, box(7), convolve.Direct},
		{"declared convolve.TF32", modelVariant{model: convolve.TF32}, box(7), convolve.TF32},
		{"per problem, small filter", perProblemVariant{modelVariant{model: convolve.Direct}}, box(3), convolve.Direct},
		{"per problem, large filter", perProblemVariant{modelVariant{model: convolve.Direct}}, box(9), convolve.FFT32},
		{"not a filter", perProblemVariant{modelVariant{model: convolve.TF32}}, convolve.Problem{Op: convolve.SobelMagnitude}, convolve.Direct},
	}
	for _, tt := range tests {
		if got := convolve.ModelOf(tt.v, tt.p, convolve.Config{}); got != tt.want {
			t.Errorf("%s: convolve.ModelOf = %v, want %v", tt.name, got, tt.want)
		}
	}
}
