package benchmarks

import (
	"fmt"
	"math"
	"slices"
	"time"

	"golang.org/x/perf/benchmath"
)

// Noise is the rule that ends a case's sample set, in the manner of
// nvbench: samples are taken until the spread of their median is under
// a target or a time limit passes.
//
// The spread of a sample set is the relative half-width of the 95%
// confidence interval of its median, in percent: with the interval
// [lo, hi] around the median m that benchmath.AssumeNothing gives
// (distribution-free, from order statistics),
//
//	spread = 100 * max(hi/m - 1, 1 - lo/m)
//
// which is the "± x%" benchstat prints for a row. It needs at least 6
// samples (MinCISamples); with fewer it is infinite.
//
// A set stops at the first of:
//   - noise: at least MinSamples samples and a spread at most the target
//     (Target percent; for a median m below Floor, Target percent of Floor
//     as an absolute width, that is a spread of Target * Floor / m), and,
//     for a median below Floor, at least MinTime since the first sample;
//   - time: MaxTime has passed since the set's first sample and it has at
//     least MinCISamples samples.
//
// Short runs and the machine's state. A case of a few microseconds a run
// meets its target, an absolute half a microsecond, at its first test: ten
// samples of a millisecond, a line of about 12 ms, each line a snapshot of
// whatever state the host and the GPU are in for those 12 ms. Timed from
// host launches, such a kernel runs at the host's launch rate, which
// follows the CPU's clock and scheduler, and the committed runs of the
// default preset show it: gpu-naive at 256x256 from host launches read
// 5.0, 4.8, 3.7, 3.7 and 4.4 µs in five lines on an idle H200, and
// gpu-shared at 512x512 fell from 8.8 to 5.4 µs line by line on an H100.
// More samples of the same 12 ms would only narrow each line's interval
// around its own state. Graph replays keep the host out of the time, but
// they time another quantity under another name: the report ranks the
// variants by the default preset's host-launch cases, and the presets set
// host launches beside graph replays on purpose. So the rule spreads such
// a line over time instead, as nvbench's minimum time does: a line whose
// median is below Floor samples for at least MinTime, long enough to span
// changes of the host's clock and scheduler (100 ms: 25 scheduler ticks
// of 4 ms), so that its median is that of the states it met and its
// interval their spread; and a case's first line follows WarmUp of its
// runs, timed and discarded (Runner), so that it does not sample a ramp
// the later lines have left behind. Lines of longer runs stop as before.
// The cost is about 90 ms a short line and 200 ms a case: about 45 s on
// the default preset.
type Noise struct {
	Target     float64       // largest spread, percent, for medians of Floor or more
	Floor      time.Duration // medians below it are held to Target percent of Floor
	MinSamples int           // samples before the spread is tested (at least MinCISamples count)
	MaxTime    time.Duration // time limit of one sample set
	// SampleTime is the least duration of one sample: runs shorter than
	// it are timed in batches (batch), so that a sample is not the timer's
	// resolution.
	SampleTime time.Duration
	// MinTime is the least time a line whose median is below Floor
	// samples before its spread may stop it; MaxTime still ends it.
	MinTime time.Duration
	// WarmUp is how long the runs of a case are timed and discarded
	// before its first line, the batch sizing included (Runner); plan
	// cases, whose samples are plans, have none.
	WarmUp time.Duration
}

// MinCISamples is the fewest samples whose median has a 95% confidence
// interval (benchmath.AssumeNothing).
const MinCISamples = 6

// DefaultNoise is the sampling rule of the benchmark flags' defaults.
var DefaultNoise = Noise{Target: 1, Floor: 50 * time.Microsecond, MinSamples: 10, MaxTime: 2 * time.Second, SampleTime: time.Millisecond,
	MinTime: 100 * time.Millisecond, WarmUp: 200 * time.Millisecond}

// Validate reports a rule that cannot stop or cannot be met.
func (n Noise) Validate() error {
	switch {
	case !(n.Target > 0) || math.IsInf(n.Target, 1):
		return fmt.Errorf("benchmarks: noise target %v%%: must be a positive percentage", n.Target)
	case n.Floor < 0:
		return fmt.Errorf("benchmarks: noise floor %v: must not be negative", n.Floor)
	case n.MinSamples < 1:
		return fmt.Errorf("benchmarks: min samples %d: must be at least 1", n.MinSamples)
	case n.MaxTime <= 0:
		return fmt.Errorf("benchmarks: max time %v: must be positive", n.MaxTime)
	case n.SampleTime < 0:
		return fmt.Errorf("benchmarks: sample time %v: must not be negative", n.SampleTime)
	case n.MinTime < 0:
		return fmt.Errorf("benchmarks: min time %v: must not be negative", n.MinTime)
	case n.WarmUp < 0:
		return fmt.Errorf("benchmarks: warm-up %v: must not be negative", n.WarmUp)
	}
	return nil
}

// String describes the rule for the output's configuration line; it opens
// with the target as runfile.ParseNoiseTarget reads it.
func (n Noise) String() string {
	s := fmt.Sprintf("median-ci95 <= %g%% (of %v for medians below it), at least %d samples, at most %v per line unless under %d samples, samples of at least %v",
		n.Target, n.Floor, max(n.MinSamples, MinCISamples), n.MaxTime, MinCISamples, n.SampleTime)
	if n.MinTime > 0 {
		s += fmt.Sprintf(", lines of medians below %v sampled for at least %v", n.Floor, n.MinTime)
	}
	if n.WarmUp > 0 {
		s += fmt.Sprintf(", %v of a case's runs discarded before its first line", n.WarmUp)
	}
	return s
}

// short reports whether a median of medianNs nanoseconds is below the
// floor: its line samples for at least MinTime.
func (n Noise) short(medianNs float64) bool {
	return medianNs < float64(n.Floor.Nanoseconds())
}

// TargetFor is the spread, in percent, that a sample set of median
// medianNs nanoseconds must reach.
func (n Noise) TargetFor(medianNs float64) float64 {
	if f := float64(n.Floor.Nanoseconds()); medianNs > 0 && medianNs < f {
		return n.Target * f / medianNs
	}
	return n.Target
}

// spread returns the median of xs and the relative half-width of its 95%
// confidence interval in percent (see Noise), +Inf with fewer than
// MinCISamples values or a median that is not positive.
func spread(xs []float64) (median, halfWidth float64) {
	if len(xs) == 0 {
		return math.NaN(), math.Inf(1)
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds), 0.95)
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || !(s.Center > 0) {
		return s.Center, math.Inf(1)
	}
	return s.Center, 100 * math.Max(s.Hi/s.Center-1, 1-s.Lo/s.Center)
}

// Stop says why a sample set ended.
type Stop string

const (
	stopNoise Stop = "noise" // the spread reached its target
	stopTime  Stop = "time"  // MaxTime passed first
)

// SampleSet is the samples of one result line and how they were taken.
type SampleSet struct {
	Per  []float64 // accepted samples: the case's time per run, ns
	Host []float64 // host time per run of the same samples, ns
	// Discarded counts samples taken while the SM clock was below the
	// guard's limit, discarded and taken again.
	Discarded int
	// KeptThrottled counts samples taken below the limit but kept, after
	// the guard's bound on retakes was spent.
	KeptThrottled int
	Median        float64 // of Per
	Spread        float64 // of Per, percent
	Target        float64 // the spread the set had to reach, percent
	Stop          Stop
	Elapsed       time.Duration
	// Start and End are the GPU's state before the first and after the
	// last sample, when a guard with clocks watched the set.
	Start, End GPUState
	// Energy is the energy counter's advance over the timed runs of the
	// accepted samples (discarded ones left out), when an energy meter
	// read it (EnergyMeter.Meter); zero otherwise.
	Energy EnergyUse
}

// Sample is one timed batch: the case's time and the host's, per run,
// and what the energy counter read around its timed runs.
type Sample struct {
	Per, Host float64 // ns per run
	// Energy is the counter's advance over the sample's runs; zero
	// when no meter read it.
	Energy EnergyUse
}

// Collect takes samples with take until the rule stops it. A guard that
// is on reads the SM clock before and after each sample and discards
// samples taken below its limit (ClockGuard); nil or off, every sample
// counts. The set's Energy sums the Energy of the samples it keeps. now
// is the clock of MaxTime; note, when not nil, receives a line about
// every five seconds of a long set.
func (n Noise) Collect(take func() (Sample, error), g *ClockGuard, now func() time.Time, note func(string)) (SampleSet, error) {
	if err := n.Validate(); err != nil {
		return SampleSet{}, err
	}
	var set SampleSet
	var err error
	if set.Start, err = g.state(); err != nil {
		return set, err
	}
	start := now()
	lastNote := start
	nextCheck := max(n.MinSamples, MinCISamples)
	for {
		before, err := g.smClock()
		if err != nil {
			return set, err
		}
		s, err := take()
		if err != nil {
			return set, err
		}
		if !(s.Per > 0) || math.IsInf(s.Per, 0) {
			return set, fmt.Errorf("measured a time of %v ns per run", s.Per)
		}
		after, err := g.smClock()
		if err != nil {
			return set, err
		}
		if g.Throttled(min(before, after)) {
			if set.Discarded < g.MaxRetakes {
				set.Discarded++
				continue
			}
			set.KeptThrottled++
		}
		set.Per = append(set.Per, s.Per)
		set.Host = append(set.Host, s.Host)
		set.Energy.Add(s.Energy)
		t := now()
		set.Elapsed = t.Sub(start)
		k := len(set.Per)
		if k >= nextCheck {
			// Testing every sample costs a sort each; every twentieth of
			// the set's size keeps the cost linear.
			nextCheck = k + max(1, k/20)
			set.Median, set.Spread = spread(set.Per)
			set.Target = n.TargetFor(set.Median)
			if set.Spread <= set.Target && (set.Elapsed >= n.MinTime || !n.short(set.Median)) {
				set.Stop = stopNoise
				break
			}
		}
		if set.Elapsed >= n.MaxTime && k >= MinCISamples {
			set.Stop = stopTime
			break
		}
		if note != nil && t.Sub(lastNote) >= 5*time.Second {
			lastNote = t
			_, sp := spread(set.Per)
			note(fmt.Sprintf("sampling: %d samples, median-ci95 %s, %d discarded below the clock limit, %v elapsed",
				k, percent(sp), set.Discarded, set.Elapsed.Round(time.Millisecond)))
		}
	}
	set.Median, set.Spread = spread(set.Per)
	set.Target = n.TargetFor(set.Median)
	set.End, err = g.state()
	return set, err
}

// state reads the GPU's state where the guard is on; off, it is the zero
// GPUState.
func (g *ClockGuard) state() (GPUState, error) {
	if !g.On() {
		return GPUState{}, nil
	}
	st, err := g.Clocks.State()
	if err != nil {
		return st, fmt.Errorf("reading the GPU state: %w", err)
	}
	return st, nil
}

// smClock reads the SM clock where the guard is on; off, it is 0.
func (g *ClockGuard) smClock() (int, error) {
	if !g.On() {
		return 0, nil
	}
	mhz, err := g.Clocks.SMClockMHz()
	if err != nil {
		return 0, fmt.Errorf("reading the SM clock: %w", err)
	}
	return mhz, nil
}

// percent formats a spread: "0.82%", or "none (too few samples)".
func percent(p float64) string {
	if math.IsInf(p, 1) {
		return "none (too few samples)"
	}
	return fmt.Sprintf("%.2f%%", p)
}

// batch returns how many runs one sample times so that it lasts at least
// sampleTime: it times growing batches with run (which times k runs and
// returns their total) until one lasts long enough, and returns that
// batch's size, at most maxBatch. The batches it times also warm the case
// up; none of them is a sample.
func batch(run func(k int) (time.Duration, error), sampleTime time.Duration, maxBatch int) (int, error) {
	k := 1
	for {
		d, err := run(k)
		if err != nil {
			return 0, err
		}
		if d >= sampleTime || k >= maxBatch {
			return k, nil
		}
		grow := 100.0
		if d > 0 {
			grow = math.Min(100, math.Max(2, 1.2*float64(sampleTime)/float64(d)))
		}
		k = min(maxBatch, int(math.Ceil(float64(k)*grow)))
	}
}

// sampleFor is the duration of one sample of a case whose one run takes
// perRun: the run itself, or the batch of runs (batch) that lasts at
// least SampleTime, which overshoots it by about a fifth.
func (n Noise) sampleFor(perRun time.Duration) time.Duration {
	if perRun >= n.SampleTime {
		return perRun
	}
	return max(perRun, n.SampleTime*6/5)
}

// LineTime is the wall time of one result line of a case whose one run
// takes perRun, sampled under n: low when the spread meets the target at
// its first test (max(MinSamples, MinCISamples) samples, and for a run
// shorter than Floor the samples of MinTime), high when it never does and
// MaxTime stops the line, which still takes MinCISamples samples. When
// MinCISamples samples outlast MaxTime, low and high are that many
// samples: the line overruns MaxTime.
func (n Noise) LineTime(perRun time.Duration) (low, high time.Duration) {
	s := n.sampleFor(perRun)
	if s <= 0 {
		return 0, 0
	}
	atLimit := max(MinCISamples, int((n.MaxTime+s-1)/s)) // samples when MaxTime stops the line
	first := max(n.MinSamples, MinCISamples)
	if n.short(float64(perRun.Nanoseconds())) {
		first = max(first, int((n.MinTime+s-1)/s))
	}
	first = min(first, atLimit)
	return time.Duration(first) * s, time.Duration(atLimit) * s
}

// WarmUpTime is the time a case whose one run takes perRun spends in
// its warm-up before its first line: WarmUp, or one sample where that is
// longer; 0 without a warm-up.
func (n Noise) WarmUpTime(perRun time.Duration) time.Duration {
	if n.WarmUp <= 0 {
		return 0
	}
	return max(n.WarmUp, n.sampleFor(perRun))
}

// Overrun reports whether a line of a case whose one run takes perRun
// outlasts MaxTime because its MinCISamples samples do, and how long
// those take.
func (n Noise) Overrun(perRun time.Duration) (time.Duration, bool) {
	least := MinCISamples * n.sampleFor(perRun)
	return least, least > n.MaxTime
}
