package main

import (
	"fmt"
	"io"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchmath"
)

// DefaultCount is the sweep's -count, the result lines of every case
// (runfile.DefaultCount).
const DefaultCount = runfile.DefaultCount

// minSignificantCount is the least count of result lines a case needs in
// each of two runs for benchstat's comparison (benchmath's Mann-Whitney
// U-test, assuming nothing of the distribution, at its default alpha) to
// call a difference between them significant: with fewer, even runs
// whose every line is faster than every line of the other get a p-value
// above alpha (runfile.BestP).
var minSignificantCount = func() int {
	n := 1
	for runfile.BestP(n) > benchmath.DefaultThresholds.CompareAlpha && n < 100 {
		n++
	}
	return n
}()

// minIntervalCount is the least count of result lines for which
// benchstat gives a case's median a confidence interval at its default
// level (benchmath's order statistics); with fewer it prints "± ∞".
var minIntervalCount = runfile.MinRuns(runfile.BenchstatConfidence)

// countWarning is the warning the sweep prints before it samples when
// count result lines a case fall short of what benchstat needs to call a
// difference significant or to give a median its interval; "" when they
// do not.
func countWarning(count int) string {
	switch {
	case count < minSignificantCount:
		return fmt.Sprintf("sweep: warning: -count %d cannot show a significant difference: benchstat's U-test (p <= %g) needs %d lines a case or more in each run it compares, and its %.0f%% interval of a median %d (the default -count)",
			count, benchmath.DefaultThresholds.CompareAlpha, minSignificantCount, 100*runfile.BenchstatConfidence, minIntervalCount)
	case count < minIntervalCount:
		return fmt.Sprintf("sweep: warning: -count %d gives benchstat no %.0f%% interval of a case's median (it prints ± ∞): that needs %d lines a case (the default -count)",
			count, 100*runfile.BenchstatConfidence, minIntervalCount)
	}
	return ""
}

// warnCount writes countWarning's warning, if any, to w, wrapped at
// results.TerminalWidth.
func warnCount(w io.Writer, count int) {
	if msg := countWarning(count); msg != "" {
		printWrapped(w, msg)
	}
}
