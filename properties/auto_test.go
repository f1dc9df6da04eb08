package properties

import (
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind/variants/auto"
	"github.com/convbench/convbench/results/crossover"
)

// autoCPU is an auto variant over two CPU paths, so that the suite proves
// auto's choosing, delegation and declared capabilities without a GPU:
// a crossover table of its stand-in device sends small separable filters
// to cpu-fast, and its heuristic sends filters up to 5 taps to cpu-naive
// and larger ones to cpu-fast. (The registered auto, over the GPU paths,
// runs in TestProperties on a GPU host.)
var autoCPU = auto.New(auto.Options{
	Name:    "auto-cpu",
	Summary: "auto over cpu-naive and cpu-fast (a test of auto without a GPU)",
	Paths:   []string{"cpu-naive", "cpu-fast"},
	Heuristic: func(p convolve.Problem) []string {
		if kw, kh := p.KernelSize(); max(kw, kh) <= 5 {
			return []string{"cpu-naive"}
		}
		return []string{"cpu-fast"}
	},
	Tables: func() (*crossover.Set, error) {
		var s crossover.Set
		s.Add(&crossover.Table{GPU: "CPU stand-in", Entries: []crossover.Entry{{
			Size: convolve.SizeSmall, K: 3, Kind: crossover.Separable, Type: "f32", Case: "64x64 gauss3",
			Ranking: []crossover.Timing{{Variant: "cpu-fast", MedianNS: 1000}, {Variant: "cpu-naive", MedianNS: 2000}},
		}}}, "properties/auto_test.go")
		return &s, nil
	},
	Device: func() (string, error) { return "CPU stand-in", nil },
})

func init() { convolve.Register(autoCPU) }
