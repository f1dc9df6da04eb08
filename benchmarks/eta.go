package benchmarks

import (
	"math"
	"time"
)

// CaseEstimate is the expected wall time of one case of a sweep: its
// setup (the gate's run and the first batch) and its result lines.
type CaseEstimate struct {
	Case Case
	// PerRun is the time of one run: a probe's (Probe) scaled by the
	// case's pixels over the probe's, or for a case that was not probed
	// (GPU cases) a nominal one (nominalRun).
	PerRun time.Duration
	Probed bool
	// Err is why the probe failed; the case is expected to fail as fast.
	Err error
	// Low and High bound the case's wall time: its lines meeting the
	// noise target at their first test, or stopped by MaxTime
	// (Noise.LineTime), each line with the energy phase it runs after its
	// samples (LowPhase, HighPhase).
	Low, High time.Duration
	// LowPhase and HighPhase are the energy phase of one line in Low and
	// in High: for GPU cases whose lines the energy meter reads and tops
	// up (timing kernel, kernel-graph or total on device 0, not cold),
	// the phase a line whose samples span less than the MinSpan of
	// NominalEnergyMeter runs after them; 0 for other cases and for lines
	// that span enough.
	LowPhase, HighPhase time.Duration
	// Least is the time of the MinCISamples samples of one line, which
	// every line takes even when they outlast MaxTime (Overrun).
	Least   time.Duration
	Overrun bool
}

// Expected is the time the case is expected to take: High, since on a
// busy host the lines seldom meet their noise target and run to MaxTime;
// the progress of a run scales it by what the finished cases took (ETA).
func (e CaseEstimate) Expected() time.Duration { return e.High }

// SweepEstimate is the expected duration of a sweep's cases.
type SweepEstimate struct {
	Cases []CaseEstimate
	Noise Noise
	Count int // result lines per case
}

// Total sums the cases' bounds and expected times.
func (e SweepEstimate) Total() (low, expected, high time.Duration) {
	for _, c := range e.Cases {
		low += c.Low
		expected += c.Expected()
		high += c.High
	}
	return low, expected, high
}

// Overruns lists the cases whose lines outlast MaxTime because their
// MinCISamples samples do.
func (e SweepEstimate) Overruns() []CaseEstimate {
	var out []CaseEstimate
	for _, c := range e.Cases {
		if c.Overrun {
			out = append(out, c)
		}
	}
	return out
}

// ProbePixels is the most pixels a probe of a case runs on: larger cases
// are probed on a smaller image of about their aspect ratio.
const ProbePixels = 1 << 18

// ProbeCase is the case a probe times for c: c itself when its image has
// at most ProbePixels pixels, else c on an image of about ProbePixels
// pixels and c's aspect ratio (each side at least twice the filter's and
// 32), on generated input, without the max-ulp measure.
func ProbeCase(c Case) Case {
	p := c
	p.Image, p.ULP = nil, false
	px := float64(c.Width) * float64(c.Height)
	if px <= ProbePixels {
		return p
	}
	kw, kh := c.kernelSize()
	f := math.Sqrt(ProbePixels / px)
	side := func(n, k int, scale float64) int { return min(n, max(int(math.Round(float64(n)*scale)), 2*k, 32)) }
	p.Width, p.Height = side(c.Width, kw, f), side(c.Height, kh, f)
	// A side held at its least leaves the pixels to the other.
	switch {
	case float64(p.Height) > float64(c.Height)*f+1:
		p.Width = side(c.Width, kw, ProbePixels/float64(p.Height)/float64(c.Width))
	case float64(p.Width) > float64(c.Width)*f+1:
		p.Height = side(c.Height, kh, ProbePixels/float64(p.Width)/float64(c.Height))
	}
	return p
}

// Prober times one run of a case (Runner.Probe).
type Prober func(c Case) (time.Duration, error)

// EstimateSweep estimates the wall time of each of cases, run count
// times under n. A CPU case's run time is probe's time of its ProbeCase,
// scaled by pixels; cases with the same ProbeCase share one probe. GPU
// cases are not probed: their run time is nominal (nominalRun), which
// the progress of the run corrects (ETA). A GPU line that the energy
// meter tops up adds its energy phase where its samples span less than
// NominalEnergyMeter's MinSpan (CaseEstimate.LowPhase, HighPhase).
func EstimateSweep(cases []Case, n Noise, count int, probe Prober) SweepEstimate {
	type result struct {
		d   time.Duration
		err error
	}
	probed := map[string]result{}
	e := SweepEstimate{Noise: n, Count: count}
	for _, c := range cases {
		ce := CaseEstimate{Case: c}
		if c.GPU {
			ce.PerRun = modeOf(c).nominal(c)
		} else {
			pc := ProbeCase(c)
			r, ok := probed[pc.Name()]
			if !ok {
				r.d, r.err = probe(pc)
				probed[pc.Name()] = r
			}
			ce.Probed, ce.Err = true, r.err
			ce.PerRun = time.Duration(float64(r.d) * float64(c.Width) * float64(c.Height) / (float64(pc.Width) * float64(pc.Height)))
		}
		e.Cases = append(e.Cases, ce.bound(n, count))
	}
	return e
}

// bound sets the case's bounds from its PerRun: two runs of setup, the
// warm-up before the first line (Noise.WarmUpTime; not for plan cases)
// and count lines, each with its energy phase; a case whose probe failed
// only its setup.
func (e CaseEstimate) bound(n Noise, count int) CaseEstimate {
	setup := 2 * e.PerRun
	if e.Err != nil {
		e.Low, e.High = setup, setup
		return e
	}
	if modeOf(e.Case).warmsUp() {
		setup += n.WarmUpTime(e.PerRun)
	}
	low, high := n.LineTime(e.PerRun)
	if energyPhased(e.Case) {
		// A line's samples are its timed runs, the span the meter reads.
		e.LowPhase = NominalEnergyMeter.PhaseEstimate(low, e.PerRun)
		e.HighPhase = NominalEnergyMeter.PhaseEstimate(high, e.PerRun)
	}
	e.Low = setup + time.Duration(count)*(low+e.LowPhase)
	e.High = setup + time.Duration(count)*(high+e.HighPhase)
	e.Least, e.Overrun = n.Overrun(e.PerRun)
	return e
}

// NominalEnergyMeter is the energy meter the estimate assumes for GPU
// lines: one whose counter updates every 100 ms, as NVML's does on
// Hopper, so that a line whose samples span under a second runs an
// aligned energy phase of about 0.4 s. The binary measures the real
// period when its meter opens; the running ETA takes it in.
var NominalEnergyMeter = alignedMeter(100 * time.Millisecond)

// Nominal rates of GPU cases, which are not probed: device memory at
// 500 GB/s, 2.5e12 multiply-adds a second (5 TFLOP/s), host copies at
// 10 GB/s, and a launch of 10µs; a cold plan (NVRTC compiling its
// kernels) of 200ms, the goal, and a warm one of 2ms.
const (
	nominalDeviceBps  = 500e9
	nominalMACps      = 2.5e12
	nominalHostBps    = 10e9
	nominalLaunchTime = 10 * time.Microsecond
	nominalColdPlan   = 200 * time.Millisecond
	nominalWarmPlan   = 2 * time.Millisecond
)

// nominalRun is the time of one run of GPU case c at the nominal rates:
// a launch, its bytes (each element read and a float32 written) through
// device memory, its multiply-adds, and with host the bytes over the host
// link too.
func nominalRun(c Case, host bool) time.Duration {
	bytes := float64(c.Width) * float64(c.Height) * float64(c.Channels) * float64(c.Type.Size()+4)
	s := bytes/nominalDeviceBps + float64(c.Work())/nominalMACps
	if host {
		s += bytes / nominalHostBps
	}
	return nominalLaunchTime + time.Duration(s*float64(time.Second))
}

// ETA estimates the time left in a sweep as it runs: from the expected
// times of the cases not yet started and of the rest of the current one,
// each scaled by how long the finished cases took against their own
// expected times: those of the same variant where some finished; else
// those of all, but never below the case's own low estimate (a variant
// whose lines met the noise target at once says little of one whose
// lines run to -max-time).
type ETA struct {
	cases    []CaseEstimate
	index    map[string]int // case name -> index in cases
	started  []bool
	cur      int // the running case, -1 before the first and after the last
	curStart time.Time
	// actual and expected sum the finished cases' times, by variant
	// and ("") over all.
	actual, expected map[string]time.Duration
}

// NewETA starts the estimate of a sweep whose cases e estimates.
func NewETA(e SweepEstimate) *ETA {
	t := &ETA{cases: e.Cases, index: map[string]int{}, started: make([]bool, len(e.Cases)), cur: -1,
		actual: map[string]time.Duration{}, expected: map[string]time.Duration{}}
	for i, c := range e.Cases {
		t.index[c.Case.Name()] = i
	}
	return t
}

// Start records that the case named name began at now, and that the one
// before it finished then. It reports whether the estimate knows the
// case; a case it does not know ends the estimate (Left reports false).
func (t *ETA) Start(name string, now time.Time) bool {
	t.finish(now)
	i, ok := t.index[name]
	if !ok {
		t.index = nil
		return false
	}
	t.cur, t.curStart, t.started[i] = i, now, true
	return true
}

// Finish records that the running case finished at now.
func (t *ETA) Finish(now time.Time) { t.finish(now) }

func (t *ETA) finish(now time.Time) {
	if t.cur < 0 {
		return
	}
	c := t.cases[t.cur]
	took, exp := now.Sub(t.curStart), c.Expected()
	for _, k := range []string{c.Case.Variant, ""} {
		t.actual[k] += took
		t.expected[k] += exp
	}
	t.cur = -1
}

// expect is how long case c is expected to take in all, given the cases
// finished so far.
func (t *ETA) expect(c CaseEstimate) float64 {
	if e := t.expected[c.Case.Variant]; e > 0 {
		return float64(c.Expected()) * float64(t.actual[c.Case.Variant]) / float64(e)
	}
	r := 1.0
	if e := t.expected[""]; e > 0 {
		r = float64(t.actual[""]) / float64(e)
	}
	return max(float64(c.Expected())*r, float64(c.Low))
}

// Left is the estimated time left at now, and whether there is one: false
// after a case the estimate does not know.
func (t *ETA) Left(now time.Time) (time.Duration, bool) {
	if t.index == nil {
		return 0, false
	}
	var left float64
	for i, c := range t.cases {
		if !t.started[i] {
			left += t.expect(c)
		}
	}
	if t.cur >= 0 {
		c := t.cases[t.cur]
		rest := t.expect(c) - float64(now.Sub(t.curStart))
		left += max(rest, 0)
	}
	return time.Duration(left), true
}
