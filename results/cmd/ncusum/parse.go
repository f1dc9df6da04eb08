package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A figure is one of the numbers ncusum reads for a launch.
type figure int

const (
	duration figure = iota // microseconds
	sm                     // Compute (SM) Throughput, percent of peak
	memory                 // Memory Throughput
	dram                   // DRAM Throughput
	l1                     // L1/TEX Cache Throughput
	l2                     // L2 Cache Throughput
	nfigures
)

// metrics maps the metric names of the Speed Of Light section to figures.
var metrics = map[string]figure{
	"Duration":                duration,
	"Compute (SM) Throughput": sm,
	"Memory Throughput":       memory,
	"DRAM Throughput":         dram,
	"L1/TEX Cache Throughput": l1,
	"L2 Cache Throughput":     l2,
}

// solSection is the section whose rows ncusum reads: others reuse some
// of its metric names with other meanings.
const solSection = "GPU Speed Of Light Throughput"

// figures holds a value of each figure, and whether it is known.
type figures struct {
	val [nfigures]float64
	has [nfigures]bool
}

// A launch is one profiled kernel launch.
type launch struct {
	kernel, block, grid string
	figures
}

// columns locates the columns ncusum reads in a header row; an optional
// column missing from the header is -1.
type columns struct {
	width                                 int // fields in the header
	need                                  int // fields a row needs: the last column read, plus one
	id, pid, kernel, block, grid, section int
	metric, unit, value                   int
}

// parseHeader locates the columns of a header row. ID, Kernel Name,
// Metric Name, Metric Unit and Metric Value are required.
func parseHeader(line string) (columns, error) {
	rec, err := parseLine(line)
	if err != nil {
		return columns{}, fmt.Errorf("header row: %v", err)
	}
	c := columns{width: len(rec)}
	var missing []string
	for _, col := range []struct {
		name     string
		at       *int
		required bool
	}{
		{"ID", &c.id, true}, {"Process ID", &c.pid, false}, {"Kernel Name", &c.kernel, true},
		{"Block Size", &c.block, false}, {"Grid Size", &c.grid, false}, {"Section Name", &c.section, false},
		{"Metric Name", &c.metric, true}, {"Metric Unit", &c.unit, true}, {"Metric Value", &c.value, true},
	} {
		*col.at = slices.Index(rec, col.name)
		if *col.at < 0 && col.required {
			missing = append(missing, strconv.Quote(col.name))
		}
		c.need = max(c.need, *col.at+1)
	}
	if missing != nil {
		return c, fmt.Errorf("header row lacks the column %s (is it ncu --csv --page details?)", strings.Join(missing, ", "))
	}
	return c, nil
}

// get returns the field at i of rec, or "" where i is -1.
func get(rec []string, i int) string {
	if i < 0 {
		return ""
	}
	return rec[i]
}

// readLaunches reads the launches of one CSV file of ncu's details page,
// name naming it in errors, in the order their first rows come.
func readLaunches(r io.Reader, name string) ([]*launch, error) {
	var (
		cols    columns
		header  bool
		rows    int // rows of the header's width
		skipped int // lines after a header that are not such rows
		order   []*launch
		byKey   = map[string]*launch{}
		seen    = map[string]bool{} // each launch's metrics read, by launch key and metric
	)
	text, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	n := 0
	for line := range strings.Lines(string(text)) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, `"ID"`) {
			var herr error
			if cols, herr = parseHeader(line); herr != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, n, herr)
			}
			header = true
		} else if header {
			// ncu ends a metric row after its Metric Value, with a
			// trailing comma, and fills the rule columns in rule rows
			// only: a row is at least as wide as the columns read and at
			// most one wider than the header.
			rec, perr := parseLine(line)
			if perr != nil || len(rec) < cols.need || len(rec) > cols.width+1 {
				skipped++
			} else {
				rows++
				if err := addRow(rec, cols, byKey, &order, seen); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", name, n, err)
				}
			}
		}
	}
	switch {
	case !header:
		return nil, fmt.Errorf("%s: no kernel launch found: no CSV header row starting with \"ID\" (ncu --csv --page details writes one)", name)
	case len(order) == 0 && rows == 0:
		return nil, fmt.Errorf("%s: no kernel launch found: no row after the header is a CSV row of %d to %d columns (%d lines skipped)", name, cols.need, cols.width+1, skipped)
	case len(order) == 0:
		return nil, fmt.Errorf("%s: no kernel launch found: none of the %d rows is a metric of section %q", name, rows, solSection)
	}
	return order, nil
}

// parseLine reads one line as a CSV record.
func parseLine(line string) ([]string, error) {
	cr := csv.NewReader(strings.NewReader(line))
	cr.FieldsPerRecord = -1
	return cr.Read()
}

// addRow adds the metric of one row to its launch, creating the launch
// at its first row of the Speed Of Light section. Rows of other
// sections, and rule rows (no metric name), are left out.
func addRow(rec []string, c columns, byKey map[string]*launch, order *[]*launch, seen map[string]bool) error {
	if c.section >= 0 && rec[c.section] != solSection {
		return nil
	}
	metric := rec[c.metric]
	if metric == "" {
		return nil
	}
	id := rec[c.id]
	key := get(rec, c.pid) + "\x00" + id
	l := byKey[key]
	if l == nil {
		l = &launch{kernel: rec[c.kernel], block: get(rec, c.block), grid: get(rec, c.grid)}
		byKey[key] = l
		*order = append(*order, l)
	} else if l.kernel != rec[c.kernel] || l.block != get(rec, c.block) || l.grid != get(rec, c.grid) {
		return fmt.Errorf("launch ID %s is %s block %s grid %s here, %s block %s grid %s in an earlier row",
			id, rec[c.kernel], get(rec, c.block), get(rec, c.grid), l.kernel, l.block, l.grid)
	}
	f, ok := metrics[metric]
	if !ok {
		return nil
	}
	v, has, err := metricValue(f, rec[c.unit], rec[c.value])
	if err != nil {
		return fmt.Errorf("launch ID %s, %s: %v", id, metric, err)
	}
	if seen[key+"\x00"+metric] {
		return fmt.Errorf("launch ID %s has a second %s row", id, metric)
	}
	seen[key+"\x00"+metric] = true
	l.val[f], l.has[f] = v, has
	return nil
}

// metricValue reads the value of figure f, given in unit: a duration in
// microseconds, a share in percent. A value of "n/a" or "" is unknown.
func metricValue(f figure, unit, value string) (v float64, has bool, err error) {
	if value == "" || value == "n/a" {
		return 0, false, nil
	}
	v, err = parseNumber(value)
	if err != nil {
		return 0, false, err
	}
	if f == duration {
		scale, ok := microseconds[unit]
		if !ok {
			return 0, false, fmt.Errorf("unit %q is not a unit of time ncusum knows (ns, us, ms, s, nsecond, usecond, msecond, second)", unit)
		}
		return v * scale, true, nil
	}
	if unit != "%" {
		return 0, false, fmt.Errorf("unit %q, want %%", unit)
	}
	return v, true, nil
}

// microseconds holds the microseconds in each unit of time ncu writes.
var microseconds = map[string]float64{
	"ns": 1e-3, "nsecond": 1e-3,
	"us": 1, "usecond": 1,
	"ms": 1e3, "msecond": 1e3,
	"s": 1e6, "second": 1e6,
}

// grouped matches a number whose integer part has thousands separators.
var grouped = regexp.MustCompile(`^[-+]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?$`)

// parseNumber reads a decimal number that may carry thousands
// separators ("1,234.56").
func parseNumber(s string) (float64, error) {
	t := s
	if strings.Contains(s, ",") && grouped.MatchString(s) {
		t = strings.ReplaceAll(s, ",", "")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not a number", s)
	}
	return v, nil
}
