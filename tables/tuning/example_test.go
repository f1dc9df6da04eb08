package tuning_test

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/tuning"
)

func ExampleLookup() {
	var set tuning.Set
	set.Add(&tuning.Table{GPU: "NVIDIA H200", Entries: []tuning.Entry{
		{Variant: "gpu-regtile", Type: "f32", K: 3, Size: convolve.SizeLarge,
			Chosen: tuning.Candidate{Block: "64x4", Tunables: map[string]int{"rx": 4, "ry": 8}, Status: tuning.OK}},
		{Variant: "gpu-regtile", Type: "f32", K: 21, Size: convolve.SizeLarge,
			Chosen: tuning.Candidate{Block: "32x8", Tunables: map[string]int{"rx": 4, "ry": 2}, Status: tuning.OK}},
	}}, "tables/tuning/nvidia-h200.json")

	f, _ := convolve.Gaussian(5, 0)
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f,
		Input: convolve.Geometry{Width: 4096, Height: 4096, Channels: 1, Type: convolve.Float32}}
	m, ok := tuning.Lookup(&set, "NVIDIA H200", "gpu-regtile", p)
	s, _ := m.Entry.Chosen.Setting()
	fmt.Println(ok, m.Entry.Key(), m.Exact, s)

	_, ok = tuning.Lookup(&set, "NVIDIA H100 80GB HBM3", "gpu-regtile", p)
	fmt.Println(ok)
	// Output:
	// true gpu-regtile f32 k=3 large false block=64x4 rx=4,ry=8
	// false
}
