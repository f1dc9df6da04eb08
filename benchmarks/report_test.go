package benchmarks

import (
	"maps"
	"slices"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// The metrics of a result line depend on how its case is timed: each
// timing mode reports its own time unit, a plan's line only its plan
// counts, CPU lines their CPU ceilings, GPU lines their device peaks and
// the clock guard's readings, and total-time lines the host-copy bound.
func TestReportMetricsByMode(t *testing.T) {
	gpu := []string{"%copy-bw", "%peak-bw", "%peak-fp32", "GB/s", "GFLOP/s", "MPix/s", "median-ci95-%", "ns/op", "samples",
		"power-w-end", "power-w-start", "sm-mhz-end", "sm-mhz-start", "temp-c-end", "temp-c-start", "throttled-kept", "throttled-samples"}
	tests := []struct {
		name   string
		c      Case
		energy LineEnergy
		want   []string
	}{
		{"cpu", Case{Timing: CPUTiming}, LineEnergy{Omitted: energyOff},
			[]string{"%copy-bw", "GB/s", "GFLOP/s", "MPix/s", "median-ci95-%", "ns/op", "samples"}},
		{"kernel", Case{GPU: true, Timing: KernelTiming, Cache: Hot}, LineEnergy{MJPerRun: 2},
			append([]string{"GFLOP/J", "gpu-ns/op", "mJ/op"}, gpu...)},
		{"kernel-cold", Case{GPU: true, Timing: KernelTiming, Cache: Cold}, LineEnergy{Omitted: energyColdShort},
			append([]string{"gpu-ns/op"}, gpu...)},
		{"kernel-graph", Case{GPU: true, Timing: graphTiming, Cache: Hot}, LineEnergy{Omitted: energyOff},
			append([]string{"gpu-ns/op"}, gpu...)},
		{"total", Case{GPU: true, Timing: totalTiming, Mem: pageable}, LineEnergy{Omitted: energyOff},
			append([]string{"%copy-bound", "copy-bound-ns/op", "total-ns/op"}, gpu...)},
		{"total-pinned", Case{GPU: true, Timing: totalTiming, Mem: pinned}, LineEnergy{Omitted: energyOff},
			append([]string{"%copy-bound", "copy-bound-ns/op", "total-ns/op"}, gpu...)},
		{"plan", Case{GPU: true, Timing: planTiming, Cache: Hot}, LineEnergy{Omitted: energyPlanTiming},
			[]string{"cache-hits/op", "compiles/op", "median-ci95-%", "ns/op", "samples"}},
		{"plan-cold", Case{GPU: true, Timing: planTiming, Cache: Cold}, LineEnergy{Omitted: energyPlanTiming},
			[]string{"cache-hits/op", "compiles/op", "median-ci95-%", "ns/op", "samples"}},
	}
	state := GPUState{SMClockMHz: 1980, PowerW: 300, TempC: 50, HasPower: true, HasTemp: true}
	set := SampleSet{Per: []float64{1000, 1000, 1000}, Host: []float64{1500, 1500, 1500}, Median: 1000, Spread: 0.5, Start: state, End: state}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			c.Variant, c.Op, c.Width, c.Height, c.Filter, c.Channels = "v", convolve.Filter2D, 256, 256, "gauss5", 1
			p, err := c.Problem()
			if err != nil {
				t.Fatal(err)
			}
			r := &Runner{
				Peaks: Peaks{CopyGBps: 1000, FP32GFLOPs: 50000, CPUCopyGBps: 20, H2DGBps: 25, D2HGBps: 25},
				Guard: &ClockGuard{Clocks: &fakeClocks{mhz: []int{1980}}, MaxMHz: 1980},
				cur:   &caseState{mode: modeOf(c), plans: 4, compiles: 2, hits: 1},
			}
			got := testing.Benchmark(func(b *testing.B) { r.report(b, c, p, set, tt.energy) }).Extra
			if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, slices.Sorted(slices.Values(tt.want))) {
				t.Errorf("metrics %v, want %v", keys, tt.want)
			}
			if got["ns/op"] != 1500 {
				t.Errorf("ns/op %v, want the host's median 1500", got["ns/op"])
			}
			if v, ok := got["compiles/op"]; ok && v != 0.5 {
				t.Errorf("compiles/op %v, want 0.5", v)
			}
			for _, u := range []string{"gpu-ns/op", "total-ns/op"} {
				if v, ok := got[u]; ok && v != 1000 {
					t.Errorf("%s %v, want the case's median 1000", u, v)
				}
			}
		})
	}
}

// A kernel line carries gpu-other-procs, the most other processes on the
// GPU at its start or end, only where there were any.
func TestReportOtherProcesses(t *testing.T) {
	c := Case{GPU: true, Timing: KernelTiming, Cache: Hot, Variant: "v", Op: convolve.Filter2D, Width: 64, Height: 64, Filter: "gauss5", Channels: 1}
	p, err := c.Problem()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		start, end int
		want       float64 // 0: no metric
	}{{0, 0, 0}, {1, 0, 1}, {0, 2, 2}, {3, 1, 3}} {
		set := SampleSet{Per: []float64{1000}, Host: []float64{1000}, Median: 1000, Spread: 0.5,
			Start: GPUState{SMClockMHz: 1980, OtherProcesses: tt.start, HasProcesses: true},
			End:   GPUState{SMClockMHz: 1980, OtherProcesses: tt.end, HasProcesses: true}}
		r := &Runner{Guard: &ClockGuard{Clocks: &fakeClocks{mhz: []int{1980}}, MaxMHz: 1980}, cur: &caseState{mode: modeOf(c)}}
		got := testing.Benchmark(func(b *testing.B) { r.report(b, c, p, set, LineEnergy{Omitted: energyOff}) }).Extra
		v, ok := got[runfile.UnitOtherProcesses]
		if ok != (tt.want > 0) || v != tt.want {
			t.Errorf("%d and %d other processes: %s = %v (reported %v), want %v", tt.start, tt.end, runfile.UnitOtherProcesses, v, ok, tt.want)
		}
	}
}
