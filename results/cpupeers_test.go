package results

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cpuPeersSample is a cpu-fast sample of preset cpu-peers: filter, type,
// and the values of each unit.
func cpuPeersSample(filter, typ string, values map[string][]float64) *Sample {
	return &Sample{Keys: map[string]string{"variant": "cpu-fast", "size": "2048x2048", "filter": filter, "block": "none",
		"border": "zero", "type": typ, "ch": "1", "layout": "interleaved", "cache": "hot", "timing": "cpu", "mem": "none"},
		Values: values}
}

// cpuPeersSamples: dense3 f32 at 1.39 ms, half of OpenCV's 2.78 ms, with
// the metrics of the run's ceilings or without (an older run); gauss21
// f32 at 20.6 ms, twice OpenCV's 10.3 ms, executing 58 GFLOP/s where the
// nominal count says 180; dense3 u8, which OpenCV has no figure for.
func cpuPeersSamples(withMetrics bool) []*Sample {
	five := func(v ...float64) []float64 { return v }
	dense3 := map[string][]float64{"ns/op": five(1.38e6, 1.39e6, 1.40e6, 1.39e6, 1.39e6), "GB/s": five(20, 24, 24, 24, 30), "GFLOP/s": five(50, 54, 54, 54, 60)}
	gauss21 := map[string][]float64{"ns/op": five(20.5e6, 20.6e6, 20.6e6, 20.7e6, 20.6e6), "GB/s": five(1.5, 1.6, 1.6, 1.6, 1.7), "GFLOP/s": five(180, 180, 180, 180, 180)}
	u8 := map[string][]float64{"ns/op": five(2e6, 2e6, 2e6, 2e6, 2e6), "GB/s": five(10, 10, 10, 10, 10), "GFLOP/s": five(36, 36, 36, 36, 36)}
	if withMetrics {
		dense3["%copy-bw"], dense3["exec-GFLOP/s"], dense3["%peak-fma"] = five(50, 60, 60, 60, 75), five(50, 54, 54, 54, 60), five(25, 27, 27, 27, 30)
		gauss21["%copy-bw"], gauss21["exec-GFLOP/s"], gauss21["%peak-fma"] = five(3.75, 4, 4, 4, 4.25), five(58, 58, 58, 58, 58), five(29, 29, 29, 29, 29)
		u8["%copy-bw"], u8["exec-GFLOP/s"], u8["%peak-fma"] = five(25, 25, 25, 25, 25), five(36, 36, 36, 36, 36), five(18, 18, 18, 18, 18)
	}
	return []*Sample{cpuPeersSample("dense3", "f32", dense3), cpuPeersSample("gauss21", "f32", gauss21), cpuPeersSample("dense3", "u8", u8)}
}

func cpuPeersHost(config map[string]string, withMetrics bool) *Host {
	run := &Run{Preset: "cpu-peers", Config: config, Samples: cpuPeersSamples(withMetrics)}
	return &Host{Slug: "cpu-h", Title: "H (no GPU)", Runs: []*Run{run}}
}

// sectionOf is the section of Sections titled title.
func sectionOf(t *testing.T, hosts []*Host, title string) *Section {
	t.Helper()
	for _, s := range sections(hosts) {
		if strings.HasPrefix(s.Title, title) {
			return s
		}
	}
	t.Fatalf("no section titled %q", title)
	return nil
}

// The cpu-peers section sets cpu-fast beside the quoted OpenCV time of
// each f32 case, shows u8 and i16 without a published figure, and reads
// its rates against the run's ceilings: GFLOP/s as executed, not the
// nominal count.
func TestCPUPeersSection(t *testing.T) {
	ceilings := map[string]string{"cpu-copy-gbps": "40", "cpu-scalar-gflops": "9", "cpu-fma-gflops": "200"}
	tests := []struct {
		name        string
		config      map[string]string
		withMetrics bool
		// the cells of the rows after the Type column
		dense3, gauss21, dense3u8 []string
		caption                   string
	}{
		{"with ceilings", ceilings, true,
			[]string{"1.39 ±1%", "2.78", "0.500×", "24.0", "60%", "54.0", "27%"},
			[]string{"20.6 ±0%", "10.3", "2.00×", "1.60", "4.0%", "58.0", "29%"},
			[]string{"2.00 ±0%", noPublished, "—", "10.0", "25%", "36.0", "18%"},
			"copy 40.0 GB/s, vector FMA peak 200 GFLOP/s, scalar multiply-add rate 9.00 GFLOP/s"},
		{"older run: share of copy from the ceiling, no executed count", map[string]string{"cpu-copy-gbps": "40", "cpu-scalar-gflops": "9"}, false,
			[]string{"1.39 ±1%", "2.78", "0.500×", "24.0", "60%", "—", "—"},
			[]string{"20.6 ±0%", "10.3", "2.00×", "1.60", "4.0%", "—", "—"},
			[]string{"2.00 ±0%", noPublished, "—", "10.0", "25%", "—", "—"},
			"copy 40.0 GB/s, vector FMA peak — GFLOP/s"},
		{"without ceilings", map[string]string{"cpu-threads": "2"}, false,
			[]string{"1.39 ±1%", "2.78", "0.500×", "24.0", "—", "—", "—"},
			[]string{"20.6 ±0%", "10.3", "2.00×", "1.60", "—", "—", "—"},
			[]string{"2.00 ±0%", noPublished, "—", "10.0", "—", "—", "—"},
			"copy — GB/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := sectionOf(t, []*Host{cpuPeersHost(tt.config, tt.withMetrics)}, "CPU peers")
			if len(sec.Tables) != 2 {
				t.Fatalf("want the host's table and the quoted one, got %+v", sec.Tables)
			}
			tb := sec.Tables[0]
			if len(tb.Header) != 9 || len(tb.Rows) != 3*len(openCVPeers) {
				t.Fatalf("header %q, %d rows; want 9 columns (dash columns kept on a host without GPU) and %d rows", tb.Header, len(tb.Rows), 3*len(openCVPeers))
			}
			rows := map[string][]string{}
			for _, r := range tb.Rows {
				rows[r[0]+" "+r[1]] = r
			}
			for key, want := range map[string][]string{"dense 3x3 f32": tt.dense3, "Gaussian 21 f32": tt.gauss21, "dense 3x3 u8": tt.dense3u8} {
				name, ty := key[:strings.LastIndex(key, " ")], key[strings.LastIndex(key, " ")+1:]
				if got, want := rows[key], append([]string{name, ty}, want...); !slices.Equal(got, want) {
					t.Errorf("%s row %q\nwant %q", key, got, want)
				}
			}
			// A case the run lacks is dashes beside OpenCV's figure (f32)
			// or the note that none is published (i16).
			if got, want := rows["dense 7x7 f32"], []string{"dense 7x7", "f32", "—", "8.35", "—", "—", "—", "—", "—"}; !slices.Equal(got, want) {
				t.Errorf("missing case row %q, want %q", got, want)
			}
			if got, want := rows["dense 7x7 i16"], []string{"dense 7x7", "i16", "—", noPublished, "—", "—", "—", "—", "—"}; !slices.Equal(got, want) {
				t.Errorf("missing i16 case row %q, want %q", got, want)
			}
			for _, s := range []string{tt.caption, openCVPeersSource, "no published figure", "two passes"} {
				if !strings.Contains(tb.Caption, s) {
					t.Errorf("caption %q lacks %q", tb.Caption, s)
				}
			}
		})
	}
	// Without a cpu-peers run only the quoted figures remain.
	sec := sectionCPUPeers([]*Host{{Slug: "g", GPU: true, Runs: []*Run{{Preset: "default"}}}})
	if len(sec.Tables) != 1 || sec.Tables[0].ID != "cpu-peers-published" || len(sec.Tables[0].Rows) != len(openCVPeers) {
		t.Errorf("without a cpu-peers run: %+v", sec.Tables)
	}
}

// The CPU roofline sets each case at its executed intensity under the
// smaller of the FMA roof and the copy roof, and plots the roofs and
// the cases.
func TestCPURooflineSection(t *testing.T) {
	ceilings := map[string]string{"cpu-copy-gbps": "40", "cpu-scalar-gflops": "9", "cpu-fma-gflops": "200"}
	sec := sectionOf(t, []*Host{cpuPeersHost(ceilings, true)}, "CPU roofline")
	if len(sec.Tables) != 1 || len(sec.Plots) != 1 {
		t.Fatalf("want one table and one plot, got %d and %d", len(sec.Tables), len(sec.Plots))
	}
	// dense3: 54 GFLOP/s over 24 GB/s is 2.25 FLOP/byte, under the copy
	// roof of 90 GFLOP/s; gauss21: 58 over 1.6 is 36.25 (36.2, to even), under the FMA
	// roof of 200.
	want := [][]string{
		{"dense 3x3", "f32", "2.25", "90.0", "copy", "54.0", "60%"},
		{"Gaussian 21", "f32", "36.2", "200", "FMA", "58.0", "29%"},
		{"dense 3x3", "u8", "3.60", "144", "copy", "36.0", "25%"},
	}
	if got := sec.Tables[0].Rows; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows %q\nwant %q", got, want)
	}
	p := sec.Plots[0]
	if !p.HasData() || len(p.XValue) != 4 { // three cases and the ridge at 200/40
		t.Fatalf("plot: data %v, %d positions, want 4", p.HasData(), len(p.XValue))
	}
	var svg strings.Builder
	if err := p.WriteSVG(&svg); err != nil || !strings.Contains(svg.String(), "<svg") {
		t.Errorf("WriteSVG: %v (%d bytes)", err, svg.Len())
	}
	names := map[string]bool{}
	for _, s := range p.Series {
		names[s.Name] = true
	}
	for _, n := range []string{"H (no GPU) roof", "H (no GPU) cpu-fast f32", "H (no GPU) cpu-fast u8"} {
		if !names[n] {
			t.Errorf("plot lacks series %q: %v", n, names)
		}
	}
	// No FMA ceiling (an older run): no roofline.
	delete(ceilings, "cpu-fma-gflops")
	if sec := sectionOf(t, []*Host{cpuPeersHost(ceilings, true)}, "CPU roofline"); len(sec.Tables)+len(sec.Plots) != 0 {
		t.Errorf("a run without cpu-fma-gflops: %d tables, %d plots, want none", len(sec.Tables), len(sec.Plots))
	}
}

// With OpenCV's times measured on the host (scripts/opencv-peers.py's
// file beside the run), the section adds a table setting cpu-fast beside
// them in every element type; a damaged file is a table that says so.
func TestCPUPeersOpenCVHere(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cpu-h")
	if err := os.MkdirAll(filepath.Join(dir, "peers"), 0o755); err != nil {
		t.Fatal(err)
	}
	host := cpuPeersHost(map[string]string{"cpu-copy-gbps": "40"}, true)
	host.Runs[0].Path = filepath.Join(dir, "cpu-peers.txt")
	file := filepath.Join(dir, filepath.FromSlash(openCVHereFile))

	lines := []string{"opencv-version: 4.6.0", "opencv-threads: 2", "date: 2026-11-23T00:00:00Z"}
	for _, ns := range []string{"2700000", "2780000", "2800000"} {
		lines = append(lines, "BenchmarkOpenCV/call=filter2D/size=2048x2048/filter=dense3/type=f32 \t1\t"+ns+" ns/op")
	}
	lines = append(lines, "BenchmarkOpenCV/call=filter2D/size=2048x2048/filter=dense3/type=u8 \t1\t1000000 ns/op")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sec := sectionOf(t, []*Host{host}, "CPU peers")
	if len(sec.Tables) != 3 || sec.Tables[1].ID != "cpu-peers-cpu-h-opencv-here" {
		t.Fatalf("want the host's table, the measured one and the quoted one, got %d tables", len(sec.Tables))
	}
	tb := sec.Tables[1]
	rows := map[string][]string{}
	for _, r := range tb.Rows {
		rows[r[0]+" "+r[1]] = r
	}
	for key, want := range map[string][]string{
		"dense 3x3 f32":   {"dense 3x3", "f32", "filter2D", "1.39 ±1%", "2.78", "0.500×"},
		"dense 3x3 u8":    {"dense 3x3", "u8", "filter2D", "2.00 ±0%", "1.00", "2.00×"},
		"Gaussian 21 f32": {"Gaussian 21", "f32", "sepFilter2D", "20.6 ±0%", "—", "—"},
	} {
		if got := rows[key]; !slices.Equal(got, want) {
			t.Errorf("%s row %q, want %q", key, got, want)
		}
	}
	for _, s := range []string{"OpenCV 4.6.0 with 2 threads", "scripts/opencv-peers.py"} {
		if !strings.Contains(tb.Caption, s) {
			t.Errorf("caption %q lacks %q", tb.Caption, s)
		}
	}

	if err := os.WriteFile(file, []byte("BenchmarkOpenCV/call=filter2D/size=2048x2048/type=f32 \t1\t5 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sec = sectionOf(t, []*Host{host}, "CPU peers")
	if len(sec.Tables) != 3 || !strings.Contains(sec.Tables[1].Caption, "could not be read") || !strings.Contains(sec.Tables[1].Caption, "lacks a filter") {
		t.Errorf("damaged file: tables %d, caption %q; want a table saying why", len(sec.Tables), sec.Tables[1].Caption)
	}
}
