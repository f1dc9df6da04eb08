package results

import (
	"math"
	"strconv"

	"github.com/convbench/convbench/runfile"
)

// targetWidth is the least half-width, in percent of m (ns), of a line's
// interval by the run's noise target (runfile.ParseNoiseTarget); 0 for a
// run that states none.
func (s *Sample) targetWidth(m float64) float64 {
	target, floor, ok := runfile.ParseNoiseTarget(s.Config[runfile.KeyNoise])
	if !ok || !(m > 0) {
		return 0
	}
	if f := float64(floor.Nanoseconds()); m < f {
		return target * f / m
	}
	return target
}

// Cause is what the lines of a case whose runs disagree record that accounts for it.
type Cause int

const (
	causeNotMeasured  Cause = iota // nothing recorded accounts for it
	causeClock                     // throttled samples, or an SM clock under the guard's limit
	causeOtherProcess              // another process held the GPU during a line
	causeFirstLine                 // the later lines agree and the first is off
	causeDrift                     // the times move one way from first line to last
)

// causeWords are each Cause's Short and String words.
var causeWords = [...][2]string{
	causeNotMeasured:  {"unmeasured", "cause not measured (no throttling, clock drop, other process on the GPU or trend recorded; other load on the host is not recorded)"},
	causeClock:        {"clock", "SM clock below the guard's limit (throttled samples)"},
	causeOtherProcess: {"other process", "another process on the GPU during a line (NVML's list of processes with a compute context)"},
	causeFirstLine:    {"first line", "first line off, the later ones agreeing (the machine settling)"},
	causeDrift:        {"drift", "drift between lines (a monotone trend from first to last)"},
}

// Short is the cause as a table cell names it, after "UNSTABLE".
func (c Cause) Short() string { return causeWords[c][0] }

// String describes the cause in a sentence's words.
func (c Cause) String() string { return causeWords[c][1] }

// Causes lists every Cause in the order UnstableCause tests them.
func Causes() []Cause {
	return []Cause{causeClock, causeOtherProcess, causeFirstLine, causeDrift, causeNotMeasured}
}

// UnstableCause says why the runs of s disagree: the first cause of
// Causes that applies; ok is false when they do not disagree.
func (s *Sample) UnstableCause(unit string) (c Cause, ok bool) {
	if s.Agreement(unit) != disagree {
		return causeNotMeasured, false
	}
	if s.throttled() {
		return causeClock, true
	}
	if n, _ := s.Sum(runfile.UnitOtherProcesses); n > 0 {
		return causeOtherProcess, true
	}
	times := s.Values[s.TimeUnit()]
	if len(times) >= 3 && s.agreeAmong(unit, 1) {
		return causeFirstLine, true
	}
	if len(times) >= 3 && monotone(times) {
		return causeDrift, true
	}
	return causeNotMeasured, true
}

// throttled reports whether a line of s had throttled samples or clocks.
func (s *Sample) throttled() bool {
	for _, u := range []string{throttledUnit, throttledKeptUnit} {
		if n, _ := s.Sum(u); n > 0 {
			return true
		}
	}
	maxMHz, err := strconv.ParseFloat(s.Config[runfile.KeyGPUMaxSMMHz], 64)
	if err != nil || !(maxMHz > 0) {
		return false
	}
	limit := math.Ceil(0.9 * maxMHz)
	for _, u := range []string{"sm-mhz-start", "sm-mhz-end"} {
		for _, mhz := range s.Values[u] {
			if mhz > 0 && mhz < limit {
				return true
			}
		}
	}
	return false
}

// agreeAmong reports whether the runs of s from index from on agree.
func (s *Sample) agreeAmong(unit string, from int) bool {
	times, widths := s.Values[s.TimeUnit()], s.Values[unit]
	if len(widths) != len(times) || len(times)-from < 2 {
		return false
	}
	return s.overlap(times[from:], widths[from:])
}

// monotone reports whether xs never falls or never rises, and varies.
func monotone(xs []float64) bool {
	up, down := true, true
	for i := 1; i < len(xs); i++ {
		up = up && xs[i] >= xs[i-1]
		down = down && xs[i] <= xs[i-1]
	}
	return (up || down) && xs[0] != xs[len(xs)-1]
}

// UnstableCase is a case of a run whose runs disagree, with the cause its lines record.
type UnstableCase struct {
	Sample *Sample
	Cause  Cause
}

// Unstable lists the cases of r whose runs disagree, with their causes.
func (r *Run) Unstable() []UnstableCase {
	unit := r.spreadUnit()
	if unit == "" {
		return nil
	}
	var out []UnstableCase
	for _, s := range r.Samples {
		if c, ok := s.UnstableCause(unit); ok {
			out = append(out, UnstableCase{s, c})
		}
	}
	return out
}

// agreementLegend is the legend line of a "runs agree" column.
func agreementLegend(own string) string {
	return "runs agree: yes where one time lies in every run's own interval, each at least as wide as the run's noise target (-noise; below its floor, the same absolute width); " +
		"UNSTABLE where two runs' intervals do not overlap, so that the runs disagree beyond what their samples and the target allow and the spread, not " + own + ", is the case's noise. " +
		"In parentheses, the cause the lines record: clock (a line's samples were throttled, or it read the SM clock below the guard's limit), " +
		"other process (another process held the GPU at the start or end of a line's samples), " +
		"first line (the later lines agree and the first is off, as while the machine settles), drift (the times move one way from the first line to the last), " +
		"or unmeasured (none of these; the lines do not record other load on the host)."
}
