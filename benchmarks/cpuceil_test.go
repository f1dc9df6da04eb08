package benchmarks

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

func TestCPUCeilingsConfigLines(t *testing.T) {
	c := measureCPU(2, 1<<16, 1<<10, 2)
	if c.Threads != 2 {
		t.Errorf("Threads = %d, want 2", c.Threads)
	}
	// The FMA ceiling is measured, and printed, where the CPU runs the
	// vector loop.
	measured, notMeasured := []string{"cpu-copy-gbps", "cpu-scalar-gflops", "cpu-fma-gflops"}, []string(nil)
	if !hasFMALoop {
		measured, notMeasured = measured[:2], []string{"cpu-fma-gflops"}
	}
	tests := []struct {
		name string
		host Host
		want []string // keys that must be present with a positive number
		none []string // keys that must be absent
	}{
		{"measured", Host{CPU: &c}, measured, notMeasured},
		{"not measured", Host{}, nil, []string{"cpu-copy-gbps", "cpu-scalar-gflops", "cpu-fma-gflops"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := map[string]string{}
			for _, l := range configLines(tt.host, "cpu-peers", 2, 0) {
				k, v, ok := runfile.ParseMeasured(l)
				if !ok {
					k, v, ok = strings.Cut(l, ": ")
				}
				if !ok {
					t.Fatalf("line %q is not key: value", l)
				}
				cfg[k] = v
			}
			for _, k := range tt.want {
				v, ok := cfg[k]
				if !ok {
					t.Errorf("no %s line in %v", k, cfg)
					continue
				}
				if x, err := strconv.ParseFloat(v, 64); err != nil || !(x > 0) {
					t.Errorf("%s: %q, want a positive number", k, v)
				}
			}
			for _, k := range tt.none {
				if v, ok := cfg[k]; ok {
					t.Errorf("%s: %q present without a measurement", k, v)
				}
			}
		})
	}
}

func TestMeasureCPUOddSizes(t *testing.T) {
	// Fewer float32s than goroutines and zero counts still measure.
	c := measureCPU(0, 1, 0, 0)
	if c.Threads != 1 || !(c.CopyGBps > 0) || !(c.ScalarGFLOPs > 0) || hasFMALoop != (c.FMAGFLOPs > 0) {
		t.Errorf("measureCPU(0, 1, 0, 0) = %+v, want one thread and positive rates (an FMA rate only with the vector loop: %v)", c, hasFMALoop)
	}
}

// TestFMALoop checks fmaLoop's arithmetic on every lane: the step count
// (a+1 n times), the multiply (2a) and one rounding per step: with
// a = m = 1+2^-12 and c = -(1+2^-11) the fused result is the exact 2^-24,
// which a rounded product followed by an add loses.
func TestFMALoop(t *testing.T) {
	const eps = 1.0 / (1 << 12)
	tests := []struct {
		name  string
		start func(i int) float32
		m, c  float32
		n     int
		want  func(i int) float32
	}{
		{"count", func(i int) float32 { return float32(i) }, 1, 1, 1000, func(i int) float32 { return float32(i + 1000) }},
		{"multiply", func(i int) float32 { return float32(i) - 40 }, 2, 0, 5, func(i int) float32 { return 32 * (float32(i) - 40) }},
		{"fused", func(int) float32 { return 1 + eps }, 1 + eps, -(1 + 2*eps), 1, func(int) float32 { return 1.0 / (1 << 24) }},
		{"none", func(i int) float32 { return float32(i) }, 3, 7, 0, func(i int) float32 { return float32(i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var acc [fmaLanes]float32
			for i := range acc {
				acc[i] = tt.start(i)
			}
			fmaLoop(&acc, tt.m, tt.c, tt.n)
			for i, got := range acc {
				if want := tt.want(i); got != want {
					t.Fatalf("lane %d: %v, want %v", i, got, want)
				}
			}
		})
	}
}

// The runner reports a CPU case against the CPU's ceilings: %copy-bw for
// every CPU variant, exec-GFLOP/s and %peak-fma for a plan that counts
// its operations (cpu-fast), at the rate of the operations it executed:
// for the separable gauss5, fewer than the nominal 2*KW*KH.
func TestRunnerCPUCeilingMetrics(t *testing.T) {
	ceilings := Peaks{CPUCopyGBps: 10, CPUFMAGFLOPs: 100}
	tests := []struct {
		name    string
		variant string
		peaks   Peaks
		want    []string // metrics reported
		none    []string // metrics left out
	}{
		{"cpu-fast", "cpu-fast", ceilings, []string{"%copy-bw", "exec-GFLOP/s", "%peak-fma"}, nil},
		{"cpu-fast without FMA ceiling", "cpu-fast", Peaks{CPUCopyGBps: 10}, []string{"%copy-bw", "exec-GFLOP/s"}, []string{"%peak-fma"}},
		{"cpu-naive counts nothing", "cpu-naive", ceilings, []string{"%copy-bw"}, []string{"exec-GFLOP/s", "%peak-fma"}},
		{"no ceilings", "cpu-fast", Peaks{}, []string{"exec-GFLOP/s"}, []string{"%copy-bw", "%peak-fma"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Case{Variant: tt.variant, Width: 64, Height: 48, Filter: "gauss5", Channels: 1, Cache: Hot, Timing: CPUTiming}
			r := &Runner{CPUThreads: 2, Seed: 1, Peaks: tt.peaks, Noise: quickNoise}
			res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			for _, u := range tt.want {
				if !(res.Extra[u] > 0) {
					t.Errorf("%s = %v, want > 0", u, res.Extra[u])
				}
			}
			for _, u := range tt.none {
				if v, ok := res.Extra[u]; ok {
					t.Errorf("%s = %v reported, want it left out", u, v)
				}
			}
			near := func(what string, got, want float64) {
				if math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			if _, ok := res.Extra["%copy-bw"]; ok {
				near("%copy-bw", res.Extra["%copy-bw"], 100*res.Extra["GB/s"]/tt.peaks.CPUCopyGBps)
			}
			if _, ok := res.Extra["%peak-fma"]; ok {
				near("%peak-fma", res.Extra["%peak-fma"], 100*res.Extra["exec-GFLOP/s"]/tt.peaks.CPUFMAGFLOPs)
			}
			if ex, ok := res.Extra["exec-GFLOP/s"]; ok {
				// The executed share of the nominal count is what a plan
				// of the same problem counts on the same goroutines.
				p, err := c.Problem()
				if err != nil {
					t.Fatal(err)
				}
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
				v, _ := convolve.Lookup(tt.variant)
				pl, err := v.Plan(p, convolve.Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer pl.Close()
				in, _ := NewInput(p, 1)
				out, _ := p.NewOutput()
				if err := pl.Run(in, out); err != nil {
					t.Fatal(err)
				}
				share := float64(pl.(FLOPCounter).RunFLOPs()) / convolve.ThroughputOf(p).Flops()
				if !(share < 0.6) {
					t.Errorf("cpu-fast executed %.2f of gauss5's nominal operations, want the separable path's fewer", share)
				}
				near("exec-GFLOP/s / GFLOP/s", ex/res.Extra["GFLOP/s"], share)
			}
		})
	}
}
