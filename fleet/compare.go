package fleet

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/convbench/convbench/internal/median"
	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchunit"
)

// Comparison is the same benchmark cases across slugs (GPUs, or hosts
// without a GPU): each case's median time on each slug.
type Comparison struct {
	Slugs  []string
	Common []string // the name's key=value parts every case shares, left out of Rows
	Rows   []CaseRow
	Alone  int // cases measured on one slug only, left out when there are several slugs
}

// CaseRow is one case's times by slug.
type CaseRow struct {
	Case  string               // the name's parts that differ between cases
	Unit  string               // the time compared, one of runfile.TimeUnits
	Times map[string]CaseTimes // by slug
}

// unitWords says what each of runfile.TimeUnits measures.
var unitWords = map[string]string{"gpu-ns/op": "GPU kernel", "total-ns/op": "GPU with copies", "ns/op": "host"}

// CaseTimes is a case's result lines on one slug.
type CaseTimes struct {
	Median float64 // seconds an operation, the median of the lines
	Lines  int
}

// Compare reads the benchmark files, each under a directory named by its
// slug, and puts their cases side by side by runfile.ReadCases's names:
// with several slugs the cases measured on at least two, with one every
// case.
func Compare(files []string) (*Comparison, error) {
	type slugCases struct {
		slug string
		*runfile.Cases
	}
	var runs []slugCases
	seen := map[string]bool{}
	c := &Comparison{}
	for _, path := range files {
		cs, err := runfile.ReadCases(path)
		if err != nil {
			return nil, err
		}
		slug := filepath.Base(filepath.Dir(path))
		if !slices.Contains(c.Slugs, slug) {
			c.Slugs = append(c.Slugs, slug)
		}
		runs = append(runs, slugCases{slug, cs})
		for _, n := range cs.Names {
			seen[n] = true
		}
	}
	sort.Strings(c.Slugs)
	names := slices.Sorted(maps.Keys(seen))
	// A case compares the first of runfile.TimeUnits that any of its lines
	// has, over the lines that have it; a case with none is no case here.
	units := map[string]string{}
	times := map[string]map[string][]float64{} // case -> slug -> seconds of each line
	var kept []string
	for _, name := range names {
		for _, u := range runfile.TimeUnits {
			_, tidy := benchunit.Tidy(1, u)
			secs := map[string][]float64{}
			for _, r := range runs {
				if vs := r.Values[name][tidy]; len(vs) > 0 {
					secs[r.slug] = append(secs[r.slug], vs...)
				}
			}
			if len(secs) > 0 {
				units[name], times[name] = u, secs
				break
			}
		}
		switch {
		case units[name] == "":
		case len(c.Slugs) > 1 && len(times[name]) < 2:
			c.Alone++
		default:
			kept = append(kept, name)
		}
	}
	c.Common = commonParts(kept)
	for _, name := range kept {
		row := CaseRow{Case: strings.Join(distinctParts(name, c.Common), "/"), Unit: units[name], Times: map[string]CaseTimes{}}
		for slug, secs := range times[name] {
			row.Times[slug] = CaseTimes{Median: median.Of(secs), Lines: len(secs)}
		}
		c.Rows = append(c.Rows, row)
	}
	return c, nil
}

// commonParts returns the nameParts every name has, when there are
// several names.
func commonParts(names []string) []string {
	if len(names) < 2 {
		return nil
	}
	count := map[string]int{}
	for _, n := range names {
		for _, p := range nameParts(n) {
			count[p]++
		}
	}
	var common []string
	for _, p := range nameParts(names[0]) {
		if count[p] == len(names) {
			common = append(common, p)
		}
	}
	return common
}

// distinctParts returns the name's nameParts not in common, or the name.
func distinctParts(name string, common []string) []string {
	var parts []string
	for _, p := range nameParts(name) {
		if !slices.Contains(common, p) {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return []string{name}
	}
	return parts
}

// nameParts are the /-separated parts of a case name after the base.
func nameParts(name string) []string { return strings.Split(name, "/")[1:] }

// WriteMarkdown writes the comparison as a Markdown table: a row a case,
// a column a slug, each cell the median time, its ratio to the case's
// fastest slug and the number of result lines.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d cases on %d slugs", len(c.Rows), len(c.Slugs))
	if c.Alone > 0 {
		fmt.Fprintf(bw, " (%d cases measured on one slug only left out)", c.Alone)
	}
	fmt.Fprintln(bw)
	if len(c.Common) > 0 {
		fmt.Fprintf(bw, "every case: %s\n", strings.Join(c.Common, "/"))
	}
	fmt.Fprintf(bw, "\ncell: median time an operation, ×ratio to the case's fastest slug, (result lines); time: the one compared, the GPU kernel's where the lines have it (gpu-ns/op), else the GPU's with its copies (total-ns/op), else the host's (ns/op)\n\n")
	fmt.Fprintf(bw, "| case | time | %s | fastest |\n", strings.Join(c.Slugs, " | "))
	fmt.Fprintf(bw, "|---|---%s|---|\n", strings.Repeat("|---:", len(c.Slugs)))
	for _, r := range c.Rows {
		fastest := r.fastest()
		cells := make([]string, len(c.Slugs))
		for i, s := range c.Slugs {
			t, ok := r.Times[s]
			if !ok {
				cells[i] = "—"
				continue
			}
			cells[i] = fmt.Sprintf("%s ×%.2f (%d)", formatSeconds(t.Median), t.Median/r.Times[fastest].Median, t.Lines)
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", r.Case, unitWords[r.Unit], strings.Join(cells, " | "), fastest)
	}
	return bw.Flush()
}

// fastest is the slug with the least median time (the first by name on
// a tie).
func (r CaseRow) fastest() string {
	return slices.MinFunc(slices.Sorted(maps.Keys(r.Times)), func(a, b string) int {
		return cmp.Compare(r.Times[a].Median, r.Times[b].Median)
	})
}

// formatSeconds writes a time with three significant digits in ns, µs, ms
// or s.
func formatSeconds(sec float64) string {
	unit, scale := "s", 1.0
	switch {
	case sec < 1e-6:
		unit, scale = "ns", 1e9
	case sec < 1e-3:
		unit, scale = "µs", 1e6
	case sec < 1:
		unit, scale = "ms", 1e3
	}
	return strconv.FormatFloat(sec*scale, 'g', 3, 64) + unit
}
