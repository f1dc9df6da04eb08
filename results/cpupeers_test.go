package results

import (
	"slices"
	"strings"
	"testing"
)

// The cpu-peers section sets cpu-fast beside the quoted OpenCV time of each
// case and, where the run measured them, against the CPU's ceilings.
func TestCPUPeersSection(t *testing.T) {
	mk := func(filter string, ns, gbs, gflops []float64) *Sample {
		return &Sample{Keys: map[string]string{"variant": "cpu-fast", "size": "2048x2048", "filter": filter, "block": "none",
			"border": "zero", "type": "f32", "ch": "1", "layout": "interleaved", "cache": "hot", "timing": "cpu", "mem": "none"},
			Values: map[string][]float64{"ns/op": ns, "GB/s": gbs, "GFLOP/s": gflops}}
	}
	// dense3 at 1.39 ms is half of OpenCV's 2.78 ms; gauss21 at 20.6 ms
	// twice its 10.3 ms.
	samples := func() []*Sample {
		return []*Sample{
			mk("dense3", []float64{1.38e6, 1.39e6, 1.40e6, 1.39e6, 1.39e6}, []float64{20, 24, 24, 24, 30}, []float64{50, 54, 54, 54, 60}),
			mk("gauss21", []float64{20.5e6, 20.6e6, 20.6e6, 20.7e6, 20.6e6}, []float64{1.5, 1.6, 1.6, 1.6, 1.7}, []float64{180, 180, 180, 180, 180}),
		}
	}
	dense3 := []string{"dense 3x3", "1.39 ±1%", "2.78", "0.500×", "24.0"}
	gauss21 := []string{"Gaussian 21", "20.6 ±0%", "10.3", "2.00×", "1.60"}
	tests := []struct {
		name   string
		config map[string]string
		// the cells of the dense3 and gauss21 rows after the GB/s column
		dense3, gauss21 []string
		caption         string
	}{
		{"with ceilings", map[string]string{"cpu-copy-gbps": "40", "cpu-scalar-gflops": "9"},
			[]string{"60%", "54.0", "6.00×"}, []string{"4.0%", "180", "20.0×"}, "copy 40.0 GB/s, scalar multiply-add rate 9.00 GFLOP/s"},
		{"without ceilings", map[string]string{"cpu-threads": "2"},
			[]string{"—", "54.0", "—"}, []string{"—", "180", "—"}, "predates the measured CPU ceilings"},
		{"unparsable ceilings", map[string]string{"cpu-copy-gbps": "fast", "cpu-scalar-gflops": "0"},
			[]string{"—", "54.0", "—"}, []string{"—", "180", "—"}, "copy — GB/s, scalar multiply-add rate — GFLOP/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &Run{Preset: "cpu-peers", Config: tt.config, Samples: samples()}
			h := &Host{Slug: "cpu-h", Title: "H (no GPU)", Runs: []*Run{run}}
			var sec *Section
			for _, s := range Sections([]*Host{h}) {
				if s.Report == "cpu-peers" {
					sec = s
				}
			}
			if sec == nil || len(sec.Tables) != 2 {
				t.Fatalf("want the host's table and the quoted one, got %+v", sec)
			}
			tb := sec.Tables[0]
			if len(tb.Header) != 8 || len(tb.Rows) != len(OpenCVPeers) {
				t.Fatalf("header %q, %d rows; want 8 columns (dash columns kept on a host without GPU) and %d rows", tb.Header, len(tb.Rows), len(OpenCVPeers))
			}
			rows := map[string][]string{}
			for _, r := range tb.Rows {
				rows[r[0]] = r
			}
			if got, want := rows["dense 3x3"], append(slices.Clone(dense3), tt.dense3...); !slices.Equal(got, want) {
				t.Errorf("dense 3x3 row %q\nwant          %q", got, want)
			}
			if got, want := rows["Gaussian 21"], append(slices.Clone(gauss21), tt.gauss21...); !slices.Equal(got, want) {
				t.Errorf("Gaussian 21 row %q\nwant            %q", got, want)
			}
			// A case the run lacks is dashes beside OpenCV's figure.
			if got, want := rows["dense 7x7"], []string{"dense 7x7", "—", "8.35", "—", "—", "—", "—", "—"}; !slices.Equal(got, want) {
				t.Errorf("missing case row %q, want %q", got, want)
			}
			if !strings.Contains(tb.Caption, tt.caption) || !strings.Contains(tb.Caption, OpenCVPeersSource) {
				t.Errorf("caption %q lacks %q or the source", tb.Caption, tt.caption)
			}
		})
	}
	// Without a cpu-peers run only the quoted figures remain.
	sec := sectionCPUPeers([]*Host{{Slug: "g", GPU: true, Runs: []*Run{{Preset: "default"}}}})
	if len(sec.Tables) != 1 || sec.Tables[0].ID != "cpu-peers-published" || len(sec.Tables[0].Rows) != len(OpenCVPeers) {
		t.Errorf("without a cpu-peers run: %+v", sec.Tables)
	}
}
