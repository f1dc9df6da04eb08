package results

import "testing"

// A report's section lists only the hosts with a run of its presets.
func TestWithReport(t *testing.T) {
	cpu := &Host{Slug: "cpu-x", Runs: []*Run{{Preset: "000"}, {Preset: "default"}}}
	gpu := &Host{Slug: "gpu-x", GPU: true, Runs: []*Run{{Preset: "004-sobel"}, {Preset: "0040"}}}
	for _, tt := range []struct {
		report string
		want   []string
	}{
		{"000", []string{"cpu-x"}},
		{"004", []string{"gpu-x"}},
		{"003", nil},
	} {
		var got []string
		for _, h := range withReport([]*Host{cpu, gpu}, tt.report) {
			got = append(got, h.Slug)
		}
		if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
			t.Errorf("withReport(%s) = %v, want %v", tt.report, got, tt.want)
		}
	}
}
