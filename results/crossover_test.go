package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables/crossover"
)

// crossoverLine is one result line of preset crossover.
func crossoverLine(variant, size, filter string, ns float64) string {
	k := strings.TrimLeft(filter, "abcdefghijklmnopqrstuvwxyz")
	return fmt.Sprintf("BenchmarkConv/variant=%s/size=%s/filter=%s/k=%s/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default \t1\t%g ns/op\t%g gpu-ns/op\n",
		variant, size, filter, k, ns, ns)
}

// testAutoPaths is the auto-paths line of the synthetic run: auto takes
// neither TF32 nor bfloat16 path, auto-bf16 both.
const testAutoPaths = "auto-paths: auto=gpu-regtile,gpu-tiled,gpu-sepfused,gpu-tc-3xtf32,gpu-fft; auto-bf16=gpu-regtile,gpu-tiled,gpu-sepfused,gpu-tc-3xtf32,gpu-tc-tf32,gpu-tc-bf16,gpu-fft\n"

// syntheticCrossover is a crossover run of GPU "Test GPU" at commit
// 1234567: each case's times, in ns, runs times over (the i-th run 0.1%
// slower than the one before).
func syntheticCrossover(runs int, times map[[3]string]float64) string {
	var b strings.Builder
	b.WriteString("# convbench sweep crossover, commit 1234567890abcdef1234567890abcdef12345678, command: test\n")
	b.WriteString("gpu: Test GPU\ngpu-copy-gbps: 1000\ngpu-peak-gflops: 10000\ncrossover: no table for Test GPU: auto's heuristic\n")
	b.WriteString(testAutoPaths)
	var keys [][3]string
	for k := range times {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [3]string) int { return strings.Compare(a[0]+a[1]+a[2], b[0]+b[1]+b[2]) })
	for r := 0; r < runs; r++ {
		for _, k := range keys {
			b.WriteString(crossoverLine(k[0], k[1], k[2], times[k]*(1+0.001*float64(r))))
		}
	}
	// Two auto cases say which path they ran.
	for _, vp := range [][2]string{{"auto", "gpu-tc-3xtf32"}, {"auto-bf16", "gpu-tc-bf16"}} {
		fmt.Fprintf(&b, "# setting variant=%s/size=4096x4096/filter=dense31/k=31/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default: config: block=32x4 rx=2, path %s, crossover (test)\n", vp[0], vp[1])
	}
	// A case that failed its gate leaves a FAIL line and no result.
	b.WriteString("--- FAIL: BenchmarkConv/variant=gpu-bad/size=4096x4096/filter=dense3/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default\n")
	return b.String()
}

var crossoverTimes = map[[3]string]float64{
	{"gpu-regtile", "4096x4096", "dense3"}:    60000,
	{"gpu-tiled", "4096x4096", "dense3"}:      75000,
	{"cudnn", "4096x4096", "dense3"}:          120000,
	{"npp", "4096x4096", "dense3"}:            300000,
	{"auto", "4096x4096", "dense3"}:           61000, // within 1.1x
	{"gpu-regtile", "4096x4096", "dense31"}:   4000000,
	{"gpu-tc-3xtf32", "4096x4096", "dense31"}: 300000,
	{"gpu-fft", "4096x4096", "dense31"}:       350000,
	{"cudnn-tf32", "4096x4096", "dense31"}:    200000,
	{"auto", "4096x4096", "dense31"}:          400000, // 1.33x the fastest path
	{"gpu-tc-bf16", "4096x4096", "dense31"}:   250000, // faster, but not a path auto may take
	{"auto-bf16", "4096x4096", "dense31"}:     260000, // 1.04x gpu-tc-bf16, a path it may take
	{"auto-bf16", "4096x4096", "dense3"}:      70000,  // 1.16x gpu-regtile
	{"gpu-sepfused", "4096x4096", "gauss7"}:   50000,
	{"gpu-regtile", "4096x4096", "gauss7"}:    90000,
	{"gpu-fft", "1024x1024", "dense63"}:       40000,
	{"auto", "1024x1024", "dense63"}:          46000, // 1.15x gpu-fft, a path auto may run
	{"gpu-regtile", "1024x1024", "dense63"}:   500000,
	{"gpu-regtile", "1024x1024", "dense45"}:   250000,
	{"gpu-regtile", "8192x8192", "dense3"}:    240000,
}

func readSynthetic(t *testing.T, runs int, times map[[3]string]float64, path string) *Run {
	t.Helper()
	r, err := ReadRun(strings.NewReader(syntheticCrossover(runs, times)), path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCrossoverTable(t *testing.T) {
	run := readSynthetic(t, 3, crossoverTimes, "data/test-gpu/crossover.txt")
	tab, err := CrossoverTable(run)
	if err != nil {
		t.Fatal(err)
	}
	if tab.GPU != "Test GPU" || tab.Run != "data/test-gpu/crossover.txt at 1234567" {
		t.Errorf("table GPU %q, run %q", tab.GPU, tab.Run)
	}
	got := map[string][]string{}
	for _, e := range tab.Entries {
		if err := e.Check(); err != nil {
			t.Error(err)
		}
		var vs []string
		for _, r := range e.Ranking {
			vs = append(vs, r.Variant)
		}
		got[e.Key()+" "+e.Case] = vs
	}
	want := map[string][]string{
		"large k=3 dense f32 4096x4096 dense3":     {"gpu-regtile", "gpu-tiled", "cudnn", "npp"},
		"large k=31 dense f32 4096x4096 dense31":   {"cudnn-tf32", "gpu-tc-bf16", "gpu-tc-3xtf32", "gpu-fft", "gpu-regtile"},
		"large k=7 separable f32 4096x4096 gauss7": {"gpu-sepfused", "gpu-regtile"},
		"medium k=63 dense f32 1024x1024 dense63":  {"gpu-fft", "gpu-regtile"},
		"medium k=45 dense f32 1024x1024 dense45":  {"gpu-regtile"},
		"huge k=3 dense f32 8192x8192 dense3":      {"gpu-regtile"},
	}
	if len(got) != len(want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("entry %s: ranking %v, want %v (auto never ranked, a failed case absent)", k, got[k], w)
		}
	}
	// The medians of the three runs: the middle one, 0.1% above the first.
	for _, e := range tab.Entries {
		if e.Case == "4096x4096 dense3" && math.Abs(e.Ranking[0].MedianNS-60060) > 1e-6 {
			t.Errorf("gpu-regtile 4096x4096 dense3 median %v ns, want 60060", e.Ranking[0].MedianNS)
		}
	}
	// The table round-trips and the auto variant's lookup finds its rows.
	data, err := tab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := crossover.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var set crossover.Set
	set.Add(back, "x.json")
	f, _ := convolve.Gaussian(7, 0)
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: convolve.Geometry{Width: 4000, Height: 3000, Channels: 1, Type: convolve.Float32}}
	if m, ok := crossover.Lookup(&set, "Test GPU", p, nil); !ok || m.Chosen.Variant != "gpu-sepfused" || !m.Exact {
		t.Errorf("lookup of a 4000x3000 gauss7 problem: %+v %v, want gpu-sepfused exact", m, ok)
	}
}

func TestCrossoverTableErrors(t *testing.T) {
	noGPU, err := ReadRun(strings.NewReader(crossoverLine("gpu-tiled", "4096x4096", "dense3", 1000)), "data/x/crossover.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CrossoverTable(noGPU); err == nil || !strings.Contains(err.Error(), "names no gpu") {
		t.Errorf("run without gpu: error %v", err)
	}
	other := readSynthetic(t, 1, map[[3]string]float64{{"gpu-tiled", "4096x4096", "box3"}: 1000}, "data/x/crossover.txt")
	if _, err := CrossoverTable(other); err == nil || !strings.Contains(err.Error(), "no case of preset crossover") {
		t.Errorf("run without crossover cases: error %v", err)
	}
	two := readSynthetic(t, 1, map[[3]string]float64{
		{"gpu-tiled", "4096x4096", "dense3"}: 1000, {"gpu-tiled", "3000x3000", "dense3"}: 900,
	}, "data/x/crossover.txt")
	if _, err := CrossoverTable(two); err == nil || !strings.Contains(err.Error(), "are both large k=3") {
		t.Errorf("two images of one class: error %v", err)
	}
}

func TestCrossoverSection(t *testing.T) {
	h := &Host{Slug: "test-gpu", Title: "Test GPU", GPU: true, Runs: []*Run{readSynthetic(t, 5, crossoverTimes, "data/test-gpu/crossover.txt")}}
	sec := sectionCrossover([]*Host{h})
	byID := map[string]*Table{}
	for _, tb := range sec.Tables {
		byID[tb.ID] = tb
	}
	winners := byID["crossover-winners-test-gpu"]
	if winners == nil {
		t.Fatalf("no winners table among %d tables", len(sec.Tables))
	}
	wantWinners := [][]string{
		{"1024x1024", "dense45", "gpu-regtile", "0.251 ±0%", "—", "—"},
		{"1024x1024", "dense63", "gpu-fft", "0.0401 ±0%", "gpu-regtile", "12.5×"},
		{"4096x4096", "dense3", "gpu-regtile", "0.0601 ±0%", "gpu-tiled", "1.25×"},
		{"4096x4096", "dense31", "cudnn-tf32", "0.200 ±0%", "gpu-tc-bf16", "1.25×"},
		{"8192x8192", "dense3", "gpu-regtile", "0.240 ±0%", "—", "—"},
		{"4096x4096", "gauss7", "gpu-sepfused", "0.0501 ±0%", "gpu-regtile", "1.80×"},
	}
	if !slices.EqualFunc(winners.Rows, wantWinners, slices.Equal) {
		t.Errorf("winners\n%q\nwant\n%q", winners.Rows, wantWinners)
	}
	peers := byID["crossover-peers-test-gpu"]
	if peers == nil {
		t.Fatal("no peers table")
	}
	if want := []string{"Size", "Filter", "Our fastest", "Time (ms)", "cudnn / ours", "cudnn-tf32 / ours", "gpu-fft / ours", "npp / ours", "npp-interior / ours"}; !slices.Equal(peers.Header, want) {
		t.Errorf("peers header %q, want %q", peers.Header, want)
	}
	wantPeers := map[string][]string{
		"4096x4096 dense3":  {"gpu-regtile", "0.0601 ±0%", "2.00×", "—", "—", "5.00×", "—"},
		"4096x4096 dense31": {"gpu-tc-bf16", "0.251 ±0%", "—", "0.800×", "1.40×", "—", "—"},
		"1024x1024 dense63": {"gpu-regtile", "0.501 ±0%", "—", "—", "0.0800×", "—", "—"},
	}
	for _, r := range peers.Rows {
		if w, ok := wantPeers[r[0]+" "+r[1]]; ok && !slices.Equal(r[2:], w) {
			t.Errorf("peers %s %s: %q, want %q", r[0], r[1], r[2:], w)
		}
	}
	auto := byID["crossover-auto-test-gpu"]
	if auto == nil {
		t.Fatal("no auto table")
	}
	wantAuto := [][]string{
		{"1024x1024", "dense63", "0.0461 ±0%", "—", "gpu-fft", "0.0401 ±0%", "1.15×", "no", "gpu-fft", "1.15×"},
		{"4096x4096", "dense3", "0.0611 ±0%", "—", "gpu-regtile", "0.0601 ±0%", "1.02×", "yes", "gpu-regtile", "1.02×"},
		{"4096x4096", "dense31", "0.401 ±0%", "gpu-tc-3xtf32", "gpu-tc-3xtf32", "0.301 ±0%", "1.33×", "no", "gpu-tc-bf16", "1.60×"},
	}
	if !slices.EqualFunc(auto.Rows, wantAuto, slices.Equal) {
		t.Errorf("auto\n%q\nwant\n%q", auto.Rows, wantAuto)
	}
	if !strings.Contains(auto.Caption, "as the run's configuration says: no table for Test GPU: auto's heuristic.") {
		t.Errorf("auto caption does not say where auto took its paths from: %s", auto.Caption)
	}
	bf16 := byID["crossover-auto-bf16-test-gpu"]
	if bf16 == nil {
		t.Fatal("no auto-bf16 table")
	}
	wantBF16 := [][]string{
		{"4096x4096", "dense3", "0.0701 ±0%", "—", "gpu-regtile", "0.0601 ±0%", "1.17×", "no", "gpu-regtile", "1.17×"},
		{"4096x4096", "dense31", "0.261 ±0%", "gpu-tc-bf16", "gpu-tc-bf16", "0.251 ±0%", "1.04×", "yes", "gpu-tc-bf16", "1.04×"},
	}
	if !slices.EqualFunc(bf16.Rows, wantBF16, slices.Equal) {
		t.Errorf("auto-bf16\n%q\nwant\n%q", bf16.Rows, wantBF16)
	}
	goal := byID["crossover-auto-goal"]
	if goal == nil || len(goal.Rows) != 2 {
		t.Fatalf("goal table %+v", goal)
	}
	wantGoal := [][]string{
		{"Test GPU", "auto", "3", "1 of 3", "1.33×", "4096x4096 dense31 (fastest gpu-tc-3xtf32)", "not met", "1.60×"},
		{"Test GPU", "auto-bf16", "2", "1 of 2", "1.17×", "4096x4096 dense3 (fastest gpu-regtile)", "not met", "1.17×"},
	}
	if !slices.EqualFunc(goal.Rows, wantGoal, slices.Equal) {
		t.Errorf("goal rows\n%q\nwant\n%q", goal.Rows, wantGoal)
	}
	starts := byID["crossover-starts-test-gpu"]
	if starts == nil {
		t.Fatal("no starts table")
	}
	wantStarts := [][]string{
		{"1024x1024", "45, 63", "none measured", "63"},
		{"4096x4096", "3, 31", "31", "—"},
		{"8192x8192", "3", "none measured", "none measured"},
	}
	if !slices.EqualFunc(starts.Rows, wantStarts, slices.Equal) {
		t.Errorf("starts\n%q\nwant\n%q", starts.Rows, wantStarts)
	}
	pg := byID["crossover-path-goals"]
	if pg == nil {
		t.Fatal("no path goal table")
	}
	wantGoals := [][]string{
		{"Test GPU", "gpu-tc-3xtf32 within 0.30 ms, dense K 31, 4096x4096", "0 of 1", "0.301 ms", "4096x4096 dense31", "not met"},
		{"Test GPU", "gpu-tc-3xtf32 as fast as gpu-regtile or faster, dense K ≥ 11", "1 of 1", "13.3×", "4096x4096 dense31", "met"},
		{"Test GPU", "gpu-tc-bf16 at least 2.0× as fast as gpu-regtile, dense K ≥ 21", "1 of 1", "16.0×", "4096x4096 dense31", "met"},
		{"Test GPU", "gpu-fft within 0.25 ms, dense K 21 to 63, 4096x4096", "0 of 1", "0.351 ms", "4096x4096 dense31", "not met"},
	}
	if !slices.EqualFunc(pg.Rows, wantGoals, slices.Equal) {
		t.Errorf("path goals\n%q\nwant\n%q", pg.Rows, wantGoals)
	}
	// Plots: time against K per family and size, every variant a series.
	var ids []string
	for _, p := range sec.Plots {
		ids = append(ids, p.ID)
		if !p.HasData() || !p.LogY {
			t.Errorf("plot %s: data %v, log y %v", p.ID, p.HasData(), p.LogY)
		}
	}
	wantIDs := []string{"crossover-test-gpu-dense-1024x1024", "crossover-test-gpu-dense-4096x4096", "crossover-test-gpu-dense-8192x8192", "crossover-test-gpu-gauss-4096x4096"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("plots %v, want %v", ids, wantIDs)
	}
	p := sec.Plots[1]
	if !slices.Equal(p.XValue, []float64{3, 31}) {
		t.Errorf("plot %s X %v, want K 3 and 31", p.ID, p.XValue)
	}
	for _, s := range p.Series {
		if s.Variant == "gpu-regtile" && (math.Abs(s.Y[0]-0.06012) > 1e-9 || math.Abs(s.Y[1]-4.008) > 1e-9) {
			t.Errorf("gpu-regtile plotted %v ms, want the medians of five runs, 0.06012 and 4.008", s.Y)
		}
	}
}

// tableOf returns the table of sec with the given ID, failing t without.
func tableOf(t *testing.T, sec *Section, id string) *Table {
	t.Helper()
	for _, tb := range sec.Tables {
		if tb.ID == id {
			return tb
		}
	}
	t.Fatalf("no table %s among %d", id, len(sec.Tables))
	return nil
}

// With three runs of each case no ratio can be tested: it is the ratio
// of the medians, and the caption says so.
func TestCrossoverSectionFewRuns(t *testing.T) {
	h := &Host{Slug: "g", Title: "G", GPU: true, Runs: []*Run{readSynthetic(t, 3, crossoverTimes, "data/g/crossover.txt")}}
	tb := tableOf(t, sectionCrossover([]*Host{h}), "crossover-winners-g")
	if !strings.Contains(tb.Caption, "untested") {
		t.Errorf("caption does not say the ratios are untested: %s", tb.Caption)
	}
	for _, r := range tb.Rows {
		if r[1] == "dense3" && r[0] == "4096x4096" && r[5] != "1.25×" {
			t.Errorf("runner-up ratio %q with 3 runs, want the medians' 1.25×", r[5])
		}
	}
}

// A run without an auto-paths line sets each auto variant against every
// path, and the table says so.
func TestCrossoverAutoWithoutPathsLine(t *testing.T) {
	text := strings.Replace(syntheticCrossover(5, crossoverTimes), testAutoPaths, "", 1)
	run, err := ReadRun(strings.NewReader(text), "data/g/crossover.txt")
	if err != nil {
		t.Fatal(err)
	}
	tb := tableOf(t, sectionCrossover([]*Host{{Slug: "g", Title: "G", GPU: true, Runs: []*Run{run}}}), "crossover-auto-g")
	if !strings.Contains(tb.Caption, "no auto-paths line names it") {
		t.Errorf("caption does not say the run names no paths: %s", tb.Caption)
	}
	for _, r := range tb.Rows {
		if r[1] == "dense31" && (r[4] != "gpu-tc-bf16" || r[6] != "1.60×") {
			t.Errorf("dense31 without the line: %q, want gpu-tc-bf16 at 1.60×", r)
		}
	}
}

func TestCrossoverSectionNoRun(t *testing.T) {
	hosts := []*Host{
		{Slug: "g", Title: "G", GPU: true, Runs: []*Run{{Preset: "roofline", Config: map[string]string{}}}},
		{Slug: "cpu", Title: "CPU (no GPU)", Runs: []*Run{readSynthetic(t, 1, crossoverTimes, "data/cpu/crossover.txt")}},
	}
	sec := sectionCrossover(hosts)
	if len(sec.Tables)+len(sec.Plots) != 0 {
		t.Errorf("section without a GPU crossover run has %d tables and %d plots", len(sec.Tables), len(sec.Plots))
	}
	md := string((&Report{Sections: []*Section{sec}}).Markdown())
	if !strings.Contains(md, "No stored run holds preset `crossover` yet.") {
		t.Errorf("report without a crossover run does not say so:\n%s", md)
	}
}

// TestCrossoverStartsHoldsToTheEnd: a path that wins at one K and loses
// at a larger one has not started to pay; one that wins from some K on
// has, from that K.
func TestCrossoverStartsHoldsToTheEnd(t *testing.T) {
	times := map[[3]string]float64{}
	for _, c := range []struct {
		size, filter   string
		direct, tensor float64
	}{
		{"4096x4096", "dense3", 10, 20}, {"4096x4096", "dense7", 30, 20}, {"4096x4096", "dense11", 40, 50},
		{"8192x8192", "dense3", 10, 20}, {"8192x8192", "dense7", 30, 40}, {"8192x8192", "dense11", 60, 50}, {"8192x8192", "dense21", 90, 70},
	} {
		times[[3]string{"gpu-regtile", c.size, c.filter}] = c.direct * 1000
		times[[3]string{"gpu-tc-tf32", c.size, c.filter}] = c.tensor * 1000
	}
	h := &Host{Slug: "g", Title: "G", GPU: true, Runs: []*Run{readSynthetic(t, 5, times, "data/g/crossover.txt")}}
	run := crossoverRun(h)
	got := crossoverStarts(h, "run", readCrossover(run))
	want := [][]string{
		{"4096x4096", "3, 7, 11", "—", "none measured"},
		{"8192x8192", "3, 7, 11, 21", "11", "none measured"},
	}
	if got == nil || !slices.EqualFunc(got.Rows, want, slices.Equal) {
		t.Errorf("starts %+v, want rows %q", got, want)
	}
}

func TestParseSetting(t *testing.T) {
	name := "variant=auto/size=64x64/filter=dense3/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel-graph/mem=none/opts=default"
	st, ok, err := parseSetting("# setting " + name + ": config: block=32x4, path gpu-regtile, heuristic")
	if err != nil || !ok || st.Keys["variant"] != "auto" || st.Keys["size"] != "64x64" || st.Note != "config: block=32x4, path gpu-regtile, heuristic" {
		t.Errorf("parseSetting: %+v, %v, %v", st, ok, err)
	}
	for _, line := range []string{
		"# setting " + name + " without a note",
		"# setting size: config: block=32x4",
	} {
		if _, _, err := parseSetting(line); err == nil {
			t.Errorf("parseSetting(%q) succeeded", line)
		}
	}
	if _, ok, err := parseSetting("# variant gpu-sepfused: left out"); ok || err != nil {
		t.Errorf("another comment line: %v, %v", ok, err)
	}
}
