// Package median gives the median of a set of values as benchstat does
// (golang.org/x/perf/benchmath).
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
