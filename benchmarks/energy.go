package benchmarks

import (
	"fmt"
	"time"

	"github.com/convbench/convbench/runfile"
)

// EnergyCounter reads the cumulative energy counter of the GPU the cases
// run on; cudabind's NVML binding is one (see openHost), tests use fakes.
type EnergyCounter interface {
	// EnergyMJ is the energy the GPU has drawn since its driver loaded,
	// in millijoules.
	EnergyMJ() (uint64, error)
}

// defaultEnergyMinSpan is the least metered time of a result line whose
// energy is reported: the sum, over the line's samples, of the wall time
// between the two counter readings around each sample's timed runs, or
// the wall time between the readings around its energy phase
// (EnergyMeter.Phase), which a line whose samples span less runs after
// them.
//
// NVML's counter (nvmlDeviceGetTotalEnergyConsumption) is not read from
// the power sensor at each call: the driver adds to it at each of its own
// updates, every ten milliseconds or so on the Volta to Hopper boards
// reported (energyMeterFor measures the period on the GPU at hand). A
// reading therefore lags the energy drawn by up to one update, and the
// advance over a span is off by up to one update's energy at each end of
// it; summed over many short samples, the updates that fall between
// samples are lost or counted at random, which adds noise of the same
// size. Over 100 ms, ten updates or more, that error is at most about a
// tenth at a 10 ms period and shrinks as the line grows longer; under it
// the error could be as large as the value, so a line never reports
// energy measured over less. energyMeterFor raises the span to ten
// update periods of a counter that updates more slowly.
const defaultEnergyMinSpan = 100 * time.Millisecond

// EnergyMeter reads the GPU's energy counter before and after the timed
// runs of each sample of a GPU case (Meter), and around a line's energy
// phase where its samples span less than MinSpan (Phase), so that each
// result line can report the energy one run drew (mJ/op) and the work it
// did per joule (GFLOP/J). A meter with a nil Counter is off: Off says
// why, and lines carry no energy.
type EnergyMeter struct {
	Counter EnergyCounter // nil: off
	// MinSpan is the least metered time of a line that reports its
	// energy; 0 means defaultEnergyMinSpan.
	MinSpan time.Duration
	// Period is the counter's update period as measured when it was
	// opened (measureEnergyPeriod); 0 when not measured.
	Period time.Duration
	Off    string // why the meter is off
	// newWatch, when set, makes the counterWatch of an aligned energy
	// phase in place of a pollWatch of Counter (tests).
	newWatch func() counterWatch
}

// On reports whether the meter reads a counter.
func (m *EnergyMeter) On() bool { return m != nil && m.Counter != nil }

// offReason is why a meter that is off is: its Off, or "no energy
// counter".
func (m *EnergyMeter) offReason() string {
	if m != nil && m.Off != "" {
		return m.Off
	}
	return "no energy counter"
}

// minSpan is m.MinSpan, or defaultEnergyMinSpan when unset.
func (m *EnergyMeter) minSpan() time.Duration {
	if m == nil || m.MinSpan <= 0 {
		return defaultEnergyMinSpan
	}
	return m.MinSpan
}

// ConfigLine is the output's configuration line of the meter: how the
// lines' energy metrics are measured and which lines carry them, or why
// no line does. It names MinSpan and the energy phase's bounds, which are
// the same from run to run on one GPU.
func (m *EnergyMeter) ConfigLine() string {
	if !m.On() {
		return runfile.ConfigLine(runfile.KeyGPUEnergy, "off ("+m.offReason()+"); lines carry no mJ/op or GFLOP/J")
	}
	span := m.minSpan()
	if m.Period > 0 {
		// The spans follow the period measured at the start, which varies
		// from run to run and GPU to GPU (Note gives them): the line names
		// the rule, so that runs to be compared share it.
		return runfile.KeyGPUEnergy + fmt.Sprintf(": NVML energy counter over at least ten of its update periods of timed runs (rounded up to 50ms, at least %v), where it advanced: a GPU line's samples, or where they span less an energy phase after them between two of the counter's updates at least %d update periods apart (rounded up to 50ms, at least %v), read beside the runs; cache=cold lines their samples alone; timing=plan lines and lines on other GPUs none",
			defaultEnergyMinSpan, alignedSpanPeriods, defaultEnergyMinSpan)
	}
	return runfile.KeyGPUEnergy + fmt.Sprintf(": NVML energy counter over at least %v of timed runs, where it advanced: a GPU line's samples, or where they span less an energy phase after them of as many of the line's runs as its ns/op puts at %v, more until they span %v, stopped at %v; cache=cold lines their samples alone; timing=plan lines and lines on other GPUs none",
		span, phaseTarget(span), span, phaseLimit(span))
}

// Note is the progress note that describes the meter at the first GPU
// line: the counter's measured update period, the span a line's energy
// needs and the energy phase that makes it up, when on; why it is off
// otherwise. (The configuration line leaves the period out: it varies
// from run to run, and benchstat would split tables by it.)
func (m *EnergyMeter) Note() string {
	if !m.On() {
		return fmt.Sprintf("energy: not recorded (%s): GPU lines carry no mJ/op or GFLOP/J", m.offReason())
	}
	period := "an update period not measured"
	if m.Period > 0 {
		period = fmt.Sprintf("updates about every %v", m.Period.Round(100*time.Microsecond))
		return fmt.Sprintf("energy: NVML's counter, %s; GPU lines carry mJ/op and GFLOP/J over at least %v of timed runs: their samples', or where the samples span less an energy phase's after them, between two updates at least %v apart (cache=cold lines their samples' alone)",
			period, m.minSpan(), m.alignedSpan())
	}
	return fmt.Sprintf("energy: NVML's counter, %s; GPU lines carry mJ/op and GFLOP/J over at least %v of timed runs: their samples', or an energy phase's of about %v after them where the samples span less (cache=cold lines their samples' alone)",
		period, m.minSpan(), phaseTarget(m.minSpan()))
}

// EnergyUse is the advance of the energy counter over timed runs: over
// the runs of one sample, summed over the accepted samples of a result
// line (Add), or over a line's energy phase (EnergyMeter.Phase).
type EnergyUse struct {
	MJ      uint64        // the counter's advance, millijoules
	Span    time.Duration // wall time between the readings
	Runs    int           // runs timed between the readings
	Samples int           // samples metered; 1 for an energy phase
	// Phase says the runs are a line's energy phase, timed after its
	// samples for their energy alone, not its samples.
	Phase bool
	// Updates is, for a phase aligned to the counter's updates
	// (EnergyMeter.Phase with a measured Period), the time between the
	// two updates whose readings MJ is the difference of; Span and Runs
	// are then the runs timed wholly between them. 0 otherwise.
	Updates time.Duration
	// Failed says why a sample's readings cannot be used (a reading
	// failed, or the counter went back), the first such sample's; empty
	// when every sample's were good.
	Failed string
}

// Add adds the use of another sample (or set of samples) to u.
func (u *EnergyUse) Add(v EnergyUse) {
	u.MJ += v.MJ
	u.Span += v.Span
	u.Runs += v.Runs
	u.Samples += v.Samples
	if u.Failed == "" {
		u.Failed = v.Failed
	}
}

// Meter reads the counter before and after timed, which times runs runs,
// and returns timed's error and the counter's advance between the two
// readings; now is the clock of the span. A reading that fails or goes
// back is recorded in the use (Failed), not returned: the energy meter
// never fails a line.
func (m *EnergyMeter) Meter(runs int, now func() time.Time, timed func() error) (EnergyUse, error) {
	if !m.On() {
		return EnergyUse{}, timed()
	}
	before, errBefore := m.Counter.EnergyMJ()
	t0 := now()
	err := timed()
	span := now().Sub(t0)
	after, errAfter := m.Counter.EnergyMJ()
	u := EnergyUse{Span: span, Runs: runs, Samples: 1}
	switch {
	case errBefore != nil:
		u.Failed = "reading the energy counter: " + errBefore.Error()
	case errAfter != nil:
		u.Failed = "reading the energy counter: " + errAfter.Error()
	case after < before:
		u.Failed = fmt.Sprintf("the energy counter went back from %d to %d mJ", before, after)
	default:
		u.MJ = after - before
	}
	return u, err
}

// maxPhaseRuns bounds the runs of an energy phase (EnergyMeter.Phase):
// 2^24 runs last far longer than phaseLimit at any GPU's launch rate, so
// it binds only on runs under 7 ns, which no real run is, or a ns/op of 0.
const maxPhaseRuns = 1 << 24

// phaseTarget is the span an energy phase aims at under a meter whose
// MinSpan is minSpan: a tenth more, so that runs a little faster than the
// line's median still span minSpan.
func phaseTarget(minSpan time.Duration) time.Duration { return minSpan + minSpan/10 }

// phaseLimit is the wall time after which an energy phase stops at the
// end of the batch then running: twice minSpan.
func phaseLimit(minSpan time.Duration) time.Duration { return 2 * minSpan }

// phaseRuns is the number of runs an energy phase times for a line whose
// one run takes perRun (its ns/op): ⌈phaseTarget / perRun⌉, so that the
// runs at perRun span phaseTarget, at most maxPhaseRuns (which a perRun
// that is not positive also gets).
func phaseRuns(perRun, minSpan time.Duration) int {
	if perRun <= 0 {
		return maxPhaseRuns
	}
	n := (phaseTarget(minSpan) + perRun - 1) / perRun
	return int(min(n, maxPhaseRuns))
}

// Phase meters a line's energy phase: the runs timed, after a line's
// samples spanned less than MinSpan, for their energy alone. run times k
// of the line's runs the way its samples did (kernel launches, graph
// replays or whole runs); Phase calls it with batches of at most batch
// runs (the line's batch size) until phaseRuns(perRun) runs are done,
// perRun being the line's median wall time of a run (its ns/op), and
// then, where those ran faster than perRun and spanned less than MinSpan
// by now, with more batches until they span it. It stops sooner, at the
// end of the batch then running, once the phase has lasted phaseLimit
// (twice MinSpan) or timed maxPhaseRuns runs. It reads the counter before
// the first batch and after the last, as Meter does, and returns the
// counter's advance with the runs done counted exactly, Samples 1 and
// Phase set (PerRun judges it as it does samples), and run's error. An
// off meter runs nothing and returns a zero use.
//
// A meter that knows its counter's update period (Period, measured when
// it was opened) aligns the phase to the counter's updates instead
// (alignedPhase), which needs about a third of the time.
func (m *EnergyMeter) Phase(perRun time.Duration, batch int, now func() time.Time, run func(k int) error) (EnergyUse, error) {
	if !m.On() {
		return EnergyUse{}, nil
	}
	if m.Period > 0 {
		return m.alignedPhase(perRun, batch, now, run)
	}
	span := m.minSpan()
	n, limit := phaseRuns(perRun, span), phaseLimit(span)
	batch = max(batch, 1)
	done := 0
	u, err := m.Meter(0, now, func() error {
		start := now()
		for done < maxPhaseRuns {
			k := min(batch, maxPhaseRuns-done)
			if done < n {
				k = min(k, n-done)
			}
			if err := run(k); err != nil {
				return err
			}
			done += k
			if d := now().Sub(start); d >= limit || done >= n && d >= span {
				break
			}
		}
		return nil
	})
	u.Runs, u.Phase = done, true
	return u, err
}

// phaseTime is the time the energy phase of a line adds to it under a
// meter of least span minSpan (0: defaultEnergyMinSpan), for a line whose
// samples span span of timed runs of perRun each: none when span is at
// least minSpan or perRun is not positive, else its runs at perRun
// (phaseRuns), at most phaseLimit and a run.
func phaseTime(span, perRun, minSpan time.Duration) time.Duration {
	if minSpan <= 0 {
		minSpan = defaultEnergyMinSpan
	}
	if span >= minSpan || perRun <= 0 {
		return 0
	}
	return min(time.Duration(phaseRuns(perRun, minSpan))*perRun, phaseLimit(minSpan)+perRun)
}

// EnergyRule names why a result line carries no energy metrics.
type EnergyRule string

const (
	// energyOff: no meter, or a meter that is off (its Off says why).
	energyOff EnergyRule = "no energy counter"
	// energyOtherGPU: the case runs on a GPU other than the metered one,
	// or on several.
	energyOtherGPU EnergyRule = "the case runs on other GPUs than the metered device 0"
	// energyPlanTiming: the case times plans (planTiming), the host's
	// work, not runs on the GPU.
	energyPlanTiming EnergyRule = "the case times plans, the host's work, not runs on the GPU"
	// energyUnread: a reading failed or went back.
	energyUnread EnergyRule = "the energy counter could not be read"
	// energyShortSpan: the metered runs, the samples' or the energy
	// phase's, span less than the meter's MinSpan.
	energyShortSpan EnergyRule = "the metered runs span too little time for the counter's resolution"
	// energyColdShort: the samples of a cold case (an L2 flush before
	// each run, which no energy phase repeats) span less than MinSpan.
	energyColdShort EnergyRule = "the samples of a cold case (one run each after an L2 flush, no energy phase) span too little time for the counter's resolution"
	// energyStill: the counter did not advance over the metered runs.
	energyStill EnergyRule = "the energy counter did not advance"
)

// LineEnergy is what a result line reports of its energy: MJPerRun, or
// the rule that leaves it out (Omitted) with the line's numbers (Detail).
type LineEnergy struct {
	MJPerRun float64
	Omitted  EnergyRule // "" when MJPerRun is reported
	Detail   string
}

// Reported reports whether the line carries energy metrics.
func (e LineEnergy) Reported() bool { return e.Omitted == "" }

// PerRun is the energy per run of a line whose samples, or energy phase,
// used u: the counter's advance over the runs they timed, in
// millijoules. The line carries none when the meter is off, a reading
// failed, the runs span less than MinSpan, or the counter did not
// advance.
func (m *EnergyMeter) PerRun(u EnergyUse) LineEnergy {
	what := fmt.Sprintf("%d samples", u.Samples)
	if u.Phase {
		what = fmt.Sprintf("the energy phase's %d runs", u.Runs)
	}
	switch {
	case !m.On():
		return LineEnergy{Omitted: energyOff, Detail: m.offReason()}
	case u.Failed != "":
		return LineEnergy{Omitted: energyUnread, Detail: u.Failed}
	case u.Samples == 0 || u.Runs <= 0:
		return LineEnergy{Omitted: energyUnread, Detail: "no run was metered"}
	case u.Updates > 0 && u.Updates < m.alignedSpan():
		return LineEnergy{Omitted: energyShortSpan, Detail: fmt.Sprintf("%s between updates %v apart, under %v", what, u.Updates.Round(time.Microsecond), m.alignedSpan())}
	case u.Updates > 0 && u.MJ == 0:
		return LineEnergy{Omitted: energyStill, Detail: fmt.Sprintf("0 mJ between updates %v apart", u.Updates.Round(time.Microsecond))}
	case u.Updates > 0 && u.Span <= 0:
		return LineEnergy{Omitted: energyUnread, Detail: "no run was metered"}
	case u.Updates > 0:
		// The power between the two updates, times the wall time of one
		// of the runs timed between them.
		return LineEnergy{MJPerRun: float64(u.MJ) / u.Updates.Seconds() * u.Span.Seconds() / float64(u.Runs)}
	case u.Span < m.minSpan():
		return LineEnergy{Omitted: energyShortSpan, Detail: fmt.Sprintf("%s span %v, under %v", what, u.Span.Round(time.Microsecond), m.minSpan())}
	case u.MJ == 0:
		return LineEnergy{Omitted: energyStill, Detail: fmt.Sprintf("0 mJ over %s spanning %v", what, u.Span.Round(time.Microsecond))}
	}
	return LineEnergy{MJPerRun: float64(u.MJ) / float64(u.Runs)}
}

// gflopPerJoule is the work of one run of flops floating-point operations
// that drew mJPerRun millijoules, in GFLOP per joule; 0 when mJPerRun is
// not positive.
func gflopPerJoule(flops, mJPerRun float64) float64 {
	if !(mJPerRun > 0) {
		return 0
	}
	return flops / 1e9 / (mJPerRun / 1e3)
}

// meteredDevices reports whether a case on the devices gpus (its gpus
// key) runs on the metered GPU alone: device 0, as one or several
// logical devices.
func meteredDevices(gpus string) bool {
	devs, err := parseDevices(gpus)
	if err != nil {
		return false
	}
	for _, d := range devs {
		if d != 0 {
			return false
		}
	}
	return true
}

// measureEnergyPeriod polls c every poll until it has seen the counter
// advance three times, or limit has passed, and returns the mean time
// between its advances; now and sleep are the clock (time.Now and
// time.Sleep outside tests). It is an error when c cannot be read, goes
// back, or advances fewer than three times within limit.
func measureEnergyPeriod(c EnergyCounter, poll, limit time.Duration, now func() time.Time, sleep func(time.Duration)) (time.Duration, error) {
	last, err := c.EnergyMJ()
	if err != nil {
		return 0, err
	}
	start := now()
	var first, latest time.Time
	steps := 0
	for steps < 3 {
		if now().Sub(start) >= limit {
			return 0, fmt.Errorf("the energy counter advanced %d times in %v, want 3 (it stayed at %d mJ)", steps, limit, last)
		}
		sleep(poll)
		e, err := c.EnergyMJ()
		if err != nil {
			return 0, err
		}
		if e < last {
			return 0, fmt.Errorf("the energy counter went back from %d to %d mJ", last, e)
		}
		if e == last {
			continue
		}
		last = e
		latest = now()
		if steps == 0 {
			first = latest
		}
		steps++
	}
	return latest.Sub(first) / time.Duration(steps-1), nil
}

// energyMeterFor returns the meter of counter c: off with why when c is
// nil, when its update period cannot be measured (measureEnergyPeriod,
// polling every 200us for at most a second), else on with MinSpan the
// larger of defaultEnergyMinSpan and ten update periods rounded up to a
// multiple of 50ms (so that the configuration line that names it stays
// the same from run to run).
func energyMeterFor(c EnergyCounter, why string, now func() time.Time, sleep func(time.Duration)) *EnergyMeter {
	if c == nil {
		return &EnergyMeter{Off: why}
	}
	period, err := measureEnergyPeriod(c, 200*time.Microsecond, time.Second, now, sleep)
	if err != nil {
		return &EnergyMeter{Off: "NVML energy counter unusable: " + err.Error()}
	}
	m := alignedMeter(period)
	m.Counter = c
	return m
}

// alignedMeter is a meter of a counter that updates every period, with
// no counter: its MinSpan is ten periods (periodsSpan), and its energy
// phases align to the updates.
func alignedMeter(period time.Duration) *EnergyMeter {
	return &EnergyMeter{Period: period, MinSpan: periodsSpan(10, period)}
}

// PhaseEstimate is the time the energy phase of a line whose samples
// span span, of runs of perRun each, adds to it under m: none where span
// reaches MinSpan or perRun is not positive; for an aligned meter the
// wait for the counter's next update (a period at most), alignedSpan, and
// the batch under way when the phase ends (a tenth of a period, or a
// run); else phaseTime's.
func (m *EnergyMeter) PhaseEstimate(span, perRun time.Duration) time.Duration {
	if m.Period <= 0 {
		return phaseTime(span, perRun, m.minSpan())
	}
	if span >= m.minSpan() || perRun <= 0 {
		return 0
	}
	return m.Period + m.alignedSpan() + max(m.Period/10, perRun)
}
