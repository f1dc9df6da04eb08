package main

import (
	"fmt"
	"io"

	"github.com/convbench/convbench/results"
	"golang.org/x/perf/benchmath"
)

// DefaultCount is the sweep's -count, the result lines of every case:
// the least that gives each case's median an interval in benchstat
// (minIntervalCount).
const DefaultCount = 6

// benchstatConfidence is the level of benchstat's default confidence
// intervals.
const benchstatConfidence = 0.95

// leastCount returns the least count of result lines, from 1, for which
// ok holds, or 0 when none up to 100 does.
func leastCount(ok func(n int) bool) int {
	for n := 1; n <= 100; n++ {
		if ok(n) {
			return n
		}
	}
	return 0
}

// spaced returns n values, from first on, one apart.
func spaced(n int, first float64) *benchmath.Sample {
	v := make([]float64, n)
	for i := range v {
		v[i] = first + float64(i)
	}
	return benchmath.NewSample(v, &benchmath.DefaultThresholds)
}

// minSignificantCount is the least count of result lines a case needs in
// each of two runs for benchstat's comparison (benchmath's Mann-Whitney
// U-test, assuming nothing of the distribution, at its default alpha) to
// call a difference between them significant: with fewer, even runs
// whose every line is faster than every line of the other get a p-value
// above alpha.
var minSignificantCount = leastCount(func(n int) bool {
	c := benchmath.AssumeNothing.Compare(spaced(n, 1), spaced(n, float64(n+1)))
	return len(c.Warnings) == 0 && c.P <= benchmath.DefaultThresholds.CompareAlpha
})

// minIntervalCount is the least count of result lines for which
// benchstat gives a case's median a confidence interval at its default
// level (benchmath's order statistics); with fewer it prints "± ∞".
var minIntervalCount = leastCount(func(n int) bool {
	return len(benchmath.AssumeNothing.Summary(spaced(n, 1), benchstatConfidence).Warnings) == 0
})

// countWarning is the warning the sweep prints before it samples when
// count result lines a case fall short of what benchstat needs to call a
// difference significant or to give a median its interval; "" when they
// do not.
func countWarning(count int) string {
	switch {
	case count < minSignificantCount:
		return fmt.Sprintf("sweep: warning: -count %d cannot show a significant difference: benchstat's U-test (p <= %g) needs %d lines a case or more in each run it compares, and its %.0f%% interval of a median %d (the default -count)",
			count, benchmath.DefaultThresholds.CompareAlpha, minSignificantCount, 100*benchstatConfidence, minIntervalCount)
	case count < minIntervalCount:
		return fmt.Sprintf("sweep: warning: -count %d gives benchstat no %.0f%% interval of a case's median (it prints ± ∞): that needs %d lines a case (the default -count)",
			count, 100*benchstatConfidence, minIntervalCount)
	}
	return ""
}

// warnCount writes countWarning's warning, if any, to w, wrapped at
// results.TerminalWidth.
func warnCount(w io.Writer, count int) {
	if msg := countWarning(count); msg != "" {
		for _, l := range results.Wrap(msg, results.TerminalWidth, "  ") {
			fmt.Fprintln(w, l)
		}
	}
}
