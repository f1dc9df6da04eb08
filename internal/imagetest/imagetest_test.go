package imagetest

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

func TestRandom(t *testing.T) {
	for _, tt := range []struct {
		v                Values
		zeros, nonFinite bool // may hold zeros; must hold NaN or Inf
		typ              convolve.ElemType
	}{
		{Mixed, true, false, convolve.Float32},
		{NonZero, false, false, convolve.Float32},
		{NonZero, false, false, convolve.Uint8},
		{NonZero, false, false, convolve.Int16},
		{NonFinite, true, true, convolve.Float32},
	} {
		g := convolve.Geometry{Width: 40, Height: 30, Channels: 1, Type: tt.typ, Stride: 43}
		im := Random(rand.New(rand.NewPCG(1, 2)), g, tt.v)
		zeros, nonFinite := 0, 0
		for i := range im.Len() {
			var v float64
			switch im.Type {
			case convolve.Float32:
				v = float64(im.F32[i])
			case convolve.Uint8:
				v = float64(im.U8[i])
			case convolve.Int16:
				v = float64(im.I16[i])
			}
			if v == 0 {
				zeros++
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				nonFinite++
			}
		}
		if !tt.zeros && zeros > 0 {
			t.Errorf("%v %v: %d zeros, want none", tt.v, tt.typ, zeros)
		}
		if tt.nonFinite != (nonFinite > 0) {
			t.Errorf("%v %v: %d non-finite elements", tt.v, tt.typ, nonFinite)
		}
	}
}

// The filters' weights are Weight's, and SeparableFilter's are rank one
// where RandomFilter's, of two sides over 1, are not.
func TestFilters(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tt := range []struct {
		kw, kh int
		sep    bool // RandomFilter's is separable too: a side of 1
	}{
		{1, 1, true}, {3, 3, false}, {5, 1, true}, {1, 7, true}, {9, 5, false}, {21, 21, false},
	} {
		for _, f := range []*convolve.Filter{RandomFilter(r, tt.kw, tt.kh), SeparableFilter(r, tt.kw, tt.kh)} {
			if err := f.Validate(); err != nil || f.Width != tt.kw || f.Height != tt.kh {
				t.Errorf("%s: %dx%d, %v; want %dx%d", f.Name, f.Width, f.Height, err, tt.kw, tt.kh)
			}
			for _, w := range f.Weights {
				if a := math.Abs(float64(w)); a < 1.0/64/64 || a > 1 {
					t.Errorf("%s: weight %v, want a magnitude in [1/64^2, 1]", f.Name, w)
				}
			}
		}
		if _, _, ok := RandomFilter(r, tt.kw, tt.kh).Separable(); ok != tt.sep {
			t.Errorf("RandomFilter %dx%d separable: %v, want %v", tt.kw, tt.kh, ok, tt.sep)
		}
		if _, _, ok := SeparableFilter(r, tt.kw, tt.kh).Separable(); !ok {
			t.Errorf("SeparableFilter %dx%d is not separable", tt.kw, tt.kh)
		}
	}
}

func TestPoisonAndBitDiff(t *testing.T) {
	for _, typ := range convolve.ElemTypes {
		g := convolve.Geometry{Width: 5, Height: 4, Channels: 2, Type: typ}
		want := Random(rand.New(rand.NewPCG(3, 4)), g, NonZero)
		got := want.Clone()
		if err := BitDiff(got, want); err != nil {
			t.Fatalf("%v: a copy differs: %v", typ, err)
		}
		Poison(got)
		err := BitDiff(got, want)
		if err == nil || !strings.Contains(err.Error(), "(x=0, y=0, c=0)") {
			t.Errorf("%v: BitDiff of a poisoned image = %v, want the first pixel named", typ, err)
		}
	}
	// Equal values of other bits differ: -0 and +0, NaNs of other payloads.
	g := convolve.Geometry{Width: 1, Height: 1, Channels: 1, Type: convolve.Float32}
	a, _ := convolve.NewImage(g)
	b, _ := convolve.NewImage(g)
	b.F32[0] = float32(math.Copysign(0, -1))
	if BitDiff(a, b) == nil {
		t.Error("BitDiff(+0, -0) = nil")
	}
	a.F32[0], b.F32[0] = PoisonF32, float32(math.NaN())
	if BitDiff(a, b) == nil {
		t.Error("BitDiff of two NaNs of other payloads = nil")
	}
	u8 := g
	u8.Type = convolve.Uint8
	c, _ := convolve.NewImage(u8)
	if err := BitDiff(a, c); err == nil || !strings.Contains(err.Error(), "u8") {
		t.Errorf("BitDiff of float32 against uint8 = %v, want the types named", err)
	}
}
