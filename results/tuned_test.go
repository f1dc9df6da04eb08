package results

import (
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/tables/tuning"
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
	// The run's table first, then one of the tuner's per embedded tuning table.
	if len(sec.Tables) == 0 || sec.Tables[0].ID != "tuned-vs-default-h" || len(sec.Tables[0].Rows) != 2 {
		t.Fatalf("want the run's table of two rows first, got %+v", sec.Tables)
	}
	for _, tb := range sec.Tables[1:] {
		if !strings.HasPrefix(tb.ID, "tuner-") {
			t.Errorf("table %s after the run's: want only the tuner's tables", tb.ID)
		}
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
	for _, tb := range sectionTunedVsDefault([]*Host{{Slug: "c", Runs: []*Run{{Preset: "000"}}}}).Tables {
		if strings.HasPrefix(tb.ID, "tuned-vs-default-") {
			t.Errorf("a host without the preset got table %s", tb.ID)
		}
	}
}

// The tuner's own table shows each entry's chosen setting against the
// family's default, from the times the tuner measured.
func TestTunerTable(t *testing.T) {
	tab := &tuning.Table{GPU: "NVIDIA Test GPU", Entries: []tuning.Entry{
		{Variant: "gpu-regtile", Type: "f32", K: 21, Size: "large", Problem: "4096x4096 f32 dense21 border=zero", Search: "exhaustive", Commit: "0123456789abcdef",
			Chosen:     tuning.Candidate{Block: "16x16", Tunables: map[string]int{"ry": 2, "rx": 2}, Status: "ok", MedianNS: 300000},
			Default:    tuning.Candidate{Block: "32x8", Tunables: map[string]int{"rx": 4, "ry": 8}, Status: "ok", MedianNS: 360000},
			Candidates: []tuning.Candidate{{Status: "ok"}, {Status: "wrong"}, {Status: "refused"}, {Status: "ok"}}},
		{Variant: "gpu-tiled", Type: "f32", K: 5, Size: "large", Problem: "4096x4096 f32 dense5 border=zero", Search: "random",
			Chosen:     tuning.Candidate{Status: "ok", MedianNS: 60000},
			Default:    tuning.Candidate{Status: "ok", MedianNS: 60000},
			Candidates: []tuning.Candidate{{Status: "ok"}, {Status: "crash"}, {Status: "hang"}}},
		{Variant: "gpu-regtile", Type: "f32", K: 3, Size: "large", Problem: "4096x4096 f32 dense3 border=zero", Search: "exhaustive",
			Chosen:  tuning.Candidate{Status: "ok", MedianNS: 50000},
			Default: tuning.Candidate{Status: "ok", MedianNS: 50000}},
	}}
	got := tunerTable(tab, "tables/tuning/nvidia-test-gpu.json")
	if got == nil {
		t.Fatal("no table")
	}
	want := [][]string{
		{"gpu-regtile", "f32", "3", "large", "4096x4096 f32 dense3 border=zero", "default", "0.0500", "default", "0.0500", "1.00×", "0 (0, 0, 0)", "exhaustive", ""},
		{"gpu-regtile", "f32", "21", "large", "4096x4096 f32 dense21 border=zero", "16x16 rx=2 ry=2", "0.300", "32x8 rx=4 ry=8", "0.360", "1.20×", "4 (2, 1, 1)", "exhaustive", "0123456"},
		{"gpu-tiled", "f32", "5", "large", "4096x4096 f32 dense5 border=zero", "default", "0.0600", "default", "0.0600", "1.00×", "3 (1, 0, 0, 2 crashed or hung)", "random", ""},
	}
	if !slices.EqualFunc(got.Rows, want, slices.Equal) {
		t.Errorf("rows\n%q\nwant\n%q", got.Rows, want)
	}
	if tunerTable(&tuning.Table{GPU: "x"}, "") != nil {
		t.Error("an empty tuning table gives a table")
	}
}
