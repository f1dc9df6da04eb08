package results

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// planSample is a plan-timing case of variant with its cold or warm
// times in milliseconds, one a run.
func planSample(variant, filter, cache string, msTimes ...float64) *Sample {
	keys := map[string]string{}
	for _, k := range nameKeys {
		keys[k] = "default"
	}
	for k, v := range map[string]string{"variant": variant, "size": "1024x1024", "filter": filter, "k": "5", "border": "zero",
		"type": "f32", "ch": "1", "layout": "interleaved", "cache": cache, "timing": "plan", "mem": "none"} {
		keys[k] = v
	}
	s := &Sample{Keys: keys, Values: map[string][]float64{}}
	for _, m := range msTimes {
		s.Values["ns/op"] = append(s.Values["ns/op"], m*1e6)
		if cache == "cold" {
			s.Values[compilesUnit] = append(s.Values[compilesUnit], 1)
		}
	}
	return s
}

// The plan-cost section takes each case's cold and warm plans from one
// run, a run of preset plan before the others, and says per case whether
// the cold plan's median meets the 200 ms goal; a case timed warm only
// has no verdict, and a host with no plan case no table but a note
// that names it where another host has a table.
func TestPlanCostSection(t *testing.T) {
	ms5 := func(m float64) []float64 { return []float64{m, m * 1.01, m * 0.99, m * 1.02, m} }
	plan := &Run{Preset: "plan", Samples: []*Sample{
		planSample("gpu-regtile", "gauss5", "hot", ms5(1.6)...),
		planSample("gpu-regtile", "gauss5", "cold", ms5(130)...),
		planSample("gpu-tc-3xtf32", "dense7", "cold", ms5(240)...),
		planSample("gpu-tc-3xtf32", "dense7", "hot", ms5(1.7)...),
		planSample("cudnn", "gauss5", "hot", ms5(4)...),
	}}
	def := &Run{Preset: "default", Samples: []*Sample{
		planSample("gpu-regtile", "gauss5", "hot", ms5(9)...), // the plan run's case is taken
		planSample("gpu-regtile", "gauss5", "cold", ms5(900)...),
		planSample("gpu-naive", "gauss5", "cold", ms5(90)...),
		{Keys: map[string]string{"variant": "gpu-naive", "timing": "kernel", "cache": "hot"}, Values: map[string][]float64{"gpu-ns/op": {1}}},
	}}
	hosts := []*Host{
		{Slug: "gpu", Title: "GPU", GPU: true, Runs: []*Run{def, plan}},
		{Slug: "other", Title: "Other", GPU: true, Runs: []*Run{{Preset: "default", Samples: def.Samples[3:]}}},
	}
	sec := sectionPlanCost(hosts)
	if len(sec.Tables) != 1 || sec.Tables[0].ID != "plan-cost-gpu" {
		t.Fatalf("tables %+v: want one, of host gpu", sec.Tables)
	}
	tb := sec.Tables[0]
	want := [][]string{
		{"cudnn", "1024x1024 gauss5 f32", "—", "4.00 ±2%", "—", "—", "—", "`plan`"},
		{"gpu-naive", "1024x1024 gauss5 f32", "90.0 ±2%", "—", "—", "1.00", "yes", "`default`"},
		{"gpu-regtile", "1024x1024 gauss5 f32", "130 ±2%", "1.60 ±2%", "81.2×", "1.00", "yes", "`plan`"},
		{"gpu-tc-3xtf32", "1024x1024 dense7 f32", "240 ±2%", "1.70 ±2%", "141×", "1.00", "NO", "`plan`"},
	}
	if len(tb.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %q", len(tb.Rows), len(want), tb.Rows)
	}
	for i, row := range tb.Rows {
		if len(row) != len(tb.Header) {
			t.Errorf("row %d has %d cells, header %d", i, len(row), len(tb.Header))
		}
		if !slices.Equal(row, want[i]) {
			t.Errorf("row %d = %q\nwant    %q", i, row, want[i])
		}
	}
	if !strings.Contains(tb.Caption, "2 of the 3 cold plans timed meet it, the slowest gpu-tc-3xtf32 at 240 ms") {
		t.Errorf("caption %q", tb.Caption)
	}
	if len(sec.Notes) != 1 || !strings.HasPrefix(sec.Notes[0], "Other: no stored run times a plan;") {
		t.Errorf("notes %q: want one that names the GPU without a plan run", sec.Notes)
	}

	var b bytes.Buffer
	writeSection(&b, sectionPlanCost(hosts[1:]))
	if !strings.Contains(b.String(), "No stored run holds preset `plan` yet.") || strings.Contains(b.String(), "Other:") {
		t.Errorf("a report without plan cases renders\n%s\nwant the note that no run holds them, and no note per GPU", b.String())
	}
}
