package htmlreport

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convbench/convbench/internal/golden"
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchmath"
)

// fixtures are two golden runs of a user: the same 17 cases of the
// default sweep (a subset of the committed H100 and H200 runs, five runs
// each), under testdata/data as make bench leaves them.
const fixtures = "testdata/data"

// fixtureReport is the report of the golden runs as a user's: the H200
// run is the newer, so that it opens the page.
func fixtureReport(t testing.TB) *results.Report {
	t.Helper()
	r, err := results.Build(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	r.DataName = "results/htmlreport/" + fixtures
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, h := range r.Hosts {
		for _, run := range h.Runs {
			run.Modified = at
			if h.Slug == "nvidia-h200" {
				run.Modified = at.Add(time.Hour)
			}
		}
	}
	return r
}

var committed struct {
	once sync.Once
	r    *results.Report
	err  error
}

// committedReport is the report of the committed runs, built once.
func committedReport(t testing.TB) *results.Report {
	t.Helper()
	committed.once.Do(func() { committed.r, committed.err = results.Build(filepath.Join("..", "data")) })
	if committed.err != nil {
		t.Fatal(committed.err)
	}
	return committed.r
}

// The page of the golden runs is what it was: index.html against its
// golden file, and the assets the package embeds.
func TestFixturePageGolden(t *testing.T) {
	files, err := Files(fixtureReport(t))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "index.html.golden"), files[IndexFile])
	for _, name := range []string{StyleFile, ScriptFile} {
		want, err := os.ReadFile(filepath.Join("assets", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(files[name], want) {
			t.Errorf("%s is not assets/%s", name, name)
		}
	}
	if len(files) != 3 {
		t.Errorf("Files: %d files, want index.html and its two assets", len(files))
	}
}

// The committed page is what the committed data produces, and the whole
// committed report, page, Markdown, plots and gallery, stays under 5 MB.
func TestCommittedPageUpToDate(t *testing.T) {
	files, err := Files(committedReport(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "report", name))
		if err != nil {
			t.Errorf("the committed report lacks %s (run make report): %v", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("report/%s is out of date with results/data: run make report", name)
		}
	}
	var total int64
	err = filepath.WalkDir(filepath.Join("..", "report"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 5 << 20
	t.Logf("results/report holds %.2f MB, index.html %.2f MB", float64(total)/(1<<20), float64(len(files[IndexFile]))/(1<<20))
	if total > limit {
		t.Errorf("results/report holds %d bytes, more than %d", total, limit)
	}
}

// The page names nothing outside itself but its assets, the plots and
// the gallery beside it, and anchors of its own views: it needs no
// network.
func TestPageSelfContained(t *testing.T) {
	files, err := Files(fixtureReport(t))
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[IndexFile])
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		u := m[1]
		ok := strings.HasPrefix(u, "#") || u == StyleFile || u == ScriptFile || u == "README.md" ||
			strings.HasPrefix(u, "plots/") || strings.HasPrefix(u, "gallery/")
		if !ok {
			t.Errorf("the page links %q", u)
		}
		if strings.HasPrefix(u, "#") {
			id, _, _ := strings.Cut(u[1:], "?")
			if !strings.Contains(page, `data-view="`+id+`"`) {
				t.Errorf("the page links #%s, which it lacks", id)
			}
		}
	}
	for _, asset := range []string{StyleFile, ScriptFile} {
		if bytes.Contains(files[asset], []byte("http://")) || bytes.Contains(files[asset], []byte("https://")) {
			t.Errorf("%s names a network address", asset)
		}
	}
}

// The compare data holds each case's median and interval and each
// shared case's p as benchmath computes them from the runs' values, and
// pairs cases by their keys as the compare command does.
func TestCompareData(t *testing.T) {
	r := fixtureReport(t)
	p := newPage(r)
	raw, err := compareData(p.runs, "d")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Keys  []string `json:"keys"`
		Dict  []string `json:"dict"`
		Alpha float64  `json:"alpha"`
		Runs  []struct {
			ID    string `json:"id"`
			Cases [][]json.RawMessage
		} `json:"runs"`
		Pairs []struct {
			A, B  int
			Cases [][3]float64
		} `json:"pairs"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 2 || d.Runs[0].ID != "nvidia-h200/default" || d.Runs[1].ID != "nvidia-h100-80gb-hbm3/default" {
		t.Fatalf("runs %+v: want the H200 run (newer) then the H100's", d.Runs)
	}
	if len(d.Pairs) != 1 || len(d.Pairs[0].Cases) != 17 {
		t.Fatalf("pairs %+v: want the two runs' 17 cases paired", d.Pairs)
	}
	th := benchmath.DefaultThresholds
	for _, c := range d.Pairs[0].Cases {
		sa, sb := p.runs[0].r.Samples[int(c[0])], p.runs[1].r.Samples[int(c[1])]
		for _, k := range d.Keys {
			if sa.Keys[k] != sb.Keys[k] {
				t.Errorf("paired %v with %v", sa.Keys, sb.Keys)
			}
		}
		a := benchmath.NewSample(slices.Clone(sa.Values[sa.TimeUnit()]), &th)
		b := benchmath.NewSample(slices.Clone(sb.Values[sb.TimeUnit()]), &th)
		if want := benchmath.AssumeNothing.Compare(a, b).P; c[2] != want {
			t.Errorf("p of %v = %v, want %v", sa.Keys, c[2], want)
		}
		var m float64
		if err := json.Unmarshal(d.Runs[0].Cases[int(c[0])][3], &m); err != nil {
			t.Fatal(err)
		}
		if want := benchmath.AssumeNothing.Summary(a, runfile.Confidence).Center; m != want {
			t.Errorf("median of %v = %v, want %v", sa.Keys, m, want)
		}
	}
}

func TestInline(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain <K> & more", "plain &lt;K&gt; &amp; more"},
		{"run `a<b>` then", "run <code>a&lt;b&gt;</code> then"},
		{"the [gallery](gallery/README.md).", `the <a href="gallery/README.md">gallery</a>.`},
		{"[`x`](#v)", `<a href="#v"><code>x</code></a>`},
		{"an [unclosed bracket and a ` lone tick", "an [unclosed bracket and a ` lone tick"},
	} {
		if got := inline(tt.in); got != tt.want {
			t.Errorf("inline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A column is a facet's where its header names the facet's key or all
// its cells are variants, and a variant's where its header opens with
// the variant's name.
func TestColumns(t *testing.T) {
	p := &page{variants: map[string]bool{"gpu-shared": true, "gpu-shared-rows": true, "npp": true}}
	tb := &results.Table{
		Header: []string{"K", "Size", "Winner", "gpu-shared (ms, share)", "gpu-shared-rows (ms, share)", "npp / ours", "Best share", "Type"},
		Rows:   [][]string{{"3", "4096x4096", "npp", "1", "2", "~", "40%", "f32"}, {"5", "8192x8192", "gpu-shared", "1", "2", "—", "30%", "u8"}},
	}
	want := []column{{facet: "k"}, {facet: "size"}, {facet: "variant"}, {variant: "gpu-shared"}, {variant: "gpu-shared-rows"}, {variant: "npp"}, {}, {facet: "type"}}
	if got := p.columns(tb); !slices.Equal(got, want) {
		t.Errorf("columns = %+v, want %+v", got, want)
	}
}

func TestNaturalLess(t *testing.T) {
	got := sortedValues(map[string]bool{"gauss11": true, "gauss3": true, "box5": true, "gauss5": true, "10": true, "9": true})
	want := []string{"9", "10", "box5", "gauss3", "gauss5", "gauss11"}
	if !slices.Equal(got, want) {
		t.Errorf("sortedValues = %q, want %q", got, want)
	}
}

func TestAxisTicks(t *testing.T) {
	lin := newAxis([]float64{3, 31}, false, 0, 100)
	if ticks := lin.ticks(); !slices.Equal(ticks, []float64{0, 5, 10, 15, 20, 25, 30}) {
		t.Errorf("linear ticks of 3..31: %v", ticks)
	}
	lg := newAxis([]float64{0.02, 300}, true, 0, 100)
	if ticks := lg.ticks(); !slices.Equal(ticks, []float64{0.1, 1, 10, 100}) && !slices.Equal(ticks, []float64{0.01, 0.1, 1, 10, 100}) {
		t.Errorf("log ticks of 0.02..300: %v", ticks)
	}
	if p := lg.pos(0.02); p < 0 || p > 100 || math.IsNaN(p) {
		t.Errorf("position of 0.02 on 0.02..300: %v", p)
	}
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "0"}, {1234.5, "1234"}, {0.01234, "0.01234"}, {2e7, "2e7"}, {1.5e-5, "1.5e-5"}} {
		if got := number(tt.v); got != tt.want {
			t.Errorf("number(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
