package results

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/convbench/convbench/runfile"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is one rendered table: a title, a header row and string cells.
type Table struct {
	ID      string // file-name-safe identifier, "000-image-size-ours"
	Title   string
	Caption string // where the numbers come from
	Header  []string
	Rows    [][]string
	Keys    int      // how many leading columns name a row; zero means one
	Legend  []string // what columns hold, one "column: meaning" line each
	// Optional names the measurement columns RenderTerminal may leave
	// out, in this order, where the table is wider than TerminalWidth.
	Optional []string
}

// CPUOnly trims a GPU-less host's table to its CPU cases: it drops the
// measurement columns and then the rows without a value, and reports
// whether any measurement remains.
func (t *Table) CPUOnly() bool {
	keys := max(t.Keys, 1)
	t.keepColumns(func(c int) bool {
		return c < keys || slices.ContainsFunc(t.Rows, func(r []string) bool { return c < len(r) && r[c] != missing })
	})
	t.Rows = slices.DeleteFunc(t.Rows, func(r []string) bool {
		return !slices.ContainsFunc(r[min(keys, len(r)):], func(cell string) bool { return cell != missing })
	})
	return len(t.Header) > keys && len(t.Rows) > 0
}

// keepColumns keeps the columns c of t for which keep(c) holds.
func (t *Table) keepColumns(keep func(c int) bool) {
	var cols []int
	for c := range t.Header {
		if keep(c) {
			cols = append(cols, c)
		}
	}
	t.Header = columns(t.Header, cols)
	for i, r := range t.Rows {
		t.Rows[i] = columns(r, cols)
	}
}

// RenderMarkdown writes the table as a GitHub Markdown table under a
// level-3 heading with the caption as a paragraph.
func (t *Table) RenderMarkdown(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "### %s\n\n", t.Title)
	if t.Caption != "" {
		fmt.Fprintf(&sb, "%s\n\n", t.Caption)
	}
	row := func(cells []string) {
		sb.WriteString("|")
		for _, c := range cells {
			sb.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		sb.WriteString("\n")
	}
	row(t.Header)
	row(append([]string{"---"}, slices.Repeat([]string{"---:"}, len(t.Header)-1)...))
	for _, r := range t.Rows {
		row(r)
	}
	sb.WriteString("\n")
	for _, l := range t.Legend {
		sb.WriteString("- " + l + "\n")
	}
	if len(t.Legend) > 0 {
		sb.WriteString("\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// TerminalWidth is the column RenderTerminal wraps title, caption and legend at.
const TerminalWidth = 120

// RenderTerminal writes the title, caption, table (by tablewriter) and
// legend, wrapped at TerminalWidth. Where the table is wider it leaves
// out Optional columns, in order, until it fits, and says which.
func (t *Table) RenderTerminal(w io.Writer) error {
	t = t.clone()
	body, err := t.renderGrid()
	if err != nil {
		return err
	}
	var left []string
	for _, col := range t.Optional {
		if widest(body) <= TerminalWidth {
			break
		}
		if !t.dropColumn(col) {
			continue
		}
		left = append(left, col)
		if body, err = t.renderGrid(); err != nil {
			return err
		}
	}
	lines := Wrap(t.Title, TerminalWidth, "")
	caption := strings.ReplaceAll(t.Caption, "`", "")
	if len(left) > 0 {
		caption += fmt.Sprintf(" Left out to fit %d columns: %s (the run's file holds them).", TerminalWidth, strings.Join(left, ", "))
	}
	if caption = strings.TrimSpace(caption); caption != "" {
		lines = append(lines, Wrap(caption, TerminalWidth, "")...)
	}
	lines = append(lines, strings.Split(strings.TrimSuffix(body, "\n"), "\n")...)
	for _, l := range t.Legend {
		lines = append(lines, Wrap(l, TerminalWidth, "  ")...)
	}
	_, err = io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

// renderGrid is the table's header and rows drawn by tablewriter.
func (t *Table) renderGrid() (string, error) {
	var b strings.Builder
	tab := tablewriter.NewTable(&b, tablewriter.WithHeaderAutoFormat(tw.Off))
	hdr := make([]any, len(t.Header))
	for i, h := range t.Header {
		hdr[i] = h
	}
	tab.Header(hdr...)
	for _, r := range t.Rows {
		if err := tab.Append(r); err != nil {
			return "", err
		}
	}
	if err := tab.Render(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// clone copies t deep enough for RenderTerminal to drop columns.
func (t *Table) clone() *Table {
	c := *t
	c.Header = slices.Clone(t.Header)
	c.Legend = slices.Clone(t.Legend)
	c.Rows = make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		c.Rows[i] = slices.Clone(r)
	}
	return &c
}

// dropColumn removes column name and its legend line, if the table has it.
func (t *Table) dropColumn(name string) bool {
	c := slices.Index(t.Header, name)
	if c < 0 {
		return false
	}
	t.Header = slices.Delete(t.Header, c, c+1)
	for i, r := range t.Rows {
		if c < len(r) {
			t.Rows[i] = slices.Delete(r, c, c+1)
		}
	}
	t.Legend = slices.DeleteFunc(t.Legend, func(l string) bool { return strings.HasPrefix(l, name+": ") })
	return true
}

// widest is the width in runes of the widest line of text.
func widest(text string) int {
	w := 0
	for l := range strings.SplitSeq(text, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// Wrap breaks text at spaces into lines of at most width runes, the
// lines after the first starting with indent.
func Wrap(text string, width int, indent string) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "": // the first word
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = indent + word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// missing is the cell of a missing value.
const missing = "—"

// OrMissing is s as a cell: s, or a dash where it is empty.
func OrMissing(s string) string {
	if s == "" {
		return missing
	}
	return s
}

// ms formats nanoseconds as milliseconds with 3 significant digits.
func ms(ns float64, ok bool) string {
	if !ok || ns <= 0 || math.IsNaN(ns) {
		return missing
	}
	return Sig(ns/1e6, 3)
}

func num(v float64, ok bool) string {
	if !ok || math.IsNaN(v) {
		return missing
	}
	return Sig(v, 3)
}

// percent formats a fraction as a percentage with 2 significant digits.
func percent(f float64, ok bool) string {
	if !ok || math.IsNaN(f) {
		return missing
	}
	return Sig(100*f, 2) + "%"
}

// Sig formats v with n significant digits, without exponent.
func Sig(v float64, n int) string {
	if v == 0 {
		return "0"
	}
	mag := int(math.Floor(math.Log10(math.Abs(v))))
	return fmt.Sprintf("%.*f", max(n-1-mag, 0), v)
}

// summaryKeys are the name keys Summary always shows or folds into another column.
var summaryKeys = []string{"variant", "size", "filter", "k", "block", "type", "ch", "timing", "mem", "cache", "opts"}

// Summary is a compact table of every case of a run.
func Summary(r *Run, baseline string) *Table {
	varying, _ := r.Axes()
	extra := slices.DeleteFunc(varying, func(k string) bool { return slices.Contains(summaryKeys, k) || onlyUnset(r, k) })
	bases := NewBaselines(r.Samples, baseline)
	t := &Table{
		ID:     "summary-" + r.Host + "-" + r.Preset,
		Title:  fmt.Sprintf("%s on %s", r.Preset, hostTitle(r)),
		Header: append(append([]string{"variant", "size", "filter", "block", "type", "ch"}, extra...), "timing", "time (ms)"),
		Keys:   7 + len(extra),
		Legend: []string{
			fmt.Sprintf("time (ms): the median over the case's runs (result lines) ± the half-width of its %.0f%% confidence interval, in percent; ±∞: too few runs for one, as benchstat shows it (-count 5 or more gives one). gpu-ns/op for kernel cases, total-ns/op for pipeline cases, ns/op on the CPU.", 100*runfile.Confidence),
		},
	}
	if bases.Any() {
		t.Header = append(t.Header, "speed-up")
		t.Legend = append(t.Legend, bases.Legend("speed-up"))
	}
	t.Header = append(t.Header, "spread", "MPix/s", "GB/s", "%copy-bw")
	t.Legend = append(t.Legend,
		"spread: the slowest run minus the fastest, over the median.",
		"%copy-bw: GB/s over the copy bandwidth the run measured on the device (GPU) or host (CPU); %peak-bw in runs that predate it.")
	throttled, noise, energy := r.Has(throttledUnit), r.spreadUnit(), r.Has(energyUnit)
	if energy {
		t.Header = append(t.Header, "mJ/op")
		t.Legend = append(t.Legend, "mJ/op: the energy one run drew, by the GPU's energy counter over the line's timed runs (NVML), the median over the case's runs ± the half-width of its interval; a dash where the lines carry none (CPU cases, and lines too short for the counter).")
	}
	if noise != "" {
		t.Header = append(t.Header, "median spread", "runs agree")
		t.Legend = append(t.Legend,
			"median spread: the benchmark's own measure of each run's median (the half-width of its 95% confidence interval over the run's samples, "+noise+") where it stopped sampling, the median over the runs.",
			agreementLegend("median spread"))
	}
	if throttled {
		t.Header = append(t.Header, "throttled samples")
		t.Legend = append(t.Legend, "throttled samples: samples taken below the GPU's clock limit, discarded and taken again (summed over the runs; \"kept\" ones the guard gave up retaking).")
	}
	samples := slices.Clone(r.Samples)
	sortSamples(samples)
	for _, s := range samples {
		pb, okp := s.Median("%copy-bw")
		if !okp {
			pb, okp = s.Median("%peak-bw")
		}
		row := []string{s.Keys["variant"], s.Keys["size"], s.Keys["filter"], s.Keys["block"], s.Keys["type"], s.Keys["ch"]}
		for _, k := range extra {
			row = append(row, s.Keys[k])
		}
		row = append(row, timingLabel(s), msCI(timeOf(s)))
		if bases.Any() {
			row = append(row, bases.Cell(s))
		}
		row = append(row, percent(s.Spread()), num(s.Median("MPix/s")), num(s.Median("GB/s")), num(pb, okp))
		if energy {
			row = append(row, energyCell(energyOf(s)))
		}
		if noise != "" {
			v, ok := s.Median(noise)
			row = append(row, percent(v/100, ok), agreementCell(s, noise))
		}
		if throttled {
			row = append(row, throttledCell(s))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Optional = []string{"GB/s", "spread", "%copy-bw", "median spread", "MPix/s"}
	t.Caption = "Medians over the runs of each case."
	if bases.Any() {
		t.Caption += " " + bases.Caption()
	}
	if fixed := t.dropConstantKeys(); len(fixed) > 0 {
		t.Caption += " Every case has " + strings.Join(fixed, ", ") + "."
	}
	return t
}

// dropConstantKeys removes the key columns every row shares, keeping at
// least one, and returns them as "name value".
func (t *Table) dropConstantKeys() []string {
	keys := max(t.Keys, 1)
	if len(t.Rows) == 0 {
		return nil
	}
	var drop []int
	var fixed []string
	for c := 0; c < keys; c++ {
		v := t.Rows[0][c]
		if !slices.ContainsFunc(t.Rows, func(r []string) bool { return r[c] != v }) {
			drop = append(drop, c)
			fixed = append(fixed, t.Header[c]+" "+v)
		}
	}
	if len(drop) == keys {
		drop, fixed = drop[1:], fixed[1:]
	}
	t.keepColumns(func(c int) bool { return !slices.Contains(drop, c) })
	t.Keys = keys - len(drop)
	return fixed
}

// columns returns the cells of columns keep, a dash past the end.
func columns(cells []string, keep []int) []string {
	out := make([]string, len(keep))
	for i, c := range keep {
		out[i] = missing
		if c < len(cells) {
			out[i] = cells[c]
		}
	}
	return out
}

// onlyUnset reports whether every case of r has k empty, none or default.
func onlyUnset(r *Run, k string) bool {
	return !slices.ContainsFunc(r.Samples, func(s *Sample) bool {
		return s.Keys[k] != "" && s.Keys[k] != "none" && s.Keys[k] != "default"
	})
}

// timingLabel is a case's timing key with its memory, cache and options.
func timingLabel(s *Sample) string {
	k := s.Keys
	timing := k["timing"]
	if m := k["mem"]; m != "" && m != "none" {
		timing += " " + m
	}
	if k["cache"] == "cold" {
		timing += " cold"
	}
	if o := k["opts"]; o != "" && o != "default" && o != "none" {
		timing += " " + o
	}
	return timing
}

// sortSamples orders samples by sampleOrder (compareCases).
func sortSamples(samples []*Sample) {
	slices.SortStableFunc(samples, compareSamples)
}

// sampleOrder is variant, size, filter, then the other name keys.
var sampleOrder = append([]string{"variant", "size", "filter"},
	slices.DeleteFunc(runfile.Keys(), func(k string) bool { return k == "variant" || k == "size" || k == "filter" })...)

// compareSamples orders samples by the keys of sampleOrder (compareCases).
func compareSamples(a, b *Sample) int { return compareCases(a, b, sampleOrder) }

// compareSizes orders "WxH" sizes by pixels, then width, then text.
func compareSizes(a, b string) int {
	wa, ha, oka := parseSize(a)
	wb, hb, okb := parseSize(b)
	switch {
	case oka && okb:
		if c := cmp.Compare(int64(wa)*int64(ha), int64(wb)*int64(hb)); c != 0 {
			return c
		}
		return cmp.Compare(wa, wb)
	case oka:
		return -1
	case okb:
		return 1
	}
	return NaturalCompare(a, b)
}

func parseSize(s string) (w, h int, ok bool) {
	ws, hs, found := strings.Cut(s, "x")
	if !found {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	return w, h, err1 == nil && err2 == nil
}

// NaturalCompare compares a and b, runs of digits by their value.
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		ra, restA := leadingRun(a)
		rb, restB := leadingRun(b)
		da, db := isDigit(ra[0]), isDigit(rb[0])
		var c int
		if da && db {
			na, nb := strings.TrimLeft(ra, "0"), strings.TrimLeft(rb, "0")
			if c = cmp.Compare(len(na), len(nb)); c == 0 {
				c = strings.Compare(na, nb)
			}
		} else {
			c = strings.Compare(ra, rb)
		}
		if c != 0 {
			return c
		}
		a, b = restA, restB
	}
	return cmp.Compare(len(a), len(b))
}

// leadingRun splits s (not empty) after its first run of digits or non-digits.
func leadingRun(s string) (run, rest string) {
	d := isDigit(s[0])
	i := 1
	for i < len(s) && isDigit(s[i]) == d {
		i++
	}
	return s[:i], s[i:]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func hostTitle(r *Run) string {
	if g := strings.Join(strings.Fields(r.Config[runfile.KeyGPU]), " "); g != "" && g != "none" {
		return g
	}
	if c := strings.Join(strings.Fields(r.Config["cpu"]), " "); c != "" {
		return c + " (no GPU)"
	}
	return r.Host
}
