package fleet

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/convbench/convbench/internal/median"
	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchfmt"
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

// unitWords says what each of runfile.TimeUnits measures, in a table's
// column.
var unitWords = map[string]string{"gpu-ns/op": "GPU kernel", "total-ns/op": "GPU with copies", "ns/op": "host"}

// CaseTimes is a case's result lines on one slug.
type CaseTimes struct {
	Median float64 // seconds an operation, the median of the lines
	Lines  int
}

// Compare reads the benchmark files (each under a directory named by its
// slug, as a data directory holds them) and puts their cases side by side:
// with several slugs the cases measured on at least two of them, with
// one every case.
func Compare(files []string) (*Comparison, error) {
	type line struct {
		slug  string
		times map[string]float64 // unit as written -> seconds an operation
	}
	lines := map[string][]line{} // case -> its result lines
	slugSet := map[string]bool{}
	var names []string
	for _, path := range files {
		slug := filepath.Base(filepath.Dir(path))
		slugSet[slug] = true
		err := readTimes(path, func(name string, times map[string]float64) {
			if lines[name] == nil {
				names = append(names, name)
			}
			lines[name] = append(lines[name], line{slug, times})
		})
		if err != nil {
			return nil, err
		}
	}
	// A case compares the first of runfile.TimeUnits that any of its lines has,
	// over the lines that have it.
	units := map[string]string{}
	times := map[string]map[string][]float64{} // case -> slug -> seconds of each line
	for _, name := range names {
		for _, u := range runfile.TimeUnits {
			if slices.ContainsFunc(lines[name], func(l line) bool { _, ok := l.times[u]; return ok }) {
				units[name] = u
				break
			}
		}
		times[name] = map[string][]float64{}
		for _, l := range lines[name] {
			if sec, ok := l.times[units[name]]; ok {
				times[name][l.slug] = append(times[name][l.slug], sec)
			}
		}
	}
	c := &Comparison{}
	for s := range slugSet {
		c.Slugs = append(c.Slugs, s)
	}
	sort.Strings(c.Slugs)
	var kept []string
	for _, name := range names {
		if len(c.Slugs) > 1 && len(times[name]) < 2 {
			c.Alone++
			continue
		}
		kept = append(kept, name)
	}
	sort.Strings(kept)
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

// readTimes calls found with the name (without its GOMAXPROCS suffix) and
// the times of runfile.TimeUnits (in seconds) of every result line of the benchmark file at
// path that has one.
func readTimes(path string, found func(name string, times map[string]float64)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		times := map[string]float64{}
		for _, v := range res.Values {
			u := v.OrigUnit // as written; Unit is benchfmt's tidied one, in seconds
			if u == "" {
				u = v.Unit
			}
			if slices.Contains(runfile.TimeUnits, u) {
				times[u] = v.Value
			}
		}
		if len(times) > 0 {
			found(caseName(res.Name), times)
		}
	}
	return r.Err()
}

// caseName is a benchmark name without its GOMAXPROCS suffix.
func caseName(n benchfmt.Name) string {
	base, parts := n.Parts()
	if len(parts) > 0 && strings.HasPrefix(string(parts[len(parts)-1]), "-") {
		parts = parts[:len(parts)-1]
	}
	var sb strings.Builder
	sb.Write(base)
	for _, p := range parts {
		sb.Write(p)
	}
	return sb.String()
}

// commonParts returns the /-separated parts of the names (after the
// base) that every name has, when there are several names.
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

// distinctParts returns the name's parts (after the base) not in common.
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

func nameParts(name string) []string {
	parts := strings.Split(name, "/")
	return parts[1:]
}

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
	best := ""
	for s, t := range r.Times {
		if best == "" || t.Median < r.Times[best].Median || (t.Median == r.Times[best].Median && s < best) {
			best = s
		}
	}
	return best
}

// formatSeconds writes a time with three significant digits in ns, µs, ms
// or s.
func formatSeconds(sec float64) string {
	switch {
	case sec < 1e-6:
		return strconv.FormatFloat(sec*1e9, 'g', 3, 64) + "ns"
	case sec < 1e-3:
		return strconv.FormatFloat(sec*1e6, 'g', 3, 64) + "µs"
	case sec < 1:
		return strconv.FormatFloat(sec*1e3, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(sec, 'g', 3, 64) + "s"
}
