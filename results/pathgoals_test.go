package results

import (
	"slices"
	"testing"
)

// denseCase is a dense crossover case with each variant's median time in
// ns.
func denseCase(size string, k int, ns map[string]float64) crossoverCase {
	c := crossoverCase{size: size, family: "dense", k: k, times: map[string]Measure{}}
	for v, t := range ns {
		c.times[v] = measure(t, t, t)
	}
	return c
}

// A path goal counts the dense cases in its K range (and size) where
// both paths ran, calls it met only where every one meets it, and names
// the case furthest from it: the smallest speedup, or the longest time.
func TestPathGoalRow(t *testing.T) {
	h := &Host{Title: "Test GPU", GPU: true}
	cases := []crossoverCase{
		denseCase("4096x4096", 7, map[string]float64{"gpu-regtile": 50e3, "gpu-tc-3xtf32": 20e3, "gpu-fft": 100e3}), // below every MinK
		denseCase("4096x4096", 11, map[string]float64{"gpu-regtile": 100e3, "gpu-tc-3xtf32": 90e3}),
		denseCase("4096x4096", 21, map[string]float64{"gpu-regtile": 300e3, "gpu-tc-3xtf32": 500e3, "gpu-tc-bf16": 140e3, "gpu-fft": 240e3}),
		denseCase("4096x4096", 31, map[string]float64{"gpu-regtile": 700e3, "gpu-tc-bf16": 300e3, "gpu-fft": 260e3}),
		denseCase("8192x8192", 21, map[string]float64{"gpu-regtile": 1200e3, "gpu-tc-3xtf32": 1000e3, "gpu-fft": 100e3}), // not the FFT goal's size
		{size: "4096x4096", family: "gauss", k: 21, times: map[string]Measure{"gpu-regtile": measure(1e6), "gpu-tc-3xtf32": measure(1)}},
	}
	tests := []struct {
		goal pathGoal
		want []string // nil: no row
	}{
		{pathGoal{Variant: "gpu-tc-3xtf32", Against: "gpu-regtile", MinSpeedup: 1, MinK: 11},
			[]string{"Test GPU", "gpu-tc-3xtf32 as fast as gpu-regtile or faster, dense K ≥ 11", "2 of 3", "0.600×", "4096x4096 dense21", "not met"}},
		{pathGoal{Variant: "gpu-tc-bf16", Against: "gpu-regtile", MinSpeedup: 2, MinK: 21},
			[]string{"Test GPU", "gpu-tc-bf16 at least 2.0× as fast as gpu-regtile, dense K ≥ 21", "2 of 2", "2.14×", "4096x4096 dense21", "met"}},
		{pathGoal{Variant: "gpu-fft", MaxMS: 0.25, Size: "4096x4096", MinK: 21, MaxK: 63},
			[]string{"Test GPU", "gpu-fft within 0.25 ms, dense K 21 to 63, 4096x4096", "1 of 2", "0.260 ms", "4096x4096 dense31", "not met"}},
		{pathGoal{Variant: "gpu-fft", MaxMS: 0.25, Size: "4096x4096", MinK: 21, MaxK: 21},
			[]string{"Test GPU", "gpu-fft within 0.25 ms, dense K 21, 4096x4096", "1 of 1", "0.240 ms", "4096x4096 dense21", "met"}},
		{pathGoal{Variant: "gpu-tc-tf32", Against: "gpu-regtile", MinSpeedup: 2, MinK: 21}, nil},
	}
	for _, tt := range tests {
		row, ok := pathGoalRow(h, tt.goal, cases)
		if ok != (tt.want != nil) || !slices.Equal(row, tt.want) {
			t.Errorf("%s:\n got %q, %v\nwant %q", tt.goal, row, ok, tt.want)
		}
	}
}
