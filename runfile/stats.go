package runfile

import (
	"math"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of the confidence intervals of medians that
// the report and the comparison of runs print. At benchstat's 95% an
// interval needs six runs; the stored runs have five, which at 90% give
// their range, an interval of 94% confidence.
const Confidence = 0.90

// Tally counts the cases two runs share by how a case's median in the
// other run compares with the base run's: lower, higher, or the same
// where the test does not call them different; and it keeps the
// geometric mean of other over base.
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

// BenchstatConfidence is the level of benchstat's default confidence
// intervals.
const BenchstatConfidence = 0.95

// DefaultCount is the number of result lines a case has in a run the
// sweep writes at its default -count: the least that gives each case's
// median an interval at BenchstatConfidence (MinRuns).
const DefaultCount = 6

// IntervalRanks returns which of n runs, by rank from 1, bound the
// confidence interval at level of their median (benchmath's order
// statistics, as benchstat computes it), and the interval's actual
// confidence; lo is 0 where n runs have no such interval.
func IntervalRanks(n int, level float64) (lo, hi int, confidence float64) {
	ranks := make([]float64, n)
	for i := range ranks {
		ranks[i] = float64(i + 1)
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(ranks, &benchmath.DefaultThresholds), level)
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return 0, 0, s.Confidence
	}
	return int(s.Lo), int(s.Hi), s.Confidence
}

// MinRuns is the fewest runs whose median has an interval at level, from
// 2 up to 1000.
func MinRuns(level float64) int {
	n := 2
	for ; n < 1000; n++ {
		if lo, _, _ := IntervalRanks(n, level); lo > 0 {
			break
		}
	}
	return n
}

// BestP is the smallest p the Mann-Whitney U test, as benchstat tests,
// gives n runs against n: that of two sets of runs apart.
func BestP(n int) float64 {
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i] = float64(i), float64(n+i)
	}
	th := &benchmath.DefaultThresholds
	return benchmath.AssumeNothing.Compare(benchmath.NewSample(a, th), benchmath.NewSample(b, th)).P
}
