package properties

import (
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/auto"
	"github.com/convbench/convbench/tables/crossover"
)

// autoCPU is an auto variant over three CPU paths of two error models, so
// that the suite proves auto's choosing, delegation, declared
// capabilities and per-problem error model without a GPU: a crossover
// table of its stand-in device sends small separable filters to cpu-fast,
// and its heuristic sends filters up to 5 taps to cpu-naive, up to 8 to
// cpu-fast (Direct) and larger ones to cpu-fft (FFT64), each plan held to
// its path's model. (The registered auto, over the GPU paths, runs in
// TestProperties on a GPU host.)
var autoCPU = auto.New(auto.Options{
	Name:    "auto-cpu",
	Summary: "auto over cpu-naive, cpu-fast and cpu-fft (a test of auto without a GPU)",
	Paths:   []string{"cpu-naive", "cpu-fast", "cpu-fft"},
	Models:  []convolve.ErrorModel{convolve.Direct, convolve.FFT64},
	Heuristic: func(p convolve.Problem) []string {
		switch kw, kh := p.KernelSize(); {
		case max(kw, kh) <= 5:
			return []string{"cpu-naive"}
		case max(kw, kh) <= 8:
			return []string{"cpu-fast"}
		}
		return []string{"cpu-fft"}
	},
	Tables: func() (*crossover.Set, error) {
		var s crossover.Set
		s.Add(&crossover.Table{GPU: "CPU stand-in", Entries: []crossover.Entry{{
			Size: convolve.SizeSmall, K: 3, Kind: convolve.SeparableFilter, Type: "f32", Case: "64x64 gauss3",
			Ranking: []crossover.Timing{{Variant: "cpu-fast", MedianNS: 1000}, {Variant: "cpu-naive", MedianNS: 2000}},
		}}}, "properties/auto_test.go")
		return &s, nil
	},
	Device: func() (string, error) { return "CPU stand-in", nil },
})

func init() { convolve.Register(autoCPU) }
