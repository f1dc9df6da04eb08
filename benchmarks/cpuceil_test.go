package benchmarks

import (
	"strconv"
	"strings"
	"testing"
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
			for _, l := range ConfigLines(tt.host, "cpu-peers", 2, 0) {
				k, v, ok := strings.Cut(l, ": ")
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
