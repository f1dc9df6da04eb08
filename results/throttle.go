package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Units of the clock guard's counts: samples taken below the GPU's clock
// limit and taken again, and those kept after the guard gave up.
const (
	throttledUnit     = "throttled-samples"
	throttledKeptUnit = "throttled-kept"
)

// spreadUnits are the units of the relative spread of a line's median, in percent.
var spreadUnits = []string{"median-ci95-%", "stdrel-%"}

// Sum returns the sum of the unit's values and whether there were any.
func (s *Sample) Sum(unit string) (float64, bool) {
	v := s.Values[unit]
	if len(v) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum, true
}

// Has reports whether any case of the run records the unit.
func (r *Run) Has(unit string) bool {
	return slices.ContainsFunc(r.Samples, func(s *Sample) bool { return len(s.Values[unit]) > 0 })
}

// Throttled returns the run's throttled samples discarded and kept, if recorded.
func (r *Run) Throttled() (discarded, kept int, ok bool) {
	if !r.Has(throttledUnit) {
		return 0, 0, false
	}
	for _, s := range r.Samples {
		d, _ := s.Sum(throttledUnit)
		k, _ := s.Sum(throttledKeptUnit)
		discarded += int(d)
		kept += int(k)
	}
	return discarded, kept, true
}

// Caveats is what the report says of a run's throttled samples and failed cases, or "".
func (r *Run) Caveats() string {
	var b strings.Builder
	if d, k, ok := r.Throttled(); ok {
		fmt.Fprintf(&b, ", %d throttled samples discarded and taken again", d)
		if k > 0 {
			fmt.Fprintf(&b, " (%d kept)", k)
		}
	}
	if n := len(r.Failures); n > 0 {
		fmt.Fprintf(&b, ", %d failed their correctness gate", n)
	}
	return b.String()
}

// throttledCell formats a case's throttled samples: "3", "3+1 kept".
func throttledCell(s *Sample) string {
	d, ok := s.Sum(throttledUnit)
	if !ok {
		return missing
	}
	cell := strconv.Itoa(int(d))
	if k, _ := s.Sum(throttledKeptUnit); k > 0 {
		cell += "+" + strconv.Itoa(int(k)) + " kept"
	}
	return cell
}

// spreadUnit is the unit of spreadUnits the run records, or "".
func (r *Run) spreadUnit() string {
	for _, u := range spreadUnits {
		if r.Has(u) {
			return u
		}
	}
	return ""
}
