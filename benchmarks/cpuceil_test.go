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
	tests := []struct {
		name string
		host Host
		want []string // keys that must be present with a positive number
		none []string // keys that must be absent
	}{
		{"measured", Host{CPU: &c}, []string{"cpu-copy-gbps", "cpu-scalar-gflops"}, nil},
		{"not measured", Host{}, nil, []string{"cpu-copy-gbps", "cpu-scalar-gflops"}},
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
	if c.Threads != 1 || !(c.CopyGBps > 0) || !(c.ScalarGFLOPs > 0) {
		t.Errorf("measureCPU(0, 1, 0, 0) = %+v, want one thread and positive rates", c)
	}
}
