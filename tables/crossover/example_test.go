package crossover_test

import (
	"fmt"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/crossover"
)

func ExampleLookup() {
	var set crossover.Set
	set.Add(&crossover.Table{GPU: "NVIDIA H200", Entries: []crossover.Entry{
		{Size: convolve.SizeLarge, K: 21, Kind: convolve.DenseFilter, Type: "f32", Case: "4096x4096 dense21",
			Ranking: []crossover.Timing{{Variant: "cudnn-tf32", MedianNS: 120000}, {Variant: "gpu-tc-3xtf32", MedianNS: 140000}, {Variant: "gpu-regtile", MedianNS: 300000}}},
		{Size: convolve.SizeLarge, K: 31, Kind: convolve.DenseFilter, Type: "f32", Case: "4096x4096 dense31",
			Ranking: []crossover.Timing{{Variant: "gpu-tc-3xtf32", MedianNS: 280000}}},
	}}, "tables/crossover/nvidia-h200.json")

	w := make([]float32, 19*19)
	for i := range w {
		w[i] = float32(i%23) - 11
	}
	f, _ := convolve.NewFilter("dense19", 19, 19, w)
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f,
		Input: convolve.Geometry{Width: 4096, Height: 4096, Channels: 1, Type: convolve.Float32}}
	ours := func(v string) bool { return strings.HasPrefix(v, "gpu-") }
	m, ok := crossover.Lookup(&set, "NVIDIA H200", p, ours)
	fmt.Println(ok, m.Chosen.Variant, m.Entry.Key(), m.Exact)

	_, ok = crossover.Lookup(&set, "NVIDIA H100 80GB HBM3", p, ours)
	fmt.Println(ok)
	// Output:
	// true gpu-tc-3xtf32 large k=21 dense f32 false
	// false
}
