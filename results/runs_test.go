package results

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/internal/golden"
)

// localData is a user's run as make bench leaves it: a CPU sweep of
// cpu-naive and cpu-fast over two sizes, -count 3.
const localData = "testdata/local"

func localReport(t *testing.T) *Report {
	t.Helper()
	r, err := Build(localData)
	if err != nil {
		t.Fatal(err)
	}
	r.DataName = "results/" + localData
	return r
}

// The report of a user's runs opens with them, before the hosts and the
// reports' published figures: each case's median and interval, whether
// its runs agree, and the plot of its time against the axis it varied.
func TestLocalReportGolden(t *testing.T) {
	md := string(localReport(t).Markdown())
	head, _, ok := strings.Cut(md, "## Hosts\n")
	if !ok {
		t.Fatalf("report has no hosts list:\n%s", md)
	}
	golden.Check(t, filepath.Join(localData, "report-head.md"), []byte(head))
	if i, j := strings.Index(md, "## Run `custom-"), strings.Index(md, "## Report 000"); i < 0 || j < i {
		t.Errorf("the run's section (at %d) does not come before report 000's (at %d)", i, j)
	}
}

// The committed report is not a user's: it does not open with its runs.
func TestCommittedReportNotLocal(t *testing.T) {
	r := committedReport(t)
	if r.Local() {
		t.Fatal("the committed report counts as local")
	}
	if md := string(r.Markdown()); strings.Contains(md, "## Run `") {
		t.Errorf("the committed report has a run section")
	}
}

// A local report's files hold the plot of each run.
func TestLocalReportFiles(t *testing.T) {
	files, err := localReport(t).Files()
	if err != nil {
		t.Fatal(err)
	}
	const plot = "plots/run-cpu-amd-epyc-custom-87b04cb8.svg"
	if _, ok := files[filepath.FromSlash(plot)]; !ok {
		t.Errorf("no %s among %d files", plot, len(files))
	}
	if !bytes.Contains(files["README.md"], []byte("]("+plot+")")) {
		t.Errorf("README.md does not show %s", plot)
	}
}

func sample(keys map[string]string, times, cis []float64) *Sample {
	k := map[string]string{}
	for _, key := range nameKeys {
		k[key] = "none"
	}
	for key, v := range keys {
		k[key] = v
	}
	s := &Sample{Keys: k, Values: map[string][]float64{"ns/op": times}}
	if cis != nil {
		s.Values["median-ci95-%"] = cis
	}
	return s
}

// Runs agree when one time lies in every run's own interval, and not when
// two intervals are apart, however narrow each is.
func TestAgreement(t *testing.T) {
	tests := []struct {
		name       string
		times, cis []float64
		want       Agreement
	}{
		{"overlapping", []float64{100, 102, 99}, []float64{3, 2, 2}, agree},
		{"apart by 85%", []float64{100, 185, 101}, []float64{1, 1, 1}, disagree},
		{"just apart", []float64{100, 103}, []float64{1, 1}, disagree},
		{"one run", []float64{100}, []float64{1}, unknown},
		{"no intervals", []float64{100, 185}, nil, unknown},
	}
	for _, tt := range tests {
		if got := sample(nil, tt.times, tt.cis).Agreement("median-ci95-%"); got != tt.want {
			t.Errorf("%s: Agreement = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The table has a column for each axis the run varies and none for the
// others, which the caption names; the plot puts the first varying axis
// across and draws a line per variant and value of the other axes.
func TestRunAxes(t *testing.T) {
	r := &Run{Host: "h", Preset: "custom-1", Config: map[string]string{}}
	for _, v := range []string{"cpu-fast", "cpu-naive"} {
		for _, f := range []string{"gauss3", "gauss7"} {
			for _, typ := range []string{"u8", "f32"} {
				k := strings.TrimPrefix(f, "gauss")
				r.Samples = append(r.Samples, sample(map[string]string{"variant": v, "size": "256x256", "filter": f, "k": k, "type": typ, "border": "zero"},
					[]float64{1e6, 1.1e6}, []float64{1, 1}))
			}
		}
	}
	h := &Host{Slug: "h", Title: "Some CPU (no GPU)", Runs: []*Run{r}}
	tb := runTable(h, r, "")
	if got, want := strings.Join(tb.Header[:tb.Keys], ","), "filter,k,type,variant"; got != want {
		t.Errorf("key columns %s, want %s", got, want)
	}
	if !strings.Contains(tb.Caption, "size 256x256") || !strings.Contains(tb.Caption, "border zero") {
		t.Errorf("caption does not name the constant axes: %s", tb.Caption)
	}
	if len(tb.Rows) != 8 || !strings.HasPrefix(tb.Rows[0][len(tb.Rows[0])-1], "UNSTABLE") {
		t.Errorf("rows %q: want 8, each of runs 10%% apart at ±1%% UNSTABLE", tb.Rows)
	}
	if len(tb.Legend) != len(tb.Header)-tb.Keys {
		t.Errorf("%d legend lines for %d measurement columns", len(tb.Legend), len(tb.Header)-tb.Keys)
	}
	p := runPlot(h, r)
	if p.XLabel != "filter size K" || strings.Join(p.X, ",") != "3,7" {
		t.Errorf("plot across %q at %q, want filter size K at 3,7", p.XLabel, p.X)
	}
	var names []string
	for _, s := range p.Series {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, ", "), "cpu-fast gauss f32, cpu-fast gauss u8, cpu-naive gauss f32, cpu-naive gauss u8"; got != want {
		t.Errorf("series %s, want %s", got, want)
	}
}

// distinctCases keeps the first sample of each combination of the keys,
// ordered by them: sizes by pixels, other values in natural order.
func TestDistinctCases(t *testing.T) {
	smp := func(variant, size string) *Sample {
		return &Sample{Keys: map[string]string{"variant": variant, "size": size, "block": variant + size}}
	}
	in := []*Sample{smp("gpu-b", "1024x1024"), smp("gpu-a", "512x512"), smp("gpu-b", "1024x1024"), smp("gpu-a", "2048x2048"), smp("gpu-a10", "64x64"), smp("gpu-a2", "64x64")}
	var got []string
	for _, s := range distinctCases(in, "variant", "size") {
		got = append(got, s.Keys["variant"]+" "+s.Keys["size"])
	}
	want := []string{"gpu-a 512x512", "gpu-a 2048x2048", "gpu-a2 64x64", "gpu-a10 64x64", "gpu-b 1024x1024"}
	if !slices.Equal(got, want) {
		t.Errorf("distinctCases = %v, want %v", got, want)
	}
}

// keyValues lists each value of a key once, sizes by pixels and other
// values in natural order.
func TestKeyValues(t *testing.T) {
	var in []*Sample
	for _, kv := range [][2]string{{"1024x1024", "gauss11"}, {"64x64", "gauss3"}, {"1024x1024", "gauss3"}, {"100x2000", "box5"}} {
		in = append(in, &Sample{Keys: map[string]string{"size": kv[0], "filter": kv[1]}})
	}
	if got, want := keyValues(in, "size"), []string{"64x64", "100x2000", "1024x1024"}; !slices.Equal(got, want) {
		t.Errorf("sizes %v, want %v", got, want)
	}
	if got, want := keyValues(in, "filter"), []string{"box5", "gauss3", "gauss11"}; !slices.Equal(got, want) {
		t.Errorf("filters %v, want %v", got, want)
	}
}

func (a Agreement) String() string {
	switch a {
	case agree:
		return "agree"
	case disagree:
		return "disagree"
	}
	return "unknown"
}
