package htmlreport

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/convbench/convbench/results"
)

// screenshots is where the browser tests save their screenshots of the
// page: the user's run, the floors and the compare view. Empty: nowhere.
var screenshots = flag.String("screenshots", "", "directory the browser tests write their screenshots of the page to (docs/ keeps them)")

// The page is looked at as a person at a laptop sees it.
const viewW, viewH = 1280, 800

// browserNames are the programs tried, in order, for a headless browser:
// Debian's chromium first.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

// findBrowser returns the browser's path: $CONVBENCH_BROWSER, else the
// first of browserNames on the PATH. Without one the test skips, or
// fails where CONVBENCH_REQUIRE_BROWSER is set (as in CI).
func findBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CONVBENCH_BROWSER"); p != "" {
		return p
	}
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CONVBENCH_REQUIRE_BROWSER") != "" {
		t.Fatalf("no headless browser (%s) on the PATH, and CONVBENCH_REQUIRE_BROWSER is set", strings.Join(browserNames, ", "))
	}
	t.Skipf("no headless browser on the PATH (apt-get install chromium); CONVBENCH_REQUIRE_BROWSER=1 makes this a failure")
	return ""
}

var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
}

// tab opens a new tab of the one headless browser the tests share, sized
// viewW x viewH, and fails the test on any error the page logs or
// throws.
func tab(t *testing.T) context.Context {
	t.Helper()
	path := findBrowser(t)
	browser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
			chromedp.DisableGPU,
			chromedp.WindowSize(viewW, viewH),
			chromedp.Flag("allow-file-access-from-files", true),
		)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		browser.ctx = ctx
		browser.cancel = func() { cancel(); cancelAlloc() }
	})
	ctx, cancel := chromedp.NewContext(browser.ctx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		var p string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p = fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				p += " " + ev.ExceptionDetails.Exception.Description
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				p = fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("the page logged %s", p)
		}
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(viewW, viewH)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

// open loads the page at path in ctx, at the view of fragment, and
// waits until its script has run.
func open(t *testing.T, ctx context.Context, path, fragment string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: abs, Fragment: fragment}).String()
	if err := chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS(`html[data-ready="true"]`))); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// do runs actions in the page.
func do(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// screenshot saves the viewport as name under -screenshots, if set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if *screenshots == "" {
		return
	}
	// Let the page settle: no pointer over it, the last layout done.
	do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, viewH-1), chromedp.Sleep(100*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(*screenshots, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*screenshots, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rowsShown returns the text of the first cell of each row the table of
// element id shows, in order, and of the cells of the column headed col.
func rowsShown(t *testing.T, ctx context.Context, id, col string) []string {
	t.Helper()
	return eval[[]string](t, ctx, fmt.Sprintf(`(() => {
		const tb = document.getElementById(%q);
		const c = Array.from(tb.querySelectorAll('thead th')).findIndex((th) => th.textContent.trim() === %q);
		if (c < 0) return ['no column ' + %q];
		return Array.from(tb.querySelectorAll('tbody tr')).filter((r) => !r.hidden && r.offsetParent !== null).map((r) => r.cells[c].textContent.trim());
	})()`, id, col, col))
}

// pickFacet opens a facet's menu and ticks value, as a person would.
func pickFacet(t *testing.T, ctx context.Context, facet, value string) {
	t.Helper()
	box := fmt.Sprintf(`details.facet[data-facet=%q]`, facet)
	do(t, ctx,
		chromedp.Click(chromedp.CSS(box+" summary")),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`%s input[value=%q]`, box, value))),
		chromedp.Click(chromedp.CSS(box+" summary")),
	)
}

// writeReport writes the Markdown report and the page of r under a new
// directory and returns the page's path.
func writeReport(t *testing.T, r *results.Report) string {
	t.Helper()
	dir := t.TempDir()
	files, err := r.Files()
	if err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := Write(r, dir); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, IndexFile)
}

// A user's page opens with their newest run: its table, which the
// facets and a sort reorder, and its plot, whose points show their
// values under the pointer. Its compare view sets the two golden runs
// side by side with the ratio of each case.
func TestBrowserUserRuns(t *testing.T) {
	ctx := tab(t)
	r := fixtureReport(t)
	page := writeReport(t, r)
	open(t, ctx, page, "")

	if v := eval[string](t, ctx, `document.querySelector('section.view:not([hidden])').dataset.view`); v != "run-nvidia-h200-default" {
		t.Errorf("the page opens at view %q, want the newest run's, run-nvidia-h200-default", v)
	}
	const table = "t-run-nvidia-h200-default"
	variants := rowsShown(t, ctx, table, "variant")
	if len(variants) != 17 {
		t.Fatalf("the run's table shows %d rows, want its 17 cases: %q", len(variants), variants)
	}

	// The plot: one circle a case, each drawn inside the chart.
	var h200 *results.Host
	for _, h := range r.Hosts {
		if h.Slug == "nvidia-h200" {
			h200 = h
		}
	}
	pl := results.RunSection(h200, h200.Runs[0], "").Plots[0]
	want := 0
	for _, s := range pl.Drawn() {
		for i, y := range s.Y {
			if _, ok := pl.Point(i, y); ok {
				want++
			}
		}
	}
	drawn := eval[int](t, ctx, `(() => {
		const svg = document.querySelector('#v-run-nvidia-h200-default svg.chart');
		const box = svg.getBoundingClientRect();
		return Array.from(svg.querySelectorAll('g.s circle')).filter((c) => {
			const b = c.getBoundingClientRect();
			return b.width > 0 && b.height > 0 && b.left >= box.left && b.right <= box.right && b.top >= box.top && b.bottom <= box.bottom;
		}).length;
	})()`)
	if want != 17 || drawn != want {
		t.Errorf("the run's plot draws %d points within the chart, want %d (the plot data has %d)", drawn, 17, want)
	}
	// The pointer over a point shows its series and value.
	pt := eval[[]float64](t, ctx, `(() => {
		const c = document.querySelector('#v-run-nvidia-h200-default svg.chart g.s circle');
		const b = c.getBoundingClientRect();
		return [b.left + b.width / 2, b.top + b.height / 2];
	})()`)
	do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt[0], pt[1]))
	tipText := eval[string](t, ctx, `document.getElementById('tip').hidden ? '' : document.getElementById('tip').textContent`)
	s0 := pl.Drawn()[0]
	var y0 float64
	for i, y := range s0.Y {
		if _, ok := pl.Point(i, y); ok {
			y0 = y
			break
		}
	}
	if !strings.Contains(tipText, s0.Name) || !strings.Contains(tipText, number(y0)) {
		t.Errorf("the pointer on the first point shows %q, want its series %q and value %s", tipText, s0.Name, number(y0))
	}

	screenshot(t, ctx, "report-user-run.png")

	// Facets: a variant, then a K, keep the rows that have them.
	pickFacet(t, ctx, "variant", "gpu-shared")
	if got := rowsShown(t, ctx, table, "variant"); len(got) != 5 || slices.ContainsFunc(got, func(v string) bool { return v != "gpu-shared" }) {
		t.Errorf("variant gpu-shared: rows of %q, want gpu-shared's 5", got)
	}
	pickFacet(t, ctx, "k", "5")
	if got := rowsShown(t, ctx, table, "timing"); !slices.Equal(got, []string{"kernel", "total"}) {
		t.Errorf("variant gpu-shared, K 5: rows timed %q, want kernel and total", got)
	}
	do(t, ctx, chromedp.Click(chromedp.ID("clear-facets")))
	if got := rowsShown(t, ctx, table, "variant"); len(got) != 17 {
		t.Errorf("after clearing the filters the table shows %d rows, want 17", len(got))
	}
	// The row filter's text.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#"+table+" input.rowfilter"), "gauss11"))
	if got := rowsShown(t, ctx, table, "filter"); len(got) != 4 || slices.ContainsFunc(got, func(v string) bool { return v != "gauss11" }) {
		t.Errorf("rows filtered by gauss11: %q, want the 4 cases of gauss11", got)
	}
	eval[bool](t, ctx, fmt.Sprintf(`(() => {
		const i = document.querySelector('#%s input.rowfilter');
		i.value = '';
		return i.dispatchEvent(new Event('input'));
	})()`, table))

	// Sorts: by the median, up then down.
	sortBy := func() {
		do(t, ctx, chromedp.Click(chromedp.JSPath(fmt.Sprintf(`Array.from(document.querySelectorAll('#%s thead th button')).find((b) => b.textContent === 'median (ms)')`, table))))
	}
	medians := func() []float64 {
		var out []float64
		for _, c := range rowsShown(t, ctx, table, "median (ms)") {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				t.Fatalf("median cell %q: %v", c, err)
			}
			out = append(out, v)
		}
		return out
	}
	before := medians()
	sortBy()
	up := medians()
	if slices.Equal(up, before) || !slices.IsSorted(up) || len(up) != 17 {
		t.Errorf("sorted by median: %v (before %v), want increasing", up, before)
	}
	sortBy()
	down := medians()
	slices.Reverse(down)
	if !slices.Equal(down, up) {
		t.Errorf("sorted by median twice: %v, want the reverse of %v", down, up)
	}

	// The compare view of the two golden runs: each case's B / A is its
	// median on the H200 over its median on the H100.
	open(t, ctx, page, "compare?a=nvidia-h100-80gb-hbm3/default&b=nvidia-h200/default")
	ratios := eval[[][]string](t, ctx, `(() => {
		const tb = document.getElementById('t-compare');
		const head = Array.from(tb.querySelectorAll('thead th')).map((th) => th.textContent.trim());
		const at = (name) => head.indexOf(name);
		return Array.from(tb.querySelectorAll('tbody tr')).map((r) => [
			r.cells[at('variant')].textContent, r.cells[at('filter')].textContent, r.cells[at('timing')].textContent,
			r.cells[at('B / A')].textContent, r.cells[at('change')].textContent]);
	})()`)
	if len(ratios) != 17 {
		t.Fatalf("the compare view shows %d cases, want 17", len(ratios))
	}
	var a, b *results.Host
	for _, h := range r.Hosts {
		if h.Slug == "nvidia-h100-80gb-hbm3" {
			a = h
		} else {
			b = h
		}
	}
	found := 0
	for _, row := range ratios {
		q := results.Q{"variant": row[0], "filter": row[1], "timing": row[2]}
		ma, mb := a.Runs[0].Measure(q), b.Runs[0].Measure(q)
		if want := results.Sig(mb.Center()/ma.Center(), 3) + "×"; row[3] != want {
			t.Errorf("B / A of %v = %s, want %s", q, row[3], want)
		}
		// The change as benchstat and the compare command print it.
		if want := results.Compare(ma, mb).FormatDelta(ma.Center(), mb.Center()); row[4] != want {
			t.Errorf("change of %v = %s, want %s", q, row[4], want)
		}
		// Two cases of the golden runs, pinned.
		switch strings.Join(row[:3], " ") {
		case "gpu-shared gauss5 total":
			found++
			if row[3] != "0.898×" || row[4] != "-10.20%" {
				t.Errorf("gpu-shared gauss5 total: B / A %s, change %s; want 0.898× and -10.20%%", row[3], row[4])
			}
		case "gpu-shared gauss5 kernel":
			found++
			if row[3] != "1.00×" || row[4] != "~" {
				t.Errorf("gpu-shared gauss5 kernel: B / A %s, change %s; want 1.00× and ~", row[3], row[4])
			}
		}
	}
	if found != 2 {
		t.Errorf("the compare view lacks gpu-shared gauss5 kernel or total")
	}
	summary := eval[string](t, ctx, `document.getElementById('cmp-summary').textContent`)
	if !strings.HasPrefix(summary, "17 cases in both runs") {
		t.Errorf("compare summary %q", summary)
	}
}

// The committed page at 1280x800: the floors view with its plots and its
// wide tables, which scroll within their box while the page does not;
// the GPU facet keeps one GPU's tables; and the compare view of the two
// GPUs' roofline runs.
func TestBrowserCommittedPage(t *testing.T) {
	ctx := tab(t)
	page := filepath.Join("..", "report", IndexFile)
	if _, err := os.Stat(page); err != nil {
		t.Fatalf("no committed page (make report writes it): %v", err)
	}
	start := time.Now()
	open(t, ctx, page, "floors")
	t.Logf("loaded in %v", time.Since(start))
	if v := eval[string](t, ctx, `document.querySelector('section.view:not([hidden])').dataset.view`); v != "floors" {
		t.Fatalf("view %q shown, want floors", v)
	}
	// The plot of dense<K>: every point the page holds is drawn within
	// the chart (TestCommittedPageUpToDate holds the page to the data,
	// and TestBrowserUserRuns the points to the plot's).
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	fig := string(src[strings.Index(string(src), `<figure class="plot" id="p-floors-dense"`):])
	fig = fig[:strings.Index(fig, "</figure>")]
	want, h200 := strings.Count(fig, "<circle "), strings.Count(fig, `data-host="nvidia-h200" stroke=`)
	drawn := eval[int](t, ctx, `(() => {
		const svg = document.querySelector('#p-floors-dense svg.chart');
		const box = svg.getBoundingClientRect();
		return Array.from(svg.querySelectorAll('g.s circle')).filter((c) => {
			const b = c.getBoundingClientRect();
			return b.width > 0 && b.height > 0 && b.left >= box.left - 1 && b.right <= box.right + 1 && b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
		}).length;
	})()`)
	if want < 100 || drawn != want {
		t.Errorf("floors-dense draws %d points within its chart, want the page's %d", drawn, want)
	}
	layout := eval[map[string]float64](t, ctx, `(() => {
		const box = document.querySelector('#t-floors-dense-nvidia-h200 .scroll');
		const r = box.getBoundingClientRect();
		return {page: document.documentElement.scrollWidth, boxRight: r.right, boxScroll: box.scrollWidth, boxWidth: box.clientWidth};
	})()`)
	if layout["page"] > viewW {
		t.Errorf("the floors view is %v px wide, more than the window's %d", layout["page"], viewW)
	}
	if layout["boxRight"] > viewW || layout["boxScroll"] <= layout["boxWidth"] {
		t.Errorf("the dense<K> table's box ends at %v px and holds %v px in %v: want it in the window, scrolling", layout["boxRight"], layout["boxScroll"], layout["boxWidth"])
	}
	screenshot(t, ctx, "report-floors.png")

	pickFacet(t, ctx, "gpu", "nvidia-h200")
	hidden := eval[map[string]bool](t, ctx, `({
		h100: document.getElementById('t-floors-dense-nvidia-h100-80gb-hbm3').hidden,
		h200: document.getElementById('t-floors-dense-nvidia-h200').hidden})`)
	if !hidden["h100"] || hidden["h200"] {
		t.Errorf("GPU H200 picked: hidden %v, want the H100's table hidden and the H200's shown", hidden)
	}
	shown := eval[int](t, ctx, `Array.from(document.querySelectorAll('#p-floors-dense g.s')).filter((g) => getComputedStyle(g).display !== 'none').length`)
	if shown == 0 || shown != h200 {
		t.Errorf("GPU H200 picked: floors-dense shows %d series, want the H200's %d", shown, h200)
	}

	start = time.Now()
	open(t, ctx, page, "compare?a=nvidia-h100-80gb-hbm3/roofline&b=nvidia-h200/roofline")
	do(t, ctx, chromedp.Click(chromedp.ID("clear-facets")))
	t.Logf("compared in %v", time.Since(start))
	if got := eval[int](t, ctx, `document.querySelectorAll('#t-compare tbody tr').length`); got != 512 {
		t.Errorf("the compare view of the roofline runs shows %d cases, want 512", got)
	}
	layout = eval[map[string]float64](t, ctx, `({page: document.documentElement.scrollWidth})`)
	if layout["page"] > viewW {
		t.Errorf("the compare view is %v px wide, more than the window's %d", layout["page"], viewW)
	}
	screenshot(t, ctx, "report-compare.png")
}
