package convolve

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNewFilterErrors(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		ws   []float32
		want string
	}{
		{"even width", 2, 3, make([]float32, 6), "width 2"},
		{"zero height", 3, 0, nil, "height 0"},
		{"negative width", -1, 1, nil, "width -1"},
		{"too wide", MaxFilterSide + 2, 1, make([]float32, MaxFilterSide+2), "width 1025"},
		{"weight count", 3, 3, make([]float32, 8), "has 8 weights, want 3x3=9"},
	}
	for _, tc := range tests {
		_, err := NewFilter("f", tc.w, tc.h, tc.ws)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	var nilFilter *Filter
	if err := nilFilter.Validate(); err == nil {
		t.Error("nil filter validated")
	}
	ws := []float32{1, 2, 3}
	f, err := NewFilter("row", 3, 1, ws)
	if err != nil {
		t.Fatal(err)
	}
	ws[0] = 9
	if f.Weights[0] != 1 {
		t.Error("NewFilter did not copy the weights")
	}
	if f.Taps() != 3 || f.At(2, 0) != 3 || f.String() != "row 3x1" {
		t.Errorf("Taps %d At %v String %q", f.Taps(), f.At(2, 0), f.String())
	}
}

// TestFilterNonFinite: NaN and infinite weights make a valid filter (the
// variants that cannot compute with them refuse it), which CheckFinite
// names and Separable never factors.
func TestFilterNonFinite(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		ws   []float32
		want string
	}{
		{"NaN weight", 3, 1, []float32{0, float32(math.NaN()), 0}, "weight 1 (row 0, col 1) is NaN"},
		{"-Inf weight", 1, 3, []float32{1, 2, float32(math.Inf(-1))}, "weight 2 (row 2, col 0) is -Inf"},
		{"+Inf weight of a rank-one pattern", 3, 1, []float32{1, float32(math.Inf(1)), 1}, "weight 1 (row 0, col 1) is +Inf"},
	}
	for _, tc := range tests {
		f, err := NewFilter("f", tc.w, tc.h, tc.ws)
		if err != nil {
			t.Errorf("%s: NewFilter: %v", tc.name, err)
			continue
		}
		err = f.CheckFinite()
		var nf *NonFiniteError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckFinite = %v, want a *NonFiniteError mentioning %q", tc.name, err, tc.want)
		}
		if _, _, ok := f.Separable(); ok {
			t.Errorf("%s: Separable factors a filter with a non-finite weight", tc.name)
		}
	}
	if err := SobelX().CheckFinite(); err != nil {
		t.Errorf("CheckFinite(SobelX) = %v", err)
	}
}

// TestFilterClone: a clone shares no weights with the original.
func TestFilterClone(t *testing.T) {
	f := SobelX()
	c := f.Clone()
	f.Weights[0] = 99
	if c.Weights[0] != -1 || c.Name != f.Name || c.Width != 3 || c.Height != 3 {
		t.Errorf("clone %+v changed with the original", c)
	}
	var nilFilter *Filter
	if nilFilter.Clone() != nil {
		t.Error("Clone of nil is not nil")
	}
}

func TestSeparableLibrary(t *testing.T) {
	rank1 := map[string]bool{
		"identity3": true, "box5": true, "gauss5": true, "gauss3-int": true, "gauss5-int": true,
		"sobel-x": true, "sobel-y": true, "prewitt-x": true, "prewitt-y": true,
		"log5": false, "laplacian": false, "edge8": false, "sharpen": false, "emboss": false,
	}
	lib := Library()
	extra := []*Filter{}
	for _, spec := range []string{"gauss:21:3", "box:7", "identity:9", "log:9:2"} {
		f, err := ParseFilter(spec)
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, f)
	}
	rank1["gauss21-s3"], rank1["box7"], rank1["identity9"], rank1["log9-s2"] = true, true, true, false
	for _, f := range append(lib, extra...) {
		want, known := rank1[f.Name]
		if !known {
			t.Errorf("filter %q missing from the expectations", f.Name)
			continue
		}
		row, col, ok := f.Separable()
		if ok != want {
			t.Errorf("%s: Separable ok = %v, want %v", f.Name, ok, want)
			continue
		}
		if !ok {
			if row != nil || col != nil {
				t.Errorf("%s: non-separable filter returned factors", f.Name)
			}
			continue
		}
		if len(row) != f.Width || len(col) != f.Height {
			t.Fatalf("%s: factor lengths %d, %d", f.Name, len(row), len(col))
		}
		max := 0.0
		for _, w := range f.Weights {
			max = math.Max(max, math.Abs(float64(w)))
		}
		for j := range f.Height {
			for i := range f.Width {
				got := float64(col[j]) * float64(row[i])
				if d := math.Abs(got - float64(f.At(i, j))); d > 1e-6*max {
					t.Errorf("%s: col[%d]*row[%d] = %v, weight %v", f.Name, j, i, got, f.At(i, j))
				}
			}
		}
	}
}

func TestSeparableFactorsByHand(t *testing.T) {
	// Sobel X = [1 2 1]^T x [-1 0 1]; the pivot is the largest |weight|
	// (-2 at column 0, row 1), so row = [-2 0 2] and col = [0.5 1 0.5].
	row, col, ok := SobelX().Separable()
	if !ok || !slices.Equal(row, []float32{-2, 0, 2}) || !slices.Equal(col, []float32{0.5, 1, 0.5}) {
		t.Errorf("SobelX factors %v %v %v", row, col, ok)
	}
	// A 1xK or Kx1 filter is trivially separable.
	f, _ := NewFilter("row", 5, 1, []float32{1, -2, 3, 0, 4})
	if row, col, ok := f.Separable(); !ok || !slices.Equal(col, []float32{1}) || !slices.Equal(row, f.Weights) {
		t.Errorf("1x5 factors %v %v %v", row, col, ok)
	}
	z, _ := NewFilter("zero", 3, 3, make([]float32, 9))
	if _, _, ok := z.Separable(); ok {
		t.Error("zero filter reported separable")
	}
	// Rank 2 by a hair more than the tolerance.
	g := GaussianInt3()
	g.Weights[0] += 1e-3
	if _, _, ok := g.Separable(); ok {
		t.Error("perturbed Gaussian reported separable")
	}
	var nilFilter *Filter
	if _, _, ok := nilFilter.Separable(); ok {
		t.Error("nil filter reported separable")
	}
}

func TestFlippedAndOriented(t *testing.T) {
	tests := []struct {
		f    *Filter
		want []float32
	}{
		{SobelX(), []float32{1, 0, -1, 2, 0, -2, 1, 0, -1}},
		{Emboss(), []float32{2, 1, 0, 1, 1, -1, 0, -1, -2}},
		{SobelY(), []float32{1, 2, 1, 0, 0, 0, -1, -2, -1}},
	}
	rect, _ := NewFilter("rect", 3, 1, []float32{1, 2, 3})
	tests = append(tests, struct {
		f    *Filter
		want []float32
	}{rect, []float32{3, 2, 1}})
	for _, tc := range tests {
		fl := tc.f.Flipped()
		if !slices.Equal(fl.Weights, tc.want) || fl.Width != tc.f.Width || fl.Height != tc.f.Height {
			t.Errorf("%s flipped = %v, want %v", tc.f.Name, fl.Weights, tc.want)
		}
		if fl.Name != tc.f.Name+"-flipped" {
			t.Errorf("flipped name %q", fl.Name)
		}
		if back := fl.Flipped(); !slices.Equal(back.Weights, tc.f.Weights) {
			t.Errorf("%s flipped twice = %v", tc.f.Name, back.Weights)
		}
		if tc.f.Oriented(Correlate) != tc.f {
			t.Errorf("%s: Oriented(Correlate) is not the filter itself", tc.f.Name)
		}
		if o := tc.f.Oriented(Convolve); !slices.Equal(o.Weights, tc.want) {
			t.Errorf("%s: Oriented(Convolve) = %v", tc.f.Name, o.Weights)
		}
	}
	// Flipping must not alias the original weights.
	s := SobelX()
	s.Flipped().Weights[0] = 100
	if s.Weights[8] != 1 {
		t.Error("Flipped shares weights with the original")
	}
	// An asymmetric rectangular 3x5 filter flips in both axes.
	ws := make([]float32, 15)
	for i := range ws {
		ws[i] = float32(i)
	}
	r, _ := NewFilter("r", 3, 5, ws)
	fl := r.Flipped()
	for j := range 5 {
		for i := range 3 {
			if fl.At(i, j) != r.At(2-i, 4-j) {
				t.Fatalf("3x5 flip at (%d,%d) = %v, want %v", i, j, fl.At(i, j), r.At(2-i, 4-j))
			}
		}
	}
}
