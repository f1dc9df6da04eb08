package benchmarks

import (
	"errors"
	"strings"
	"testing"

	"github.com/convbench/convbench/results/crossover"
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
