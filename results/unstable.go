package results

import (
	"math"
	"strconv"

	"github.com/convbench/convbench/runfile"
)

// targetWidth is the least half-width, in percent of m, of the interval
// of a line whose median time is m nanoseconds, by the noise target the
// run held its lines to: the run's "noise" configuration line states a
// target in percent and a floor below which the target is the same
// absolute width (runfile.ParseNoiseTarget). A line samples until its
// own interval is within that target, so two lines whose medians differ
// by less than it agree at the precision the run asked for, however
// narrow each line's own interval came out. It is 0 for a run that
// states no target.
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

// Cause is what the lines of a case whose runs disagree (Agreement)
// record that accounts for it, as measured by the lines themselves.
type Cause int

const (
	// causeNotMeasured: no recorded measurement accounts for it. The
	// lines do not record other load on the host (a busy CPU), which
	// this leaves.
	causeNotMeasured Cause = iota
	// causeClock: a line discarded or kept samples taken below the clock
	// guard's limit (throttled-samples, throttled-kept), or read the SM
	// clock under that limit before or after its samples.
	causeClock
	// causeOtherProcess: another process held a compute context on the
	// GPU at the start or end of a line's samples (NVML's process list,
	// runfile.UnitOtherProcesses).
	causeOtherProcess
	// causeFirstLine: the lines after the first agree with each other and
	// the first is off, as before the host or the GPU settled.
	causeFirstLine
	// causeDrift: the lines' times move one way from the first line to the
	// last (each no faster, or each no slower, than the one before).
	causeDrift
)

// Short is the cause as a table cell names it, after "UNSTABLE".
func (c Cause) Short() string {
	switch c {
	case causeClock:
		return "clock"
	case causeOtherProcess:
		return "other process"
	case causeFirstLine:
		return "first line"
	case causeDrift:
		return "drift"
	}
	return "unmeasured"
}

// String describes the cause in a sentence's words.
func (c Cause) String() string {
	switch c {
	case causeClock:
		return "SM clock below the guard's limit (throttled samples)"
	case causeOtherProcess:
		return "another process on the GPU during a line (NVML's list of processes with a compute context)"
	case causeFirstLine:
		return "first line off, the later ones agreeing (the machine settling)"
	case causeDrift:
		return "drift between lines (a monotone trend from first to last)"
	}
	return "cause not measured (no throttling, clock drop, other process on the GPU or trend recorded; other load on the host is not recorded)"
}

// Causes lists every Cause in the order UnstableCause tests them, the
// unmeasured one last.
func Causes() []Cause {
	return []Cause{causeClock, causeOtherProcess, causeFirstLine, causeDrift, causeNotMeasured}
}

// UnstableCause says why the runs of s disagree, when they do
// (Agreement(unit) is disagree), from what its lines record: the first
// of causeClock, causeOtherProcess, causeFirstLine and causeDrift that
// applies, else
// causeNotMeasured. ok is false when the runs do not disagree.
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

// throttled reports whether a line of s discarded or kept throttled
// samples, or read an SM clock under the clock guard's limit: 90% of the
// run's gpu-max-sm-mhz.
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

// agreeAmong reports whether the runs of s from the one at index from on
// agree (Agreement's rule over those runs alone).
func (s *Sample) agreeAmong(unit string, from int) bool {
	times, widths := s.Values[s.TimeUnit()], s.Values[unit]
	if len(widths) != len(times) || len(times)-from < 2 {
		return false
	}
	return s.overlap(times[from:], widths[from:])
}

// monotone reports whether xs never falls or never rises, and is not
// constant.
func monotone(xs []float64) bool {
	up, down := true, true
	for i := 1; i < len(xs); i++ {
		up = up && xs[i] >= xs[i-1]
		down = down && xs[i] <= xs[i-1]
	}
	return (up || down) && xs[0] != xs[len(xs)-1]
}

// UnstableCase is a case of a run whose runs disagree, with the cause its
// lines record.
type UnstableCase struct {
	Sample *Sample
	Cause  Cause
}

// Unstable lists the cases of r whose runs disagree beyond their own
// intervals and the run's noise target (Sample.Agreement), in file
// order, each with its cause (Sample.UnstableCause). It is empty for a
// run whose lines do not record their intervals.
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

// agreementLegend is the legend line of a "runs agree" column
// (agreementCell); own names the column of the runs' own intervals.
func agreementLegend(own string) string {
	return "runs agree: yes where one time lies in every run's own interval, each at least as wide as the run's noise target (-noise; below its floor, the same absolute width); " +
		"UNSTABLE where two runs' intervals do not overlap, so that the runs disagree beyond what their samples and the target allow and the spread, not " + own + ", is the case's noise. " +
		"In parentheses, the cause the lines record: clock (a line's samples were throttled, or it read the SM clock below the guard's limit), " +
		"other process (another process held the GPU at the start or end of a line's samples), " +
		"first line (the later lines agree and the first is off, as while the machine settles), drift (the times move one way from the first line to the last), " +
		"or unmeasured (none of these; the lines do not record other load on the host)."
}
