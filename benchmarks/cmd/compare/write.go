package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchunit"
)

// write prints the comparison: the files, what is compared and how,
// then one table a metric.
func (c *comparison) write(w io.Writer) error {
	var lines []string
	if c.col != "" {
		l := "runs of " + c.files[0].Path
		if h := c.files[0].host; h != "" {
			l += " (" + h + ")"
		}
		lines = append(lines, wrap(l, c.width)...)
		var others []string
		for _, f := range c.files[1:] {
			others = append(others, f.label)
		}
		lines = append(lines, wrap(fmt.Sprintf("A column per %s: %s, the base, then %s.", c.col, c.files[0].label, strings.Join(others, ", ")), c.width)...)
	}
	for _, f := range c.files {
		if c.col != "" {
			break
		}
		l := f.label + ": " + f.Path
		if f.host != "" {
			l += " (" + f.host + ")"
		}
		lines = append(lines, l)
	}
	ns := c.runCounts()
	lines = append(lines, wrap(c.scopeNote(ns), c.width)...)
	lines = append(lines, wrap(levelNote(runfile.Confidence, ns), c.width)...)
	lines = append(lines, wrap(testNote(c.files[0].label, ns), c.width)...)
	if n := c.keysNote(); n != "" {
		lines = append(lines, wrap(n, c.width)...)
	}
	for _, t := range c.tables {
		lines = append(lines, "")
		lines = append(lines, c.fit(t)...)
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, strings.TrimRight(l, " ")); err != nil {
			return err
		}
	}
	return nil
}

// scopeNote says which metrics and cases are compared.
func (c *comparison) scopeNote(ns []int) string {
	var b strings.Builder
	if c.all {
		b.WriteString("Every metric.")
	} else {
		b.WriteString("Time metrics only (-all compares every metric).")
	}
	base := c.files[0].label
	switch {
	case c.col != "":
		fmt.Fprintf(&b, " %d cases of %s=%s have a counterpart of another %s", c.paired, c.col, base, c.col)
	case len(c.files) == 2:
		fmt.Fprintf(&b, " %d cases are in both files", c.paired)
	default:
		fmt.Fprintf(&b, " %d cases of %s are in another file", c.paired, base)
	}
	var unpaired []string
	for i, n := range c.unpaired {
		switch {
		case n == 0:
		case c.col != "" && i == 0:
			unpaired = append(unpaired, fmt.Sprintf("%d of %s without one", n, base))
		case c.col != "":
			unpaired = append(unpaired, fmt.Sprintf("%d of %s without a counterpart of %s", n, c.files[i].label, base))
		case len(c.files) == 2:
			unpaired = append(unpaired, fmt.Sprintf("%d only in %s", n, c.files[i].label))
		case i == 0:
			unpaired = append(unpaired, fmt.Sprintf("%d of %s in no other", n, base))
		default:
			unpaired = append(unpaired, fmt.Sprintf("%d of %s not in %s", n, c.files[i].label, base))
		}
	}
	if len(unpaired) > 0 {
		fmt.Fprintf(&b, "; %s are not shown", strings.Join(unpaired, ", "))
	}
	b.WriteString(".")
	if len(c.unshared) > 0 {
		fmt.Fprintf(&b, " Left out for sharing no case with %s: %s=%s.", base, c.col, strings.Join(c.unshared, ", "))
	}
	switch {
	case len(ns) == 1 && c.col != "":
		fmt.Fprintf(&b, " Every case has %s.", runs(ns[0]))
	case len(ns) == 1:
		fmt.Fprintf(&b, " Every case has %s in each file.", runs(ns[0]))
	}
	return b.String()
}

// keysNote names the keys that no row shows: those every case shares
// and those every case leaves unset.
func (c *comparison) keysNote() string {
	var parts []string
	if len(c.common) > 0 {
		parts = append(parts, joinKeys(c.common))
	}
	if len(c.unset) > 0 {
		parts = append(parts, strings.Join(c.unset, ", ")+" at their default (none where a case has no such setting)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Every case has " + strings.Join(parts, ", and ") + "."
}

// A layout is where a table shows the keys that tell its cases apart.
type layout struct {
	title  []keyValue // keys the table's cases share but not every case
	cols   []string   // keys shown in the rows' columns
	groups []string   // keys shown in group lines above the rows
}

// fit lays t out in c.width if it can: with every key that tells its
// rows apart in a column if they fit, else with the fewest group lines
// (then the most columns) that fit, else moving keys from the columns
// into group lines until one column is left (layout.group).
func (c *comparison) fit(t *table) []string {
	lay := c.newLayout(t)
	lines := c.render(t, lay)
	if widest(lines) <= c.width {
		return lines
	}
	if best := c.fewestGroups(t, lay.cols); best != nil {
		lay.cols, lay.groups = best.cols, best.groups
		return c.render(t, lay)
	}
	for widest(lines) > c.width && len(lay.cols) > 1 {
		lay.group(t.rows)
		lines = c.render(t, lay)
	}
	return lines
}

// maxSearch is the most keys whose splits into columns and group lines
// fewestGroups tries.
const maxSearch = 12

// fewestGroups returns, of the splits of keys into columns and group
// lines that fit t in c.width, one with the fewest groups and then the
// most columns; nil if none fits or there are too many keys to try.
func (c *comparison) fewestGroups(t *table, keys []string) *layout {
	if len(keys) > maxSearch {
		return nil
	}
	var best *layout
	bestGroups := len(t.rows) + 1
	for mask := 1; mask < 1<<len(keys)-1; mask++ {
		lay := c.newLayout(t)
		lay.cols, lay.groups = nil, nil
		for i, k := range keys {
			if mask&(1<<i) != 0 {
				lay.groups = append(lay.groups, k)
			} else {
				lay.cols = append(lay.cols, k)
			}
		}
		n := len(groupRows(t.rows, lay.groups))
		if n > bestGroups || n == bestGroups && len(lay.cols) <= len(best.cols) {
			continue
		}
		if widest(c.render(t, lay)) <= c.width {
			best, bestGroups = lay, n
		}
	}
	return best
}

// newLayout shows in columns the keys that differ between t's rows,
// less those another key's value spells out (k=5 of filter=gauss5).
func (c *comparison) newLayout(t *table) *layout {
	lay := &layout{}
	shared := commonKeys(t.rows)
	for _, kv := range shared {
		if !slices.Contains(c.common, kv) && !slices.Contains(c.unset, kv.key) {
			lay.title = append(lay.title, kv)
		}
	}
	var varying []string
	for _, r := range t.rows {
		for _, kv := range r.keys {
			if !slices.Contains(varying, kv.key) && !slices.Contains(c.unset, kv.key) &&
				!slices.ContainsFunc(shared, func(s keyValue) bool { return s.key == kv.key }) {
				varying = append(varying, kv.key)
			}
		}
	}
	for i, key := range varying {
		if !slices.ContainsFunc(varying[:i], func(other string) bool { return spellsOut(t.rows, other, key) }) {
			lay.cols = append(lay.cols, key)
		}
	}
	return lay
}

// spellsOut reports whether, in every row, the value of key ends in
// that of other, a number, after a part that is not (filter=gauss5 and
// k=5).
func spellsOut(rows []*row, key, other string) bool {
	for _, r := range rows {
		v, o := valueOf(r.keys, key), valueOf(r.keys, other)
		if o == "" || strings.Trim(o, "0123456789") != "" {
			return false
		}
		prefix, ok := strings.CutSuffix(v, o)
		if !ok || prefix == "" || strings.ContainsAny(prefix[len(prefix)-1:], "0123456789") {
			return false
		}
	}
	return true
}

// group moves from the columns to the group lines the key with the
// fewest distinct values in rows, the last such.
func (lay *layout) group(rows []*row) {
	best := len(lay.cols) - 1
	for i := len(lay.cols) - 1; i >= 0; i-- {
		if distinct(rows, lay.cols[i]) < distinct(rows, lay.cols[best]) {
			best = i
		}
	}
	lay.groups = append(lay.groups, lay.cols[best])
	lay.cols = slices.Delete(lay.cols, best, best+1)
}

// distinct counts the values of key in rows.
func distinct(rows []*row, key string) int {
	seen := map[string]bool{}
	for _, r := range rows {
		seen[valueOf(r.keys, key)] = true
	}
	return len(seen)
}

// render writes t's lines in layout lay: its title, the columns'
// header, then its rows under their group lines, the geometric means,
// the count of changes each later file shows, and the warnings.
func (c *comparison) render(t *table, lay *layout) []string {
	title := t.unit
	if len(lay.title) > 0 {
		title += ": " + joinKeys(lay.title)
	}
	grid := c.grid(t, lay)
	indent := ""
	if len(lay.groups) > 0 {
		indent = "  "
	}
	lines := append(wrap(title, c.width), indent+grid.line(0))
	next := 1
	for _, g := range groupRows(t.rows, lay.groups) {
		if len(lay.groups) > 0 {
			lines = append(lines, joinKeys(keysOf(g[0], lay.groups))+":")
		}
		for range g {
			lines = append(lines, indent+grid.line(next))
			next++
		}
	}
	for ; next < len(grid.cells); next++ {
		lines = append(lines, indent+grid.line(next))
	}
	for i, f := range c.files[1:] {
		if tl := tally(t.rows, i); tl.Pairs > 0 {
			lines = append(lines, wrap(tallyLine(f.label+" vs "+c.files[0].label, tl), c.width)...)
		}
	}
	for _, warn := range warnings(t) {
		lines = append(lines, wrap("note: "+warn, c.width)...)
	}
	return lines
}

// groupRows splits rows by their values of keys, groups and the rows
// in each in order of appearance.
func groupRows(rows []*row, keys []string) [][]*row {
	var groups [][]*row
	index := map[string]int{}
	for _, r := range rows {
		id := joinKeys(keysOf(r, keys))
		i, ok := index[id]
		if !ok {
			i = len(groups)
			index[id] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// keysOf is r's values of keys.
func keysOf(r *row, keys []string) []keyValue {
	var kvs []keyValue
	for _, k := range keys {
		kvs = append(kvs, keyValue{k, valueOf(r.keys, k)})
	}
	return kvs
}

// joinKeys formats kvs as "k=v k=v".
func joinKeys(kvs []keyValue) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kv.key + "=" + kv.value
	}
	return strings.Join(parts, " ")
}

// grid builds t's cells: a header row, one row a case in the order of
// its groups, and a row of geometric means where two or more cases have
// a positive median in every file.
func (c *comparison) grid(t *table, lay *layout) *grid {
	g := &grid{keys: len(lay.cols)}
	header := slices.Clone(lay.cols)
	for _, f := range c.files {
		header = append(header, f.label)
	}
	for _, f := range c.files[1:] {
		if len(c.files) == 2 {
			header = append(header, "vs "+c.files[0].label)
		} else {
			header = append(header, f.label+" vs "+c.files[0].label)
		}
	}
	g.cells = append(g.cells, header)
	var rows []*row
	for _, grp := range groupRows(t.rows, lay.groups) {
		rows = append(rows, grp...)
	}
	for _, r := range rows {
		var cells []string
		for _, k := range lay.cols {
			cells = append(cells, valueOf(r.keys, k))
		}
		g.cells = append(g.cells, cells)
	}
	mean, means := geomeans(rows, len(c.files))
	if mean {
		g.cells = append(g.cells, []string{"geomean"})
	}
	withN := len(c.runCounts()) > 1
	for i := range c.files {
		col := summarize(t.unit, rows, i)
		if mean {
			col = append(col, summaryText{value: benchunit.CommonScale(means, benchunit.ClassOf(t.unit)).Format(means[i])})
		}
		g.addColumn(col.texts())
	}
	for i := range c.files[1:] {
		col := changes(rows, i, withN)
		if mean {
			col = append(col, deltaText{change: fmt.Sprintf("%+.2f%%", 100*(means[i+1]/means[0]-1))})
		}
		g.addColumn(col.texts())
	}
	return g
}

// geomeans returns the geometric mean of the medians in each of n files
// over the rows with a positive median in every file, and whether there
// are two such rows or more.
func geomeans(rows []*row, n int) (ok bool, means []float64) {
	logs := make([]float64, n)
	count := 0
	for _, r := range rows {
		if slices.ContainsFunc(r.cells, func(cl cell) bool { return !cl.ok || !(cl.sum.Center > 0) }) {
			continue
		}
		for i, cl := range r.cells {
			logs[i] += math.Log(cl.sum.Center)
		}
		count++
	}
	if count < 2 {
		return false, nil
	}
	for i := range logs {
		logs[i] = math.Exp(logs[i] / float64(count))
	}
	return true, logs
}

// A summaryText is one file's cell of a row: the median, scaled as the
// others of its row, and its interval.
type summaryText struct{ value, ci string }

type summaryColumn []summaryText

// summarize formats file i's medians of rows, each row scaled for
// its medians in every file.
func summarize(unit string, rows []*row, i int) summaryColumn {
	cls := benchunit.ClassOf(unit)
	var col summaryColumn
	for _, r := range rows {
		cl := r.cells[i]
		if !cl.ok {
			col = append(col, summaryText{value: "-"})
			continue
		}
		var centers []float64
		for _, o := range r.cells {
			if o.ok {
				centers = append(centers, o.sum.Center)
			}
		}
		sc := benchunit.CommonScale(centers, cls)
		col = append(col, summaryText{value: sc.Format(cl.sum.Center), ci: cl.sum.PctRangeString()})
	}
	return col
}

// texts aligns the column's medians and intervals: "14.21µ ±  3%".
func (col summaryColumn) texts() []string {
	wv, wc := 0, 0
	for _, s := range col {
		wv, wc = max(wv, width(s.value)), max(wc, width(s.ci))
	}
	texts := make([]string, len(col))
	for i, s := range col {
		switch {
		case s.ci != "":
			texts[i] = padLeft(s.value, wv) + " ± " + padLeft(s.ci, wc)
		case wc > 0:
			texts[i] = padLeft(s.value, wv) + strings.Repeat(" ", 3+wc)
		default:
			texts[i] = padLeft(s.value, wv)
		}
	}
	return texts
}

// A deltaText is a row's change in one file: "+14.04%" or "~", and the
// test's "p=0.008 n=5".
type deltaText struct{ change, test string }

type deltaColumn []deltaText

// changes formats the changes of rows from the first file to file
// i+1; withN adds the runs compared.
func changes(rows []*row, i int, withN bool) deltaColumn {
	var col deltaColumn
	for _, r := range rows {
		d := r.deltas[i]
		if !d.ok {
			col = append(col, deltaText{change: "-"})
			continue
		}
		var test []string
		if d.cmp.P != 0 {
			test = append(test, fmt.Sprintf("p=%.3f", d.cmp.P))
		}
		if withN {
			if d.cmp.N1 == d.cmp.N2 {
				test = append(test, fmt.Sprintf("n=%d", d.cmp.N1))
			} else {
				test = append(test, fmt.Sprintf("n=%d+%d", d.cmp.N1, d.cmp.N2))
			}
		}
		col = append(col, deltaText{
			change: d.cmp.FormatDelta(r.cells[0].sum.Center, r.cells[i+1].sum.Center),
			test:   strings.Join(test, " "),
		})
	}
	return col
}

// texts aligns the column's changes and tests: "+14.04% (p=0.008)".
func (col deltaColumn) texts() []string {
	wc, wt := 0, 0
	for _, d := range col {
		wc = max(wc, width(d.change))
		if d.test != "" {
			wt = max(wt, width(d.test)+3)
		}
	}
	texts := make([]string, len(col))
	for i, d := range col {
		t := ""
		if d.test != "" {
			t = " (" + d.test + ")"
		}
		texts[i] = padLeft(d.change, wc) + padRight(t, wt)
	}
	return texts
}

// warnings lists, once each, what benchmath says of t's intervals and
// tests.
func warnings(t *table) []string {
	var ws []string
	add := func(err error) {
		if s := err.Error(); !slices.Contains(ws, s) {
			ws = append(ws, s)
		}
	}
	for _, r := range t.rows {
		for _, cl := range r.cells {
			for _, err := range cl.sum.Warnings {
				add(err)
			}
		}
		for _, d := range r.deltas {
			for _, err := range d.cmp.Warnings {
				add(err)
			}
		}
	}
	return ws
}

// A grid is a table of text cells, its first row the header. Its first
// keys columns are left-aligned; the others are right-aligned under
// centered headers.
type grid struct {
	cells [][]string
	keys  int
	added int // columns after the keys with cells below the header
}

// addColumn appends a column of texts, the cells of the rows below the
// header, which holds the column's header already.
func (g *grid) addColumn(texts []string) {
	col := g.keys + g.added
	g.added++
	for i, t := range texts {
		row := g.cells[i+1]
		for len(row) < col {
			row = append(row, "")
		}
		g.cells[i+1] = append(row, t)
	}
}

// line formats row i of the grid, its columns two spaces apart.
func (g *grid) line(i int) string {
	widths := make([]int, len(g.cells[0]))
	for _, row := range g.cells {
		for j, c := range row {
			widths[j] = max(widths[j], width(c))
		}
	}
	parts := make([]string, len(widths))
	for j, w := range widths {
		c := ""
		if j < len(g.cells[i]) {
			c = g.cells[i][j]
		}
		switch {
		case j < g.keys:
			parts[j] = padRight(c, w)
		case i == 0:
			pad := w - width(c)
			parts[j] = strings.Repeat(" ", pad-pad/2) + c + strings.Repeat(" ", pad/2)
		default:
			parts[j] = padLeft(c, w)
		}
	}
	return strings.Join(parts, "  ")
}

// widest is the length of the longest of lines, in bytes: at least its
// width in columns.
func widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, len(strings.TrimRight(l, " ")))
	}
	return w
}

// width is the number of columns s takes.
func width(s string) int { return utf8.RuneCountInString(s) }

func padLeft(s string, w int) string  { return strings.Repeat(" ", max(0, w-width(s))) + s }
func padRight(s string, w int) string { return s + strings.Repeat(" ", max(0, w-width(s))) }

// wrap breaks text into lines of at most w bytes at spaces; a word
// longer than w has a line to itself.
func wrap(text string, w int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= w:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// tally counts the changes of rows from the first file to file i+1: the
// cases both hold, and those whose change the Mann-Whitney U test calls
// significant (p <= alpha, as the delta column prints them), lower and
// higher.
func tally(rows []*row, i int) runfile.Tally {
	var tl runfile.Tally
	for _, r := range rows {
		if d := r.deltas[i]; d.ok {
			tl.Add(r.cells[0].sum.Center, r.cells[i+1].sum.Center, d.cmp.P <= d.cmp.Alpha)
		}
	}
	return tl
}

// tallyLine says tl under a table: "new vs old: 5 of 8 cases differ, 3
// lower and 2 higher; 3 ~".
func tallyLine(which string, tl runfile.Tally) string {
	return fmt.Sprintf("%s: %d of %d cases differ, %d lower and %d higher; %d ~", which,
		tl.Lower+tl.Higher, tl.Pairs, tl.Lower, tl.Higher, tl.Same)
}
