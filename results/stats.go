package results

import (
	"math"
	"slices"

	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchmath"
)

// thresholds are benchmath's defaults, as benchstat uses them.
var thresholds = benchmath.DefaultThresholds

// Measure is every run's value of one quantity of one case, or nothing.
type Measure struct {
	s *benchmath.Sample
}

// measureOf is the measure of smp's unit.
func measureOf(smp *Sample, unit string) Measure {
	if smp == nil || len(smp.Values[unit]) == 0 {
		return Measure{}
	}
	return Measure{benchmath.NewSample(slices.Clone(smp.Values[unit]), &thresholds)}
}

// timeOf is the measure of smp's time (Sample.TimeUnit).
func timeOf(smp *Sample) Measure {
	if smp == nil {
		return Measure{}
	}
	return measureOf(smp, smp.TimeUnit())
}

// OK reports whether the measure holds any value.
func (m Measure) OK() bool { return m.s != nil && len(m.s.Values) > 0 }

// Summary is the median with its confidence interval at runfile.Confidence.
func (m Measure) Summary() benchmath.Summary {
	return benchmath.AssumeNothing.Summary(m.s, runfile.Confidence)
}

// Center is the median, or NaN when the measure holds nothing.
func (m Measure) Center() float64 {
	if !m.OK() {
		return math.NaN()
	}
	return m.Summary().Center
}

// Compare tests whether a and b differ, by the Mann-Whitney U test.
func Compare(a, b Measure) benchmath.Comparison {
	return benchmath.AssumeNothing.Compare(a.s, b.s)
}

// ratio is a's median over b's and whether they differ significantly; ok
// is false where either holds no positive median.
func ratio(a, b Measure) (r float64, significant, ok bool) {
	ca, cb := a.Center(), b.Center() // NaN where either holds nothing
	if !(ca > 0) || !(cb > 0) {
		return 0, false, false
	}
	c := Compare(a, b)
	return ca / cb, c.P <= c.Alpha, true
}

// msCI formats a time measure (ns) in ms with its interval: "1.23 ±4%".
func msCI(m Measure) string { return centerCI(m, 1e6) }

// centerCI formats m's median over unit with its interval, or a dash.
func centerCI(m Measure, unit float64) string {
	if !m.OK() {
		return missing
	}
	s := m.Summary()
	if !(s.Center > 0) {
		return missing
	}
	return Sig(s.Center/unit, 3) + " ±" + s.PctRangeString()
}

// ratioCell formats a over b as "1.23×", or "~" where they do not differ significantly.
func ratioCell(a, b Measure) string {
	r, significant, ok := ratio(a, b)
	switch {
	case !ok:
		return missing
	case !significant:
		return "~"
	}
	return Sig(r, 3) + "×"
}

// Measure is the time of the sample h.Sample finds for q.
func (h *Host) Measure(q Q) Measure { return timeOf(h.Sample(q)) }

// Measure is the time of the single sample of r matching q.
func (r *Run) Measure(q Q) Measure { return timeOf(r.Sample(q)) }
