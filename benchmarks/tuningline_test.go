package benchmarks

import (
	"errors"
	"strings"
	"testing"

	"github.com/convbench/convbench/tables/tuning"
)

// A GPU run's configuration says where its plans take unset tunables
// from, so that two runs of the same axes that differ only in their
// tuning tables can be told apart.
func TestTuningLine(t *testing.T) {
	set := &tuning.Set{}
	set.Add(&tuning.Table{GPU: "Test GPU"}, "/tmp/tables/test-gpu.json")
	load := func() (*tuning.Set, error) { return set, nil }
	for _, tc := range []struct {
		gpu, env string
		load     func() (*tuning.Set, error)
		want     []string
	}{
		{"Test GPU", "", load, []string{"tuning: /tmp/tables/test-gpu.json for unset tunables"}},
		{"Test GPU", "/tmp/tables", load, []string{"/tmp/tables/test-gpu.json", "(CONVBENCH_TUNING=/tmp/tables)"}},
		{"Other GPU", "", load, []string{"tuning: no table for Other GPU: family defaults"}},
		{"Test GPU", "off", load, []string{"tuning: off (CONVBENCH_TUNING=off): family defaults"}},
		{"Test GPU", "/x", func() (*tuning.Set, error) { return nil, errors.New("bad json") }, []string{"tuning: unreadable (bad json): family defaults"}},
	} {
		got := tuningLine(tc.gpu, tc.env, tc.load)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("tuningLine(%q, %q) = %q, want it to hold %q", tc.gpu, tc.env, got, w)
			}
		}
	}
}
