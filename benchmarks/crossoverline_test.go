package benchmarks

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/tables/crossover"
)

// A GPU run's configuration says which crossover table its auto cases
// chose their paths from, so that a run whose auto took the heuristic is
// told apart from one that read the GPU's table.
func TestCrossoverLine(t *testing.T) {
	set := &crossover.Set{}
	set.Add(&crossover.Table{GPU: "Test GPU"}, "/tmp/tables/test-gpu.json")
	load := func() (*crossover.Set, error) { return set, nil }
	for _, tc := range []struct {
		gpu, env string
		load     func() (*crossover.Set, error)
		want     string
	}{
		{"Test GPU", "", load, "crossover: /tmp/tables/test-gpu.json for auto's paths, its heuristic where it has no entry"},
		{"Test GPU", "/tmp/tables", load, "crossover: /tmp/tables/test-gpu.json (CONVBENCH_CROSSOVER=/tmp/tables) for auto's paths"},
		{"Other GPU", "", load, "crossover: no table for Other GPU: auto's heuristic"},
		{"Test GPU", "off", load, "crossover: off (CONVBENCH_CROSSOVER=off): auto's heuristic"},
		{"Test GPU", "/x", func() (*crossover.Set, error) { return nil, errors.New("bad json") }, "crossover: unreadable (bad json): auto's heuristic"},
	} {
		if got := crossoverLine(tc.gpu, tc.env, tc.load); !strings.HasPrefix(got, tc.want) {
			t.Errorf("crossoverLine(%q, %q) = %q, want it to begin %q", tc.gpu, tc.env, got, tc.want)
		}
	}
}

// The auto-paths line names each registered auto variant's paths: auto
// takes the float32 paths and gpu-fft but no path that rounds operands
// to TF32 or bfloat16, auto-bf16 takes those too.
func TestAutoPathsLine(t *testing.T) {
	line, ok := strings.CutPrefix(autoPathsLine(), "auto-paths: ")
	if !ok {
		t.Fatalf("autoPathsLine() = %q, want the auto-paths key", autoPathsLine())
	}
	paths := map[string][]string{}
	for _, part := range strings.Split(line, "; ") {
		name, list, ok := strings.Cut(part, "=")
		if !ok {
			t.Fatalf("part %q of %q has no '='", part, line)
		}
		paths[name] = strings.Split(list, ",")
	}
	tests := []struct {
		auto, path string
		want       bool
	}{
		{"auto", "gpu-regtile", true},
		{"auto", "gpu-tc-3xtf32", true},
		{"auto", "gpu-fft", true},
		{"auto", "gpu-tc-bf16", false},
		{"auto", "gpu-tc-tf32", false},
		{"auto", "cudnn", false},
		{"auto-bf16", "gpu-tc-bf16", true},
		{"auto-bf16", "gpu-tc-tf32", true},
		{"auto-bf16", "gpu-sepfused", true},
		{"auto-bf16", "npp", false},
	}
	for _, tt := range tests {
		ps, ok := paths[tt.auto]
		if !ok {
			t.Fatalf("%q names no %s", line, tt.auto)
		}
		if got := slices.Contains(ps, tt.path); got != tt.want {
			t.Errorf("%s takes %s: %v, want %v (line %q)", tt.auto, tt.path, got, tt.want, line)
		}
	}
}
