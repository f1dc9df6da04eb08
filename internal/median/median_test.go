package median

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{2, 1}, 1.5},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7, 7, 1, 7, 2}, 7},
		{[]float64{1e9, 3, 1, 2, 5, 4, 6}, 4},
		{[]float64{-2, 0.5, -1}, -1},
	} {
		in := slices.Clone(tt.xs)
		if got := Of(in); got != tt.want {
			t.Errorf("Of(%v) = %v, want %v", tt.xs, got, tt.want)
		}
		if !slices.Equal(in, tt.xs) {
			t.Errorf("Of(%v) reordered its argument to %v", tt.xs, in)
		}
	}
	if got := Of(nil); !math.IsNaN(got) {
		t.Errorf("Of(nil) = %v, want NaN", got)
	}
}

// The median of n values is the middle one, or the mean of the middle
// two, for every n the tuner and the fleet use and beyond.
func TestOfMiddle(t *testing.T) {
	for n := 1; n <= 64; n++ {
		xs := make([]float64, n)
		for i, j := range rand.New(rand.NewPCG(uint64(n), 1)).Perm(n) {
			xs[i] = float64(j) + 0.25
		}
		want := float64(n-1)/2 + 0.25
		if got := Of(xs); got != want {
			t.Errorf("n=%d: Of = %v, want %v", n, got, want)
		}
	}
}
