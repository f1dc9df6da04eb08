package runfile

import "math"

// Confidence is the level of the confidence intervals of medians read
// from runs: the report's tables and the comparison of two runs print
// them at this level. benchmath's interval of a median is made of order
// statistics, and at the 95% that benchstat uses by default it needs six
// runs or more to be finite; the stored runs have five, which at 90% give
// the range of the runs, an interval of 94% confidence.
const Confidence = 0.90

// Tally counts the cases two runs share by how a case's median in the
// other run compares with its median in the base run: lower, higher, or
// the same where the Mann-Whitney U test does not call them different;
// and it keeps the geometric mean of the other's medians over the base's.
type Tally struct {
	Pairs, Lower, Higher, Same int
	logs                       float64 // the sum of log(other/base) over the pairs
}

// Add counts one case, of medians base and other, which the test calls
// different or not.
func (t *Tally) Add(base, other float64, differ bool) {
	t.Pairs++
	t.logs += math.Log(other / base)
	switch {
	case differ && other < base:
		t.Lower++
	case differ && other > base:
		t.Higher++
	default:
		t.Same++
	}
}

// Geomean is the geometric mean of the pairs' other/base, NaN with no
// pair.
func (t Tally) Geomean() float64 { return math.Exp(t.logs / float64(t.Pairs)) }
