package results

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestReadRunFixture(t *testing.T) {
	runs, err := Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("Load(testdata): %d runs, want 1", len(runs))
	}
	r := runs[0]
	if r.Host != "nvidia-h200" || r.Preset != "default" || !strings.HasPrefix(r.Header, "# ") {
		t.Errorf("run host %q preset %q header %q", r.Host, r.Preset, r.Header)
	}
	if r.Config["gpu"] != "NVIDIA H200" || r.Config["gpu-cc"] != "9.0" {
		t.Errorf("config %v", r.Config)
	}
	if len(r.Failures) != 1 || !strings.Contains(r.Failures[0], "variant=npp") {
		t.Errorf("failures %q: want the one failed npp gate of the fixture", r.Failures)
	}
	var gpu, cpu int
	for _, s := range r.Samples {
		for _, k := range nameKeys {
			if s.Keys[k] == "" {
				t.Fatalf("sample %v lacks key %s", s.Keys, k)
			}
		}
		tm, ok := s.Time()
		if !ok || tm <= 0 {
			t.Errorf("sample %v has no time", s.Keys)
		}
		if s.Keys["timing"] == "kernel" {
			gpu++
			if _, ok := s.Median("gpu-ns/op"); !ok {
				t.Errorf("kernel sample %v lacks gpu-ns/op", s.Keys)
			}
		}
		if s.Keys["timing"] == "cpu" {
			cpu++
		}
	}
	if gpu == 0 || cpu == 0 {
		t.Errorf("fixture: %d GPU kernel and %d CPU samples, want both", gpu, cpu)
	}
}

// A run's unsupported lines are read with their cases' keys and reasons;
// benchstat's reader, as ReadRun's, takes them for comments.
func TestReadRunUnsupported(t *testing.T) {
	const name = "variant=gpu-stream16KiB-gpu-tiled/size=1024x1024/filter=gauss5/k=5/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default"
	in := "gpu: Test GPU\n" +
		"# unsupported " + name + ": convolve: gpu-stream16KiB-gpu-tiled does not support image rows of 1024x1024x1 f32: over the cap of 16384\n" +
		"BenchmarkConv/variant=gpu-tiled/size=1024x1024/filter=gauss5/k=5/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default 1 6000 ns/op 5959 gpu-ns/op\n"
	r, err := ReadRun(strings.NewReader(in), "data/test-gpu/default.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Samples) != 1 || len(r.Failures) != 0 {
		t.Errorf("%d samples, failures %q: want the one result line and no failure", len(r.Samples), r.Failures)
	}
	if len(r.Unsupported) != 1 {
		t.Fatalf("unsupported %+v, want one case", r.Unsupported)
	}
	u := r.Unsupported[0]
	if u.Name != name || u.Keys["variant"] != "gpu-stream16KiB-gpu-tiled" || u.Keys["tune"] != "default" || !strings.HasSuffix(u.Reason, "over the cap of 16384") {
		t.Errorf("unsupported case %+v", u)
	}
	if _, err := ReadRun(strings.NewReader("# unsupported variant=x/size=1x1: why\n"), "x/y.txt"); err == nil {
		t.Error("an unsupported line whose case lacks keys read without error")
	}
}

func TestReadRunErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"missing keys", "BenchmarkConv/variant=x/size=1x1 1 100 ns/op\n"},
		{"bad line", "BenchmarkConv/variant=x 1 100 ns/op 7\n"},
	}
	for _, tt := range tests {
		if _, err := ReadRun(strings.NewReader(tt.in), "x/y.txt"); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestMedian(t *testing.T) {
	s := &Sample{Values: map[string][]float64{"a": {5, 1, 3}, "b": {4, 1, 3, 2}}}
	for unit, want := range map[string]float64{"a": 3, "b": 2.5} {
		if got, ok := s.Median(unit); !ok || got != want {
			t.Errorf("Median(%s) = %v, %v; want %v", unit, got, ok, want)
		}
	}
	if _, ok := s.Median("c"); ok {
		t.Errorf("Median of a missing unit reported ok")
	}
}

func TestSpread(t *testing.T) {
	tests := []struct {
		name   string
		values map[string][]float64
		want   float64
		ok     bool
	}{
		{"kernel time", map[string][]float64{"gpu-ns/op": {10, 12, 11}, "ns/op": {100, 900}}, 2.0 / 11, true},
		{"pipeline time", map[string][]float64{"total-ns/op": {8, 10, 12, 10}}, 0.4, true},
		{"cpu time", map[string][]float64{"ns/op": {5, 5}}, 0, true},
		{"one run", map[string][]float64{"gpu-ns/op": {10}}, 0, false},
		{"no time", map[string][]float64{"MPix/s": {1, 2}}, 0, false},
		{"zero median", map[string][]float64{"ns/op": {0, 0, 1}}, 0, false},
	}
	for _, tt := range tests {
		got, ok := (&Sample{Values: tt.values}).Spread()
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Spread() = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// The spread section counts the cases above wideSpread and names the
// widest, per run.
func TestSpreadSection(t *testing.T) {
	mk := func(variant string, v ...float64) *Sample {
		return &Sample{Keys: map[string]string{"variant": variant, "size": "64x64", "filter": "gauss3", "block": "default",
			"type": "f32", "ch": "1", "timing": "kernel", "mem": "none", "cache": "hot", "opts": "default", "tune": "default"},
			Values: map[string][]float64{"gpu-ns/op": v}}
	}
	run := &Run{Preset: "p", Samples: []*Sample{mk("a", 100, 101, 102), mk("b", 100, 150, 100), mk("c", 100, 115, 100), mk("d", 7)}}
	sec := sectionSpread([]*Host{{Slug: "h", Title: "H", Runs: []*Run{run}}})
	if len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 1 {
		t.Fatalf("want one table of one row, got %+v", sec.Tables)
	}
	got := sec.Tables[0].Rows[0]
	want := []string{"p", "4", "3", "2", "1", "b 64x64 gauss3 f32 kernel", "50%"}
	if !slices.Equal(got, want) {
		t.Errorf("row = %q, want %q", got, want)
	}
}

func TestSig(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{{0.012345, "0.0123"}, {1.5, "1.50"}, {123.4, "123"}, {98765, "98765"}, {0, "0"}}
	for _, tt := range tests {
		if got := Sig(tt.v, 3); got != tt.want {
			t.Errorf("sig(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// Every section builds over the fixture and the committed data, every
// table is rectangular and renders in both forms.
func TestSectionsBuild(t *testing.T) {
	for _, dir := range []string{"testdata", "data"} {
		r, err := Build(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hosts) == 0 {
			t.Fatalf("%s: no hosts", dir)
		}
		ids := map[string]bool{}
		for _, s := range r.Sections {
			for _, tb := range s.Tables {
				if ids[tb.ID] {
					t.Errorf("%s: duplicate table id %s", dir, tb.ID)
				}
				ids[tb.ID] = true
				for i, row := range tb.Rows {
					if len(row) != len(tb.Header) {
						t.Errorf("%s: table %s row %d has %d cells, header %d", dir, tb.ID, i, len(row), len(tb.Header))
					}
				}
				var md, term bytes.Buffer
				if err := tb.RenderMarkdown(&md); err != nil || !strings.Contains(md.String(), "| --- |") {
					t.Errorf("%s: markdown of %s: %v", dir, tb.ID, err)
				}
				if err := tb.RenderTerminal(&term); err != nil || term.Len() == 0 {
					t.Errorf("%s: terminal rendering of %s: %v", dir, tb.ID, err)
				}
			}
		}
		for _, want := range []string{"000-published-tesla-t4", "004-published-table1", "002-published-table1", "003-published-filter-size"} {
			if !ids[want] {
				t.Errorf("%s: no table %s", dir, want)
			}
		}
	}
}

// Our GPU numbers reach the report's tables: the fixture's gpu-shared
// Gaussian 5x5 at 1024 appears in the 004 Gaussian table.
func TestFixtureInTables(t *testing.T) {
	r, err := Build("testdata")
	if err != nil {
		t.Fatal(err)
	}
	h := r.Hosts[0]
	want, ok := h.Time(Q{"variant": "gpu-shared", "size": "1024x1024", "filter": "gauss5", "timing": "kernel", "cache": "hot"})
	if !ok {
		t.Fatal("fixture lacks gpu-shared gauss5 1024")
	}
	md := string(r.Markdown())
	if !strings.Contains(md, ms(want, true)) {
		t.Errorf("report lacks the gpu-shared time %s", ms(want, true))
	}
}

func validXML(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// The committed report is what the committed data produces.
func TestCommittedReportUpToDate(t *testing.T) {
	files, err := committedReport(t).Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if strings.HasSuffix(name, ".svg") {
			if err := validXML(want); err != nil {
				t.Errorf("%s: invalid SVG: %v", name, err)
			}
		}
		got, err := os.ReadFile(filepath.Join("report", name))
		if err != nil {
			t.Errorf("committed report lacks %s (run make report): %v", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("report/%s is out of date with results/data: run make report", name)
		}
	}
	committed, _ := filepath.Glob(filepath.Join("report", "plots", "*.svg"))
	for _, p := range committed {
		rel, _ := filepath.Rel("report", p)
		if _, ok := files[rel]; !ok {
			t.Errorf("report/%s is not produced by the data any more: run make report", rel)
		}
	}
}

func TestGalleryCommitted(t *testing.T) {
	for _, name := range []string{"input.png", "gauss5.png", "sobel-x.png", "sobel-mag.png", "README.md"} {
		if _, err := os.Stat(filepath.Join("report", "gallery", name)); err != nil {
			t.Errorf("gallery: %v", err)
		}
	}
	// Every image decodes whole.
	pngs, err := filepath.Glob(filepath.Join("report", "gallery", "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range pngs {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The launch section pairs the two timings of one kernel from the
// launch-overhead run, not from another preset's run of the same case.
func TestLaunchSection(t *testing.T) {
	mk := func(timing string, ns ...float64) *Sample {
		return &Sample{Keys: map[string]string{"variant": "gpu-naive", "size": "256x256", "filter": "gauss3", "block": "16x16",
			"type": "f32", "ch": "1", "timing": timing, "mem": "none", "cache": "hot", "opts": "default", "tune": "default"},
			Values: map[string][]float64{"gpu-ns/op": ns}}
	}
	other := &Run{Preset: "000", Samples: []*Sample{mk("kernel", 1e6, 1e6)}}
	launch := &Run{Preset: "launch-overhead", Samples: []*Sample{mk("kernel", 5000, 5000, 6000, 5000, 4900), mk("kernel-graph", 2000, 2000, 2000, 2000, 2000)}}
	h := &Host{Slug: "h", Title: "H", GPU: true, Runs: []*Run{other, launch}}
	sec := sectionLaunch([]*Host{h})
	if len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 1 {
		t.Fatalf("want one table of one row, got %+v", sec.Tables)
	}
	// Five runs each: the interval is their range, and runs this far
	// apart differ (Mann-Whitney U, p = 0.008).
	want := []string{"gpu-naive", "256x256", "gauss3", "0.00500 ±20%", "0.00200 ±0%", "2.50×"}
	if got := sec.Tables[0].Rows[0]; !slices.Equal(got, want) {
		t.Errorf("row = %q, want %q", got, want)
	}
	if sec := sectionLaunch([]*Host{{Slug: "c", Runs: []*Run{other}}}); len(sec.Tables) != 0 || len(sec.Plots) != 0 {
		t.Errorf("a host without the preset got %d tables, %d plots", len(sec.Tables), len(sec.Plots))
	}
}

// The tuning section takes each ry's best block, the overall best, the
// default configuration and gpu-shared from the tuning-tiled run.
func TestTuningTiledSection(t *testing.T) {
	mk := func(variant, tune, block string, ns float64) *Sample {
		return &Sample{Keys: map[string]string{"variant": variant, "size": "2048x2048", "filter": "gauss5", "block": block,
			"type": "f32", "ch": "1", "timing": "kernel-graph", "mem": "none", "cache": "hot", "opts": "default", "tune": tune},
			Values: map[string][]float64{"gpu-ns/op": {ns, ns * 1.01, ns * 0.99, ns * 1.02, ns}}}
	}
	run := &Run{Preset: "tuning-tiled", Config: map[string]string{"gpu-sms": "132"}, Samples: []*Sample{
		mk("gpu-tiled", "ry=1", "32x8", 9000), mk("gpu-tiled", "ry=1", "64x4", 8000),
		mk("gpu-tiled", "ry=8", "32x8", 6000), mk("gpu-tiled", "ry=4", "16x16", 5000),
		mk("gpu-shared", "default", "default", 15000),
	}}
	sec := sectionTuningTiled([]*Host{{Slug: "h", Title: "H", GPU: true, Runs: []*Run{run}}})
	if len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 1 {
		t.Fatalf("want one table of one row, got %+v", sec.Tables)
	}
	want := []string{"2048x2048", "gauss5", "0.00800 ±2%", "—", "0.00500 ±2%", "0.00600 ±2%", "ry=4 16x16 0.00500 ±2%", "0.00600 ±2%", "1.20×", "0.0150 ±2%", "3.00×"}
	if got := sec.Tables[0].Rows[0]; !slices.Equal(got, want) {
		t.Errorf("row = %q\nwant  %q", got, want)
	}
}

// Report 000's image-size table takes graph-replay columns from the
// host's launch-overhead run when there is one.
func TestImageSizeTableGraphColumns(t *testing.T) {
	mk := func(variant, timing string, ns float64) *Sample {
		return &Sample{Keys: map[string]string{"variant": variant, "size": "256x256", "filter": "gauss3", "block": "16x16",
			"type": "f32", "ch": "1", "timing": timing, "mem": "none", "cache": "hot", "opts": "default", "tune": "default", "border": "zero"},
			Values: map[string][]float64{"gpu-ns/op": {ns}}}
	}
	r000 := &Run{Preset: "000-image-size", Samples: []*Sample{mk("gpu-naive", "kernel", 5000)}}
	launch := &Run{Preset: "launch-overhead", Samples: []*Sample{mk("gpu-naive", "kernel-graph", 1500), mk("gpu-shared", "kernel-graph", 2500)}}
	for _, tt := range []struct {
		runs []*Run
		cols int
	}{{[]*Run{r000}, 7}, {[]*Run{r000, launch}, 9}} {
		sec := section000([]*Host{{Slug: "h", Title: "H", GPU: true, Runs: tt.runs}})
		tb := sec.Tables[0]
		if len(tb.Header) != tt.cols {
			t.Fatalf("%d runs: header %q, want %d columns", len(tt.runs), tb.Header, tt.cols)
		}
		if tt.cols == 9 {
			if got := tb.Rows[0][7:]; !slices.Equal(got, []string{"0.00150 ±∞", "0.00250 ±∞"}) {
				t.Errorf("256x256 graph cells %q", got)
			}
		}
	}
}

// The roofline section sets each Gaussian of every variant of the
// roofline run, or where there is none the tuning-tiled run, against
// min(peak, intensity x bandwidth) from the run's own configuration.
func TestRooflineSection(t *testing.T) {
	mk := func(variant, tune string, ns float64) *Sample {
		return &Sample{Keys: map[string]string{"variant": variant, "size": "4096x4096", "filter": "gauss3", "block": "32x8",
			"type": "f32", "ch": "1", "timing": "kernel-graph", "mem": "none", "cache": "hot", "opts": "default", "tune": tune},
			Values: map[string][]float64{"gpu-ns/op": {ns}}}
	}
	// 2*9*4096*4096 FLOP: 1000 GFLOP/s at 301990 ns, 500 at twice that.
	run := &Run{Preset: "tuning-tiled", Config: map[string]string{"gpu-copy-gbps": "1000", "gpu-peak-gflops": "10000"},
		Samples: []*Sample{mk("gpu-tiled", "ry=1", 400000), mk("gpu-tiled", "ry=8", 301990), mk("gpu-shared", "default", 603980)}}
	sec := sectionRoofline([]*Host{{Slug: "h", Title: "H", GPU: true, Runs: []*Run{run}}})
	if len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 1 || len(sec.Plots) != 1 {
		t.Fatalf("want one table of one row and a plot, got %+v", sec)
	}
	want := []string{"gauss3", "2.25", "2250", "memory", "500 (22%)", "1000 (44%)"}
	if got := sec.Tables[0].Rows[0]; !slices.Equal(got, want) {
		t.Errorf("row = %q\nwant  %q", got, want)
	}
	// X holds the point and the ridge (10 FLOP/byte); the roof bends there.
	p := sec.Plots[0]
	if !slices.Equal(p.XValue, []float64{2.25, 10}) || !slices.Equal(p.Series[0].Y, []float64{2250, 10000}) {
		t.Errorf("plot X %v, roof %v", p.XValue, p.Series[0].Y)
	}
	// The roof is a line; the measurements are markers at their own
	// intensity, named by their filter.
	if !p.Series[0].LineOnly || !p.Series[1].Markers || !p.Series[2].Markers {
		t.Errorf("roof drawn as markers or measurements joined: %+v", p.Series)
	}
	if l := p.Series[1].Labels; len(l) != 2 || l[0] != "gauss3" || l[1] != "" {
		t.Errorf("gpu-shared point labels %q, want gauss3 at the point and none at the ridge", l)
	}
	roofline := &Run{Preset: "roofline", Config: run.Config,
		Samples: []*Sample{mk("gpu-tiled", "default", 301990), mk("gpu-regtile", "default", 200000), mk("gpu-sepfused", "default", 100000)}}
	sec = sectionRoofline([]*Host{{Slug: "h", Title: "H", GPU: true, Runs: []*Run{run, roofline}}})
	var names []string
	for _, s := range sec.Plots[0].Series {
		names = append(names, s.Name)
	}
	if want := []string{"H roof", "H gpu-regtile", "H gpu-sepfused", "H gpu-tiled"}; !slices.Equal(names, want) {
		t.Errorf("with a roofline run, series %q, want %q", names, want)
	}
	if sec := sectionRoofline([]*Host{{Slug: "c", Runs: []*Run{{Preset: "default"}}}}); len(sec.Tables)+len(sec.Plots) != 0 {
		t.Errorf("a host without tuning-tiled got a roofline")
	}
}

// committed is the report of the committed data, built once for the
// tests that read it and do not change it.
var committed struct {
	once sync.Once
	r    *Report
	err  error
}

func committedReport(t *testing.T) *Report {
	t.Helper()
	committed.once.Do(func() { committed.r, committed.err = Build("data") })
	if committed.err != nil {
		t.Fatal(committed.err)
	}
	return committed.r
}

// A merged run's measured copy bandwidth is the median of its shards'
// values; the sample keeps its own shard's, and a run measured once keeps
// its one value.
func TestReadRunMergedCopyBandwidth(t *testing.T) {
	shard := func(k int, gbps string) string {
		return "# sweep roofline.shard-" + strconv.Itoa(k) + "-of-3\ngpu: G\ngpu-copy-gbps: " + gbps + "\n" +
			"BenchmarkConv/variant=v" + strconv.Itoa(k) + "/size=64x64/filter=dense3/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default \t1\t1000 ns/op\n"
	}
	tests := []struct {
		file      string
		want      string
		wantShard map[string]string
	}{
		{shard(1, "3000") + shard(2, "2900.5") + shard(3, "2950"), "2950", map[string]string{"v1": "3000", "v2": "2900.5", "v3": "2950"}},
		{shard(1, "3000") + shard(2, "2900"), "2950", map[string]string{"v1": "3000", "v2": "2900"}},
		// Two shards that measured alike count twice.
		{shard(1, "3000") + shard(2, "2900") + shard(3, "2900"), "2900", map[string]string{"v1": "3000", "v2": "2900", "v3": "2900"}},
		{shard(1, "3000.25"), "3000.25", map[string]string{"v1": "3000.25"}},
	}
	for _, tt := range tests {
		run, err := ReadRun(strings.NewReader(tt.file), "x/nvidia-g/roofline.txt")
		if err != nil {
			t.Fatal(err)
		}
		if got := run.Config["gpu-copy-gbps"]; got != tt.want {
			t.Errorf("run gpu-copy-gbps = %q, want %q", got, tt.want)
		}
		for _, s := range run.Samples {
			if got, want := s.Config["gpu-copy-gbps"], tt.wantShard[s.Keys["variant"]]; got != want {
				t.Errorf("sample %s gpu-copy-gbps = %q, want %q", s.Keys["variant"], got, want)
			}
		}
	}
	if _, err := ReadRun(strings.NewReader(shard(1, "fast")), "x/nvidia-g/roofline.txt"); err == nil || !strings.Contains(err.Error(), `"gpu-copy-gbps: fast"`) {
		t.Errorf("a copy bandwidth that is not a number: error %v, want one naming the line", err)
	}
}

// Time returns the median time (ns) of the first run of h holding exactly
// one sample matching q.
func (h *Host) Time(q Q) (float64, bool) {
	s := h.Sample(q)
	if s == nil {
		return 0, false
	}
	return s.Time()
}
