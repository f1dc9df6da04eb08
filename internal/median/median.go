// Package median gives the median of a set of values as benchstat does.
//
// The value is benchmath's (golang.org/x/perf/benchmath): the centre of
// its distribution-free summary, the middle value or the mean of the
// middle two. The tuner and the fleet's comparison use it, so that their
// medians are those the report and benchstat print.
package median

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Of returns the median of xs, or NaN when xs is empty; xs is left as it
// is.
func Of(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, 0.95).Center
}
