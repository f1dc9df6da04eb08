package results

import (
	"slices"
	"testing"
)

// The tuned-vs-default section pairs each case planned from the tuning
// table with its tune=untuned twin.
func TestTunedVsDefaultSection(t *testing.T) {
	mk := func(variant, filter, tune string, ns float64) *Sample {
		return &Sample{Keys: map[string]string{"variant": variant, "size": "4096x4096", "filter": filter, "block": "default",
			"type": "f32", "ch": "1", "timing": "kernel-graph", "mem": "none", "cache": "hot", "opts": "default", "tune": tune},
			Values: map[string][]float64{"gpu-ns/op": {ns, ns * 1.01, ns * 0.99, ns * 1.02, ns}}}
	}
	run := &Run{Preset: "tuned-vs-default", Samples: []*Sample{
		mk("gpu-tiled", "dense3", "default", 60000), mk("gpu-tiled", "dense3", "untuned", 75000),
		mk("gpu-regtile", "dense21", "default", 300000), mk("gpu-regtile", "dense21", "untuned", 300000),
	}}
	sec := sectionTunedVsDefault([]*Host{{Slug: "h", Title: "H", GPU: true, Runs: []*Run{run}}})
	if len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 2 {
		t.Fatalf("want one table of two rows, got %+v", sec.Tables)
	}
	want := [][]string{
		{"gpu-regtile", "4096x4096", "dense21", "0.300 ±2%", "0.300 ±2%", "~"},
		{"gpu-tiled", "4096x4096", "dense3", "0.0600 ±2%", "0.0750 ±2%", "1.25×"},
	}
	for i, row := range sec.Tables[0].Rows {
		if !slices.Equal(row, want[i]) {
			t.Errorf("row %d = %q\nwant    %q", i, row, want[i])
		}
	}
	if sec := sectionTunedVsDefault([]*Host{{Slug: "c", Runs: []*Run{{Preset: "000"}}}}); len(sec.Tables) != 0 {
		t.Errorf("a host without the preset got %d tables", len(sec.Tables))
	}
}
