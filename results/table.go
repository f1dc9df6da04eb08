package results

import (
	"fmt"
	"io"
	"math"
	"strings"

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
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---"
		if i > 0 {
			seps[i] = "---:"
		}
	}
	row(seps)
	for _, r := range t.Rows {
		row(r)
	}
	sb.WriteString("\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// RenderTerminal writes the table with tablewriter for a terminal.
func (t *Table) RenderTerminal(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s\n", t.Title); err != nil {
		return err
	}
	tab := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	hdr := make([]any, len(t.Header))
	for i, h := range t.Header {
		hdr[i] = h
	}
	tab.Header(hdr...)
	for _, r := range t.Rows {
		if err := tab.Append(r); err != nil {
			return err
		}
	}
	return tab.Render()
}

// Cell formats for the tables. A missing value prints as an em dash.
const missing = "—"

// ms formats nanoseconds as milliseconds with 3 significant digits.
func ms(ns float64, ok bool) string {
	if !ok || ns <= 0 || math.IsNaN(ns) {
		return missing
	}
	return sig(ns/1e6, 3)
}

// ratio formats a/b as "1.23×".
func ratio(a, b float64, ok bool) string {
	if !ok || a <= 0 || b <= 0 {
		return missing
	}
	return sig(a/b, 3) + "×"
}

func num(v float64, ok bool) string {
	if !ok || math.IsNaN(v) {
		return missing
	}
	return sig(v, 3)
}

// sig formats v with n significant digits, without exponent for the
// magnitudes benchmark tables hold.
func sig(v float64, n int) string {
	if v == 0 {
		return "0"
	}
	mag := int(math.Floor(math.Log10(math.Abs(v))))
	dec := n - 1 - mag
	if dec < 0 {
		dec = 0
	}
	return fmt.Sprintf("%.*f", dec, v)
}

// Summary is a compact table of every case of a run: its time and rates,
// one row per case. The timing column adds the host
// memory of pipeline cases, "cold" for cold-cache cases and the compile
// options when they are not the default.
func Summary(r *Run) *Table {
	t := &Table{
		ID:      "summary-" + r.Host + "-" + r.Preset,
		Title:   fmt.Sprintf("%s on %s", r.Preset, hostTitle(r)),
		Caption: "Medians over the runs of each case; time is gpu-ns/op for kernel cases, total-ns/op for pipeline cases, ns/op on the CPU.",
		Header:  []string{"variant", "size", "filter", "block", "type", "ch", "timing", "time (ms)", "MPix/s", "GB/s", "%peak-bw"},
	}
	for _, s := range r.Samples {
		tm, ok := s.Time()
		mp, okm := s.Median("MPix/s")
		gb, okg := s.Median("GB/s")
		pb, okp := s.Median("%peak-bw")
		timing := s.Keys["timing"]
		if s.Keys["mem"] != "none" {
			timing += " " + s.Keys["mem"]
		}
		if s.Keys["cache"] == "cold" {
			timing += " cold"
		}
		if o := s.Keys["opts"]; o != "default" && o != "none" {
			timing += " " + o
		}
		t.Rows = append(t.Rows, []string{s.Keys["variant"], s.Keys["size"], s.Keys["filter"], s.Keys["block"],
			s.Keys["type"], s.Keys["ch"], timing, ms(tm, ok), num(mp, okm), num(gb, okg), num(pb, okp)})
	}
	return t
}

func hostTitle(r *Run) string {
	if g := r.Config["gpu"]; g != "" && g != "none" {
		return g
	}
	if c := r.Config["cpu"]; c != "" {
		return c + " (no GPU)"
	}
	return r.Host
}
