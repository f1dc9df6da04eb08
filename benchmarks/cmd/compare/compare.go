package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchmath"
)

// A comparison is the tables comparing a set of files, the first the
// base the others are compared with.
type comparison struct {
	// col is the key whose values the files are (-col), or "" where
	// they are the files compared.
	col    string
	files  []*file
	all    bool       // every metric, not only times
	width  int        // the widest line the tables aim for, in bytes
	tables []*table   // one a metric
	common []keyValue // keys every compared case shares
	// unset lists the other keys that every compared case leaves at
	// "default", or "none" where it has no such setting.
	unset []string
	// unpaired counts, for each file, its cases that have no
	// counterpart: for the first file, cases in no other file; for
	// the others, cases not in the first.
	unpaired []int
	paired   int // cases of the first file in another
	// unshared are the columns of -col left out for sharing no case
	// with the first.
	unshared []string
}

// dropUnshared returns files without those after the first that share
// no case with it, which it records in c.unshared.
func (c *comparison) dropUnshared(files []*file) []*file {
	kept := files[:1]
	for _, f := range files[1:] {
		if slices.ContainsFunc(f.Names, func(name string) bool { _, ok := files[0].Values[name]; return ok }) {
			kept = append(kept, f)
		} else {
			c.unshared = append(c.unshared, f.label)
		}
	}
	return kept
}

// A table compares the cases of one metric.
type table struct {
	unit string
	rows []*row
}

// A row is one case: its value in each file and the changes.
type row struct {
	keys   []keyValue
	cells  []cell  // one a file
	deltas []delta // one a file after the first: its change from the first
}

// A cell summarizes a case's values in one file; a case missing from
// the file has !ok.
type cell struct {
	ok  bool
	n   int
	sum benchmath.Summary
}

// A delta tests the change of a case's median from the first file to
// another; !ok where either lacks the case.
type delta struct {
	ok  bool
	cmp benchmath.Comparison
}

// newComparison pairs the cases of files, the first the base, and
// summarizes every time metric (every metric if all) they share.
//
// With col set the files are the columns of byKey, and a column that
// shares no case with the first is shown without values; the first must
// share a case with one.
func newComparison(files []*file, all bool, col string) (*comparison, error) {
	base := files[0]
	c := &comparison{col: col, files: files, all: all, width: maxWidth, unpaired: make([]int, len(files))}
	if col != "" {
		files = c.dropUnshared(files)
		c.files, c.unpaired = files, make([]int, len(files))
	}
	inOther := map[string]bool{}
	for i, f := range files[1:] {
		shared := 0
		for _, name := range f.Names {
			if _, ok := base.Values[name]; ok {
				shared++
				inOther[name] = true
			} else {
				c.unpaired[i+1]++
			}
		}
		if shared == 0 && col == "" {
			return nil, fmt.Errorf("%s and %s have no case in common", base.Path, f.Path)
		}
	}
	c.paired = len(inOther)
	if c.paired == 0 {
		return nil, fmt.Errorf("%s: no case of %s=%s has a counterpart of another %s", base.Path, col, base.label, col)
	}
	c.unpaired[0] = len(base.Names) - c.paired
	for _, unit := range c.units() {
		if t := c.newTable(unit, inOther); len(t.rows) > 0 {
			c.tables = append(c.tables, t)
		}
	}
	if len(c.tables) == 0 {
		if col != "" {
			return nil, fmt.Errorf("%s: the columns of %s have no time metric in common (-all compares every metric)", base.Path, col)
		}
		return nil, fmt.Errorf("%s and %s have no time metric in common (-all compares every metric)", base.Path, files[1].Path)
	}
	c.common = commonKeys(c.allRows())
	c.unset = unsetKeys(c.allRows(), c.common)
	return c, nil
}

// units lists the metrics to compare, in order of appearance: the time
// metrics, or every metric if c.all.
func (c *comparison) units() []string {
	var units []string
	for _, f := range c.files {
		for _, u := range f.Units {
			if (c.all || isTime(u)) && !slices.Contains(units, u) {
				units = append(units, u)
			}
		}
	}
	return units
}

// isTime reports whether the tidied unit is a time per operation: sec/op
// or a named one such as gpu-sec/op.
func isTime(unit string) bool {
	num, _, _ := strings.Cut(unit, "/")
	return num == "sec" || strings.HasSuffix(num, "-sec")
}

// newTable summarizes unit for the cases of the first file that are in
// another (paired) and have the unit there too.
func (c *comparison) newTable(unit string, paired map[string]bool) *table {
	t := &table{unit: unit}
	assume := c.files[0].Meta.GetAssumption(unit)
	for _, name := range c.files[0].Names {
		if !paired[name] {
			continue
		}
		r := &row{keys: caseKeys(name)}
		var samples []*benchmath.Sample
		for _, f := range c.files {
			vs := f.Values[name][unit]
			if len(vs) == 0 {
				samples = append(samples, nil)
				r.cells = append(r.cells, cell{})
				continue
			}
			s := benchmath.NewSample(slices.Clone(vs), &benchmath.DefaultThresholds)
			samples = append(samples, s)
			r.cells = append(r.cells, cell{ok: true, n: len(vs), sum: assume.Summary(s, runfile.Confidence)})
		}
		for _, s := range samples[1:] {
			if samples[0] == nil || s == nil {
				r.deltas = append(r.deltas, delta{})
				continue
			}
			r.deltas = append(r.deltas, delta{ok: true, cmp: assume.Compare(samples[0], s)})
		}
		if slices.ContainsFunc(r.deltas, func(d delta) bool { return d.ok }) {
			t.rows = append(t.rows, r)
		}
	}
	return t
}

func (c *comparison) allRows() []*row {
	var rows []*row
	for _, t := range c.tables {
		rows = append(rows, t.rows...)
	}
	return rows
}

// runCounts lists the distinct numbers of runs of the compared cells,
// in increasing order.
func (c *comparison) runCounts() []int {
	var ns []int
	for _, r := range c.allRows() {
		for _, cl := range r.cells {
			if cl.ok && !slices.Contains(ns, cl.n) {
				ns = append(ns, cl.n)
			}
		}
	}
	slices.Sort(ns)
	return ns
}

// commonKeys returns the keys whose value is the same in every row, in
// the order of the first row's keys.
func commonKeys(rows []*row) []keyValue {
	if len(rows) == 0 {
		return nil
	}
	var common []keyValue
	for _, kv := range rows[0].keys {
		if !slices.ContainsFunc(rows, func(r *row) bool { return valueOf(r.keys, kv.key) != kv.value }) {
			common = append(common, kv)
		}
	}
	return common
}

// unsetKeys returns the keys, other than those of common, whose value
// in every row is "default" or "none".
func unsetKeys(rows []*row, common []keyValue) []string {
	var keys []string
	for _, r := range rows {
		for _, kv := range r.keys {
			if slices.Contains(keys, kv.key) || slices.ContainsFunc(common, func(c keyValue) bool { return c.key == kv.key }) {
				continue
			}
			if !slices.ContainsFunc(rows, func(r *row) bool { v := valueOf(r.keys, kv.key); return v != "default" && v != "none" }) {
				keys = append(keys, kv.key)
			}
		}
	}
	return keys
}

// valueOf is the value of key in kvs, or "-" where kvs lacks it.
func valueOf(kvs []keyValue, key string) string {
	for _, kv := range kvs {
		if kv.key == key {
			return kv.value
		}
	}
	return "-"
}

// levelNote says at which level the intervals are and why, and the
// confidence that each number of runs in ns actually gets.
func levelNote(level float64, ns []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "± is the half-width of the median's %s confidence interval, distribution-free as benchstat computes it, "+
		"at the level the sweep's summary prints: benchstat's default, %s, needs %d runs a case, and the sweep's default -count is %d.",
		pct(level), pct(runfile.BenchstatConfidence), runfile.MinRuns(runfile.BenchstatConfidence), runfile.DefaultCount)
	for _, n := range ns {
		lo, hi, conf := runfile.IntervalRanks(n, level)
		switch {
		case lo == 0:
			fmt.Fprintf(&b, " With %s there is none (±∞): %d are needed.", runs(n), runfile.MinRuns(level))
		case lo == 1 && hi == n:
			fmt.Fprintf(&b, " With %s the interval is their range, of %s confidence.", runs(n), pct(conf))
		default:
			fmt.Fprintf(&b, " With %s it spans the %s to the %s smallest, of %s confidence.", runs(n), ordinal(lo), ordinal(hi), pct(conf))
		}
	}
	return b.String()
}

// testNote says how a change is called significant, and the smallest p
// the fewest runs in ns can reach.
func testNote(base string, ns []int) string {
	alpha := benchmath.DefaultThresholds.CompareAlpha
	s := fmt.Sprintf("vs %s: the change in median where the Mann-Whitney U test of the runs gives p <= %v, as benchstat tests; ~ where it does not.", base, alpha)
	if len(ns) > 0 {
		n := ns[0]
		p := runfile.BestP(n)
		s += fmt.Sprintf(" %s against %d reach p = %.3f at best", runs(n), n, p)
		if p > alpha {
			s += ", never a change"
		}
		s += "."
	}
	return s
}

// pct formats a fraction as a percentage: 0.9375 is "93.75%".
func pct(x float64) string { return fmt.Sprintf("%.4g%%", 100*x) }

func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
