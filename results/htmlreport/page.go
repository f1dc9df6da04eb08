package htmlreport

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"html"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
)

//go:embed assets/report.css assets/report.js
var assets embed.FS

// The files of the page, by path relative to the report's directory.
const (
	IndexFile  = "index.html"
	StyleFile  = "report.css"
	ScriptFile = "report.js"
)

// Files returns the page of report r by path relative to the report's
// directory: index.html, report.css and report.js. Beside them the page
// links only the Markdown report's plots/ and gallery/.
func Files(r *results.Report) (map[string][]byte, error) {
	p := newPage(r)
	index, err := p.render()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{IndexFile: index}
	for name, f := range map[string]string{StyleFile: "assets/report.css", ScriptFile: "assets/report.js"} {
		b, err := assets.ReadFile(f)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// Write writes the page of report r (Files) under dir.
func Write(r *results.Report, dir string) error {
	files, err := Files(r)
	if err != nil {
		return err
	}
	return results.WriteFiles(dir, files)
}

// A hostRun is one stored run and its host.
type hostRun struct {
	h *results.Host
	r *results.Run
}

// id is the run's name in the page and in links: "<host>/<preset>".
func (hr hostRun) id() string { return hr.h.Slug + "/" + hr.r.Preset }

// view is the id of the run's own view.
func (hr hostRun) view() string { return "run-" + hr.h.Slug + "-" + hr.r.Preset }

// page builds the HTML of one report.
type page struct {
	r           *results.Report
	runs        []hostRun                  // every run with a case, in the page's order
	variants    map[string]bool            // the variants the runs measured
	facetValues map[string]map[string]bool // per facet, the values of its tables' columns
	ids         map[string]int             // element ids given out, to keep them unique
	b           bytes.Buffer
}

func newPage(r *results.Report) *page {
	p := &page{r: r, variants: map[string]bool{}, facetValues: map[string]map[string]bool{}, ids: map[string]int{}}
	for _, h := range r.Hosts {
		for _, run := range h.Runs {
			if len(run.Samples) == 0 {
				continue
			}
			p.runs = append(p.runs, hostRun{h, run})
			for _, s := range run.Samples {
				p.variants[s.Keys["variant"]] = true
			}
		}
	}
	if r.Local() {
		// A user's runs, newest first, as the Markdown report opens with them.
		slices.SortStableFunc(p.runs, func(a, b hostRun) int { return b.r.Modified.Compare(a.r.Modified) })
	}
	return p
}

// dataName is how the report names the directory of its runs.
func (p *page) dataName() string {
	if p.r.DataName == "" {
		return "results/data"
	}
	return p.r.DataName
}

// A view is one screen of the page: its id (the URL fragment that
// shows it), its label and group in the navigation and its HTML.
type view struct {
	id, label, group string
	html             string
}

// render returns index.html.
func (p *page) render() ([]byte, error) {
	runGroup := "Runs"
	if p.r.Local() {
		runGroup = "Your runs"
	}
	overview := view{id: "overview", label: "Hosts and notes", group: "Report", html: p.overview()}
	runList := view{id: "runs", label: "Every run", group: runGroup, html: p.runList()}
	var runViews []view
	for _, hr := range p.runs {
		v := view{id: hr.view(), label: hr.r.Preset, group: "Runs on " + results.ShortHost(hr.h.Title), html: p.runView(hr)}
		if p.r.Local() {
			v.label, v.group = hr.r.Preset+" · "+results.ShortHost(hr.h.Title), runGroup
		}
		runViews = append(runViews, v)
	}
	views := slices.Concat([]view{overview, runList}, runViews)
	if p.r.Local() {
		views = slices.Concat(runViews, []view{runList, overview})
	}
	labels := map[string]int{}
	for _, s := range p.r.Sections {
		labels[navLabel(s.Title)]++
	}
	for _, s := range p.r.Sections {
		label := navLabel(s.Title)
		if labels[label] > 1 {
			label += " (" + s.ID + ")"
		}
		views = append(views, view{id: s.ID, label: label, group: "Report", html: p.section(s)})
	}
	data, err := compareData(p.runs, p.dataName())
	if err != nil {
		return nil, err
	}
	views = append(views, view{id: "compare", label: "Compare two runs", group: "Compare", html: p.compareView()})

	b := &p.b
	title := "Benchmark report"
	if p.r.Local() {
		title += " of " + p.dataName()
	}
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n", esc(title))
	fmt.Fprintf(b, "<link rel=\"stylesheet\" href=\"%s\">\n</head>\n<body>\n", StyleFile)
	fmt.Fprintf(b, "<header class=\"top\">\n<h1>%s</h1>\n", esc(title))
	p.facetBar()
	b.WriteString("</header>\n<div class=\"frame\">\n<nav class=\"side\" aria-label=\"Views\">\n")
	group := ""
	for _, v := range views {
		if v.group != group {
			if group != "" {
				b.WriteString("</ul>\n")
			}
			group = v.group
			fmt.Fprintf(b, "<h2>%s</h2>\n<ul>\n", esc(group))
		}
		fmt.Fprintf(b, "<li><a href=\"#%s\" data-view=\"%s\">%s</a></li>\n", esc(v.id), esc(v.id), inline(v.label))
	}
	b.WriteString("</ul>\n</nav>\n<main>\n")
	for _, v := range views {
		// The element's id is not the fragment that shows it, so that the
		// browser does not scroll to it on its own.
		fmt.Fprintf(b, "<section class=\"view\" id=\"v-%s\" data-view=\"%s\" hidden>\n%s</section>\n", esc(v.id), esc(v.id), v.html)
	}
	b.WriteString("</main>\n</div>\n<div id=\"tip\" role=\"tooltip\" hidden></div>\n")
	fmt.Fprintf(b, "<script type=\"application/json\" id=\"compare-data\">%s</script>\n", data)
	fmt.Fprintf(b, "<script src=\"%s\"></script>\n</body>\n</html>\n", ScriptFile)
	return b.Bytes(), nil
}

// navLabel shortens a section's title to what precedes its colon.
func navLabel(title string) string {
	if i := strings.Index(title, ": "); i > 0 {
		return title[:i]
	}
	return title
}

// facetBar writes the page's facets: one menu of checkboxes each. It
// runs after the tables are rendered, to offer the values they hold.
func (p *page) facetBar() {
	b := &p.b
	b.WriteString("<form class=\"facets\" aria-label=\"Filters\" onsubmit=\"return false\">\n")
	var gpus [][2]string
	for _, h := range p.r.Hosts {
		gpus = append(gpus, [2]string{h.Slug, h.Title})
	}
	p.facet("gpu", "GPU", gpus)
	for _, f := range facetOrder[1:] {
		var opts [][2]string
		values := p.facetValues[f.name]
		if f.name == "variant" {
			values = p.variants
		}
		for _, v := range sortedValues(values) {
			opts = append(opts, [2]string{v, v})
		}
		p.facet(f.name, f.label, opts)
	}
	b.WriteString("<button type=\"button\" class=\"clear\" id=\"clear-facets\">Clear filters</button>\n</form>\n")
}

// facet writes one facet's menu: opts are value and label pairs.
func (p *page) facet(name, label string, opts [][2]string) {
	b := &p.b
	fmt.Fprintf(b, "<details class=\"facet\" data-facet=\"%s\"><summary>%s <span class=\"sel\">all</span></summary>\n<div class=\"opts\">", name, esc(label))
	if len(opts) == 0 {
		b.WriteString("<p>No table has this column.</p>")
	}
	for _, o := range opts {
		fmt.Fprintf(b, "<label><input type=\"checkbox\" value=\"%s\"> %s</label>", esc(o[0]), esc(o[1]))
	}
	b.WriteString("</div></details>\n")
}

// A facetDef is a key the page filters by: its name, its label and the
// column headers, in lower case, whose cells hold its values.
type facetDef struct {
	name, label string
	headers     []string
}

// facetOrder lists the facets in the order the page offers them.
var facetOrder = []facetDef{
	{"gpu", "GPU", []string{"gpu"}},
	{"variant", "Variant", []string{"variant", "our variant"}},
	{"filter", "Filter", []string{"filter"}},
	{"k", "K", []string{"k"}},
	{"type", "Type", []string{"type"}},
	{"timing", "Timing", []string{"timing"}},
	{"size", "Size", []string{"size", "image size"}},
}

// sortedValues returns the keys of m in natural order
// (results.NaturalCompare), as text among equals.
func sortedValues(m map[string]bool) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Or(results.NaturalCompare(a, b), strings.Compare(a, b)) })
}

// idUnsafe matches a character an element id does not keep.
var idUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// id returns a unique element id made of s.
func (p *page) id(s string) string {
	s = idUnsafe.ReplaceAllString(s, "-")
	n := p.ids[s]
	p.ids[s] = n + 1
	if n > 0 {
		return fmt.Sprintf("%s-%d", s, n+1)
	}
	return s
}

// overview is the report's opening: where its runs come from, how to
// read its numbers, and the hosts with their runs.
func (p *page) overview() string {
	var b strings.Builder
	b.WriteString("<h2>Hosts and notes</h2>\n")
	if p.r.Local() {
		fmt.Fprintf(&b, "<p>Generated by <code>go run ./results/cmd/report -data %s</code> from the raw runs under <code>%s/</code>; do not edit. It opens with each run there, newest first.</p>\n", esc(p.dataName()), esc(p.dataName()))
	} else {
		b.WriteString("<p>Generated by <code>make report</code> (<code>go run ./results/cmd/report</code>) from the raw runs under <code>results/data/</code>; do not edit. The same report as Markdown is <a href=\"README.md\">README.md</a>.</p>\n")
	}
	b.WriteString("<div class=\"notes\">\n")
	for _, l := range strings.Split(strings.TrimSpace(results.ReadingNotes()), "\n") {
		fmt.Fprintf(&b, "<p>%s</p>\n", inline(l))
	}
	b.WriteString("</div>\n<h3>Hosts</h3>\n")
	for _, h := range p.r.Hosts {
		fmt.Fprintf(&b, "<div class=\"host\" data-host=\"%s\">\n<h4>%s <code>%s</code></h4>\n", esc(h.Slug), esc(h.Title), esc(h.Slug))
		if len(h.Runs) > 0 {
			b.WriteString("<dl class=\"config\">")
			for _, kv := range h.Setup() {
				fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", esc(kv[0]), esc(kv[1]))
			}
			b.WriteString("</dl>\n")
		}
		b.WriteString("<ul>\n")
		for _, run := range h.Runs {
			hr := hostRun{h, run}
			fmt.Fprintf(&b, "<li><a href=\"#%s\"><code>%s</code></a>: %d cases", esc(hr.view()), esc(run.Preset), len(run.Samples))
			if c := run.Commit(); c != "" {
				fmt.Fprintf(&b, " at %s", esc(c))
			}
			b.WriteString(run.Caveats() + "</li>\n")
		}
		b.WriteString("</ul>\n</div>\n")
	}
	return b.String()
}

// runList is the table of every stored run: its host, preset, cases,
// commit and command.
func (p *page) runList() string {
	var b strings.Builder
	b.WriteString("<h2>Every run</h2>\n")
	fmt.Fprintf(&b, "<p>Each stored run under <code>%s/</code>: the host that ran it, its preset (the file name), how many cases it holds, the commit its binary was built from and the command that produced it, as the file's first lines say.</p>\n", esc(p.dataName()))
	t := &results.Table{ID: "runs", Title: "Stored runs", Header: []string{"GPU", "preset", "cases", "runs a case", "commit", "command"}, Keys: 2}
	for _, hr := range p.runs {
		cmd := hr.r.Command
		if cmd == "" {
			cmd = strings.TrimSpace(strings.TrimPrefix(hr.r.Header, "#"))
		}
		if len(cmd) > maxCommand {
			cmd = cmd[:maxCommand] + " …" // the run's view shows it whole
		}
		t.Rows = append(t.Rows, []string{hr.h.Title, "[" + hr.r.Preset + "](#" + hr.view() + ")", strconv.Itoa(len(hr.r.Samples)), runsPerCase(hr.r), results.OrMissing(hr.r.Commit()), "`" + cmd + "`"})
	}
	p.table(&b, t, "")
	return b.String()
}

// maxCommand is the most bytes of a run's command the list of runs shows.
const maxCommand = 200

// runsPerCase is how many runs (result lines) the run's cases have:
// "6", or "5–6" where they differ. The run has a case.
func runsPerCase(r *results.Run) string {
	var ns []int
	for _, s := range r.Samples {
		ns = append(ns, len(s.Values[s.TimeUnit()]))
	}
	if lo, hi := slices.Min(ns), slices.Max(ns); lo != hi {
		return fmt.Sprintf("%d–%d", lo, hi)
	}
	return strconv.Itoa(ns[0])
}

// runView is a run's own view: where it comes from, then its section
// (results.RunSection), without its plots outside a report of a user's
// runs: the report's sections plot the committed runs' cases.
func (p *page) runView(hr hostRun) string {
	var b strings.Builder
	s := results.RunSection(hr.h, hr.r, p.r.Baseline)
	if !p.r.Local() {
		s.Plots = nil
	}
	fmt.Fprintf(&b, "<h2>%s</h2>\n<dl class=\"run\" data-run=\"%s\">\n", inline(s.Title), esc(hr.id()))
	fmt.Fprintf(&b, "<dt>Host</dt><dd>%s (<code>%s</code>)</dd>\n", esc(hr.h.Title), esc(hr.h.Slug))
	fmt.Fprintf(&b, "<dt>File</dt><dd><code>%s/%s/%s.txt</code></dd>\n", esc(p.dataName()), esc(hr.h.Slug), esc(hr.r.Preset))
	fmt.Fprintf(&b, "<dt>Commit</dt><dd>%s</dd>\n", esc(results.OrMissing(hr.r.Commit())))
	if hr.r.Command != "" {
		fmt.Fprintf(&b, "<dt>Command</dt><dd><code class=\"cmd\">%s</code></dd>\n", esc(hr.r.Command))
	}
	fmt.Fprintf(&b, "<dt>First line</dt><dd><code class=\"cmd\">%s</code></dd>\n", esc(hr.r.Header))
	var cfg []string
	for k, v := range hr.r.Config {
		cfg = append(cfg, k+": "+v)
	}
	sort.Strings(cfg)
	if len(cfg) > 0 {
		fmt.Fprintf(&b, "<dt>Configuration</dt><dd><details><summary>%d lines</summary><pre>%s</pre></details></dd>\n", len(cfg), esc(strings.Join(cfg, "\n")))
	}
	if len(hr.r.Failures) > 0 {
		fmt.Fprintf(&b, "<dt>Failed gates</dt><dd><pre>%s</pre></dd>\n", esc(strings.Join(hr.r.Failures, "\n")))
	}
	b.WriteString("</dl>\n")
	fmt.Fprintf(&b, "<p><a href=\"#compare?a=%s\">Compare this run with another</a></p>\n", esc(hr.id()))
	p.sectionBody(&b, s, p.r.Local())
	return b.String()
}

// section is one section of the Markdown report as a view.
func (p *page) section(s *results.Section) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<h2>%s</h2>\n", inline(s.Title))
	if len(s.Tables) == 0 && len(s.Plots) == 0 && len(s.Timelines) == 0 {
		fmt.Fprintf(&b, "<p>No stored run holds preset <code>%s</code> yet.</p>\n", esc(s.Report))
	}
	p.sectionBody(&b, s, true)
	return b.String()
}

// sectionBody writes a section's plots, timelines, notes and tables, in
// the Markdown report's order; where svg is true the plots link the SVG
// files the Markdown report shows.
func (p *page) sectionBody(b *strings.Builder, s *results.Section, svg bool) {
	for _, pl := range s.Plots {
		if pl.HasData() {
			p.plot(b, pl, svg)
		}
	}
	for _, t := range s.Timelines {
		if t.HasData() {
			fmt.Fprintf(b, "<figure class=\"timeline\" id=\"%s\"><figcaption>%s</figcaption><img src=\"plots/%s.svg\" alt=\"%s\"></figure>\n",
				p.id("p-"+t.ID), inline(t.Title), esc(t.ID), esc(t.Title))
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", inline(n))
	}
	for _, t := range s.Tables {
		p.table(b, t, p.hostOf(t.ID))
	}
}

// hostOf returns the slug of the host whose table or plot id names it
// ("floors-dense-nvidia-h200"), or "".
func (p *page) hostOf(id string) string {
	return p.hostWhere(func(h *results.Host) bool {
		return strings.HasSuffix(id, "-"+h.Slug) || strings.Contains(id, "-"+h.Slug+"-")
	})
}

// hostWhere returns the longest slug of the hosts that match accepts, or "".
func (p *page) hostWhere(match func(*results.Host) bool) string {
	best := ""
	for _, h := range p.r.Hosts {
		if match(h) && len(h.Slug) > len(best) {
			best = h.Slug
		}
	}
	return best
}

// A column's role in the page's filters.
type column struct {
	facet   string // the facet its cells hold the values of, or ""
	variant string // the variant whose column it is ("gpu-const (ms, share)"), or ""
}

// columns finds each column's role: a facet's, where its header names
// the facet or all its cells are variants; else a variant's, where its
// header opens with the variant's name.
func (p *page) columns(t *results.Table) []column {
	cols := make([]column, len(t.Header))
	for c, h := range t.Header {
		lh := strings.ToLower(strings.TrimSpace(h))
		for _, f := range facetOrder {
			if slices.Contains(f.headers, lh) {
				cols[c].facet = f.name
			}
		}
		if cols[c].facet != "" {
			continue
		}
		var cells []string
		for _, r := range t.Rows {
			if c < len(r) && r[c] != "—" && r[c] != "" {
				cells = append(cells, strings.Trim(r[c], "`"))
			}
		}
		if len(cells) > 0 && !slices.ContainsFunc(cells, func(v string) bool { return !p.variants[v] }) {
			cols[c].facet = "variant"
			continue
		}
		for v := range p.variants {
			if (h == v || strings.HasPrefix(h, v+" ")) && len(v) > len(cols[c].variant) {
				cols[c].variant = v
			}
		}
	}
	return cols
}

// table writes one table: its heading, caption, row filter, the table
// in a box that scrolls, and its legend; host is the slug of its host,
// or "".
func (p *page) table(b *strings.Builder, t *results.Table, host string) {
	cols := p.columns(t)
	fmt.Fprintf(b, "<div class=\"tblock\" id=\"%s\"%s>\n<h3>%s</h3>\n", p.id("t-"+t.ID), attr("data-host", host), inline(t.Title))
	if t.Caption != "" {
		fmt.Fprintf(b, "<p class=\"caption\">%s</p>\n", inline(t.Caption))
	}
	fmt.Fprintf(b, "<div class=\"ttools\"><input type=\"search\" class=\"rowfilter\" placeholder=\"Filter rows\" aria-label=\"Filter the rows of %s\"><span class=\"count\" aria-live=\"polite\"></span></div>\n", esc(plain(t.Title)))
	fmt.Fprintf(b, "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"%s\">\n<table class=\"data\">\n<thead><tr>", esc(plain(t.Title)))
	keys := max(t.Keys, 1)
	for c, h := range t.Header {
		class := ""
		if c < keys {
			class = " class=\"key\""
		}
		fmt.Fprintf(b, "<th scope=\"col\"%s%s%s aria-sort=\"none\"><button type=\"button\" title=\"Sort by this column\">%s</button></th>",
			class, attr("data-facet", cols[c].facet), attr("data-variant", cols[c].variant), inline(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for c := range t.Header {
			cell := "—"
			if c < len(r) {
				cell = r[c]
			}
			if f := cols[c].facet; f != "" && f != "gpu" && cell != "—" {
				if p.facetValues[f] == nil {
					p.facetValues[f] = map[string]bool{}
				}
				p.facetValues[f][strings.Trim(cell, "`")] = true
			}
			// Cells and rows close where the next opens, as HTML allows.
			fmt.Fprintf(b, "<td>%s", inline(cell))
		}
		b.WriteString("\n")
	}
	b.WriteString("</tbody>\n</table>\n</div>\n")
	if len(t.Legend) > 0 {
		b.WriteString("<ul class=\"legend\">\n")
		for _, l := range t.Legend {
			fmt.Fprintf(b, "<li>%s</li>\n", inline(l))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</div>\n")
}

// compareView is the skeleton of the compare view; the script fills it
// from the compare data.
func (p *page) compareView() string {
	var b strings.Builder
	b.WriteString("<h2>Compare two runs</h2>\n")
	fmt.Fprintf(&b, "<p>Any two stored runs, case by case, as <code>make compare OLD=a.txt NEW=b.txt</code> compares them: cases pair by the keys of their names (a key a stored name lacks takes the value its absence implies), whichever host ran them; each case&#39;s time is the one the report reads (<code>gpu-ns/op</code> for GPU kernels, <code>total-ns/op</code> for pipelines, else <code>ns/op</code>). A median&#39;s interval is benchmath&#39;s at %.0f%%, distribution-free; a change is called where the Mann-Whitney U test of the two runs gives p ≤ 0.05, and is <code>~</code> otherwise.</p>\n", 100*runfile.Confidence)
	b.WriteString("<div class=\"pick\">\n<label>Base run (A) <select id=\"cmp-a\"></select></label>\n<button type=\"button\" id=\"cmp-swap\" title=\"Swap A and B\">⇄</button>\n<label>Run compared with it (B) <select id=\"cmp-b\"></select></label>\n</div>\n")
	b.WriteString("<div id=\"cmp-runs\" class=\"cmp-runs\"></div>\n<p id=\"cmp-summary\" class=\"summary\" aria-live=\"polite\"></p>\n<div id=\"cmp-table\"></div>\n")
	return b.String()
}

// esc escapes text for HTML.
func esc(s string) string { return html.EscapeString(s) }

// attr is the attribute name="v", or "" where v is empty.
func attr(name, v string) string {
	if v == "" {
		return ""
	}
	return " " + name + "=\"" + esc(v) + "\""
}

// mdInline matches the Markdown the report's text uses: a code span
// (group 1) or a link (groups 2 and 3).
var mdInline = regexp.MustCompile("`([^`]*)`|" + `\[([^\]]+)\]\(([^)\s]+)\)`)

// inline renders the report's code spans and links as HTML, escaping
// everything else.
func inline(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range mdInline.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(esc(s[last:m[0]]))
		if m[2] >= 0 {
			b.WriteString("<code>" + esc(s[m[2]:m[3]]) + "</code>")
		} else {
			b.WriteString("<a href=\"" + esc(s[m[6]:m[7]]) + "\">" + inline(s[m[4]:m[5]]) + "</a>")
		}
		last = m[1]
	}
	return b.String() + esc(s[last:])
}

// plain is Markdown text without its code marks, for attributes.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }
