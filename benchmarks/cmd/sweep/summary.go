package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/convbench/convbench/results"
	"golang.org/x/perf/benchmath"
)

// alwaysKeys are the name keys the summary always shows; the other keys
// of results.NameKeys get a column when their value varies in the run.
// k follows the filter and is never shown.
var alwaysKeys = []string{"variant", "size", "filter"}

// lineSpreadUnit is the unit of each result line's own spread, the
// half-width of its median's 95% interval in percent.
const lineSpreadUnit = "median-ci95-%"

// legend explains the summary's measurement columns.
const legend = "time: median of the case's lines ± half-width of its %.0f%% interval over them; " +
	"spread: slowest line minus fastest, over the median; line ±: median of the lines' own 95%% intervals (-noise); " +
	"unstable: the lines' own intervals do not overlap, so line ± understates how much the case varies"

// printSummary writes the summary table of run r to w, one row per case
// sorted by variant, size, filter and the other keys
// (results.SortSamples), with a column for each name key that varies in
// the run, then the legend, and the cases that failed.
func printSummary(w io.Writer, r *results.Run) error {
	samples := slices.Clone(r.Samples)
	results.SortSamples(samples)
	keys := varyingKeys(samples)
	t := &results.Table{Title: fmt.Sprintf("%s on %s", r.Preset, r.Host), Keys: len(keys)}
	t.Header = append(slices.Clone(keys), "time (ms)", "spread", "line ±", "stable", "MPix/s", "GB/s")
	infinite, unstable := false, 0
	for _, s := range samples {
		row := make([]string, 0, len(t.Header))
		for _, k := range keys {
			row = append(row, s.Keys[k])
		}
		timeCell := timeCI(s.Values[s.TimeUnit()])
		infinite = infinite || strings.Contains(timeCell, "±∞")
		stable := "yes"
		switch ok, known := agree(s.Values[s.TimeUnit()], s.Values[lineSpreadUnit]); {
		case !known:
			stable = "—"
		case !ok:
			stable = "UNSTABLE"
			unstable++
		}
		row = append(row, timeCell, spreadCell(s), medianCell(s, lineSpreadUnit, "%"), stable,
			medianCell(s, "MPix/s", ""), medianCell(s, "GB/s", ""))
		t.Rows = append(t.Rows, row)
	}
	if err := t.RenderTerminal(w); err != nil {
		return err
	}
	var notes []string
	notes = append(notes, fmt.Sprintf(legend, 100*results.Confidence))
	if unstable > 0 {
		notes = append(notes, fmt.Sprintf("%s UNSTABLE: their lines differ by more than each line's interval allows (a shared or throttling host); trust their spread, not line ±", plural(unstable, "case")))
	}
	if infinite {
		notes = append(notes, fmt.Sprintf("±∞: too few runs for a %.0f%% confidence interval of the median; -count 5 or more gives one", 100*results.Confidence))
	}
	notes = append(notes, r.Failures...)
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// varyingKeys are alwaysKeys and the other name keys whose values differ
// between samples, in results.NameKeys order.
func varyingKeys(samples []*results.Sample) []string {
	keys := slices.Clone(alwaysKeys)
	for _, k := range results.NameKeys {
		if k == "k" || slices.Contains(alwaysKeys, k) {
			continue
		}
		for _, s := range samples {
			if s.Keys[k] != samples[0].Keys[k] {
				keys = append(keys, k)
				break
			}
		}
	}
	return keys
}

// agree reports whether the lines of a case, times ts each with its own
// spread (percent, half-width of its median's interval), agree: some time
// lies in every line's interval. known is false with fewer than two lines
// or without a finite spread for each.
func agree(ts, spreads []float64) (ok, known bool) {
	if len(ts) < 2 || len(spreads) != len(ts) {
		return false, false
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	for i, t := range ts {
		sp := spreads[i]
		if math.IsInf(sp, 0) || math.IsNaN(sp) || sp < 0 {
			return false, false
		}
		lo = max(lo, t*(1-sp/100))
		hi = min(hi, t*(1+sp/100))
	}
	return lo <= hi, true
}

// timeCI formats times (ns) as their median in milliseconds ± the
// half-width of its interval at results.Confidence.
func timeCI(ns []float64) string {
	if len(ns) == 0 {
		return "—"
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(ns), &benchmath.DefaultThresholds), results.Confidence)
	return sig(s.Center/1e6) + " ±" + s.PctRangeString()
}

// spreadCell is the slowest line minus the fastest over the median.
func spreadCell(s *results.Sample) string {
	sp, ok := s.Spread()
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.2g%%", 100*sp)
}

// medianCell is the median of the unit's values with suffix, "—"
// without any.
func medianCell(s *results.Sample, unit, suffix string) string {
	v, ok := s.Median(unit)
	if !ok || math.IsInf(v, 0) || math.IsNaN(v) {
		return "—"
	}
	return sig(v) + suffix
}

// sig formats v with three significant digits.
func sig(v float64) string {
	if v == 0 {
		return "0"
	}
	dec := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	return fmt.Sprintf("%.*f", dec, v)
}

// plural is "1 case" or "n cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
