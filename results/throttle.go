package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Units of the per-case metrics a benchmark binary with a clock guard and
// a noise target adds to each result line. Runs stored before those
// existed lack them, and every use below reads their absence as "not
// recorded", never as zero.
const (
	// throttledUnit counts the samples of a case taken while the GPU ran
	// below its clock limit, discarded and taken again.
	throttledUnit = "throttled-samples"
	// throttledKeptUnit counts throttled samples kept after the guard
	// gave up retaking them.
	throttledKeptUnit = "throttled-kept"
)

// spreadUnits are the names the relative spread of a case's median is
// stored under, in percent, by the binaries that stop sampling by noise.
var spreadUnits = []string{"median-ci95-%", "stdrel-%"}

// Sum returns the sum of the unit's values over the case's lines and
// whether there were any.
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

// Throttled returns how many samples of the run's cases were discarded
// as throttled and how many throttled ones were kept, summed over every
// case, and whether the run records them at all.
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

// Caveats is what the report says of a run after its cases and commit:
// ", N throttled samples discarded and taken again (K kept)" where its
// lines record throttling, ", N failed their correctness gate" where
// cases failed; "" for neither.
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

// throttledCell formats a case's throttled samples: the discarded count,
// with the kept ones after a plus ("3", "3+1 kept"), or a dash where the
// case records none.
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
