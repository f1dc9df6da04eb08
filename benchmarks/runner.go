package benchmarks

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/runfile"
)

// Device is what the runner needs from a GPU besides the variants' plans.
type Device interface {
	// FlushL2 evicts the device's L2 cache; cold cases call it before
	// every timed sample, outside the timed region.
	FlushL2() error
	// NewPinnedImage allocates an image of geometry g in page-locked host
	// memory and returns the function that frees it.
	NewPinnedImage(g convolve.Geometry) (*convolve.Image, func() error, error)
}

// Peaks are the device limits the %peak metrics divide by, and the CPU's
// measured ceilings the %copy-bw and %peak-fma metrics of CPU cases
// divide by (cpuMode.reportPeaks).
type Peaks struct {
	CopyGBps   float64 // measured device copy bandwidth, bytes read + written
	FP32GFLOPs float64 // FP32 peak
	// CPUCopyGBps and CPUFMAGFLOPs are CPUCeilings.CopyGBps and
	// FMAGFLOPs; 0 when not measured.
	CPUCopyGBps, CPUFMAGFLOPs float64
	// H2DGBps and D2HGBps are the pinned host-copy bandwidths of GPU 0
	// (GPUInfo), the host-copy bound of total-time cases; 0 when not
	// measured.
	H2DGBps, D2HGBps float64
	// BothGBps is GPU 0's pinned bandwidth both ways at once (GPUInfo);
	// 0 when not measured.
	BothGBps float64
}

// Runner runs cases as sub-benchmarks. It keeps the plan, images and gate
// result of the current case across the calls testing makes while it
// sizes b.N, and releases them when the next case starts.
type Runner struct {
	Device     Device // nil without a GPU
	Peaks      Peaks
	CPUThreads int // GOMAXPROCS while a CPU variant runs; 0 keeps testing's
	Progress   *Progress
	Seed       uint64
	// Noise is the sampling rule of every result line; the zero value
	// means DefaultNoise.
	Noise Noise
	// Guard watches the SM clock while GPU cases are sampled; nil or off
	// keeps every sample.
	Guard *ClockGuard
	// Energy reads the GPU's energy counter around the timed runs of
	// each sample of a GPU case on device 0, and around the energy phase
	// of a line whose samples span less than its MinSpan, for the lines'
	// mJ/op and GFLOP/J; nil or off, no line carries them.
	Energy *EnergyMeter
	// Now is the clock of the progress lines; nil means time.Now.
	Now func() time.Time
	// Lookup finds a case's variant by name; nil means convolve.Lookup.
	Lookup func(name string) (convolve.Variant, error)
	// Settings, when set, receives a "# setting <case>: <note>" line as
	// each case starts whose plan says how it was set up (a
	// convolve.TunedPlan: its block and tunables and where they came
	// from, and for auto the path it chose), so that the stored run
	// records it beside the case's results. It is written before testing
	// prints the case's name, so it never splits a result line.
	Settings io.Writer
	// Unsupported, when set, receives the line
	// runfile.UnsupportedLine writes for each case whose variant
	// refuses its problem or configuration as unsupported when the case
	// is planned (a *convolve.CapabilityError from convolve.PlanFor):
	// such a case is skipped with the reason, not failed. Like Settings,
	// it is written before testing prints the case's name.
	Unsupported io.Writer

	cur     *caseState
	pending []string // progress notes waiting for the end of the case
	// single holds the last median of each case run on one device list
	// of one ordinal, by name, for the scaling efficiency of the same case
	// on several GPUs.
	single map[string]float64
	// energyNoted holds the rules by which lines left their energy out
	// that a progress note has named, so that each is named once a run;
	// its energyOff entry is set once the first GPU line has described
	// the meter (EnergyMeter.Note).
	energyNoted map[EnergyRule]bool
}

type caseState struct {
	name    string
	prob    convolve.Problem
	plan    convolve.Plan
	dev     convolve.DevicePlan
	in, out *convolve.Image
	free    []func() error
	metrics convolve.Metrics
	gate    GateMode
	mode    timingMode
	// maxULP is the largest ULP distance from cpu-naive (naiveULP), when
	// hasULP.
	maxULP int64
	hasULP bool
	// batch is the number of runs one sample times, found by the first
	// sample set of the case.
	batch int
	// warmRuns are the runs the warm-up before the first line timed and
	// discarded (warmUp), and warmTime how long the batch sizing and the
	// warm-up took.
	warmRuns int
	warmTime time.Duration
	lines    int // result lines taken so far
	err      error
	// setting is the plan's block and tunables and where they came from
	// (convolve.TunedPlan), printed with the case's first line.
	setting string
	// variant and cfg make the plans a plan-timing case times.
	variant convolve.Variant
	cfg     convolve.Config
	// plans, compiles and hits count the plans a plan-timing case's
	// current line made, the NVRTC compiles they ran and the compile-cache
	// hits they had.
	plans, compiles, hits int64
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Close releases the current case's plan and memory.
func (r *Runner) Close() error {
	if r.cur == nil {
		return nil
	}
	err := r.cur.release()
	r.cur = nil
	return err
}

func (s *caseState) release() error {
	var errs []error
	if s.plan != nil {
		errs = append(errs, s.plan.Close())
	}
	for _, f := range s.free {
		errs = append(errs, f())
	}
	s.plan, s.dev, s.in, s.out, s.free = nil, nil, nil, nil, nil
	return errors.Join(errs...)
}

// Prepare plans the case, fills its input, runs it once end to end and
// checks the output against the reference. It returns the case state
// whether the gate passed or not; state.err says what went wrong.
func (r *Runner) prepare(c Case) *caseState {
	s := &caseState{name: c.Name(), mode: modeOf(c)}
	s.err = r.setup(c, s)
	return s
}

func (r *Runner) setup(c Case, s *caseState) error {
	p, err := c.Problem()
	if err != nil {
		return err
	}
	s.prob = p
	v, err := r.lookup(c.Variant)
	if err != nil {
		return err
	}
	if c.GPU && r.Device == nil {
		return fmt.Errorf("variant %s needs a GPU and none is usable", c.Variant)
	}
	var in *convolve.Image
	if c.Image != nil {
		in, err = c.Image.As(p.Input)
	} else {
		in, err = NewInput(p, r.Seed)
	}
	if err != nil {
		return err
	}
	s.in = in
	if s.out, err = p.NewOutput(); err != nil {
		return err
	}
	if err := s.mode.beforePlan(r, s); err != nil {
		return err
	}
	if s.plan, err = convolve.PlanFor(v, p, c.Config()); err != nil {
		return planError(err)
	}
	s.setting = settingNote(s.plan)
	// Correctness gate: poison, run once end to end, compare.
	s.out.Fill(math.NaN())
	if err := s.plan.Run(s.in, s.out); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	s.metrics, s.gate, err = gateModel(p, s.in, s.out, convolve.ModelOf(v, p, c.Config()))
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	if !s.metrics.OK() {
		return fmt.Errorf("output differs from the reference (%s gate): %v", s.gate, s.metrics)
	}
	if (c.ULP || c.Opts == noFMA) && hasNaiveULP(p) {
		if s.maxULP, _, err = naiveULP(p, s.in, s.out); err != nil {
			return fmt.Errorf("gate: %w", err)
		}
		s.hasULP = true
		if err := checkBitExact(c, s.maxULP); err != nil {
			return err
		}
	}
	return s.mode.ready(r, c, s, v)
}

// unsupportedError is the error of a case whose variant refused its
// problem or configuration as unsupported when the case was planned: a
// *convolve.CapabilityError in the chain of convolve.PlanFor's error.
// The case is skipped with the reason; any other plan error fails it.
type unsupportedError struct{ err error }

func (e *unsupportedError) Error() string { return "plan: " + e.err.Error() }
func (e *unsupportedError) Unwrap() error { return e.err }

// planError is the case's error for err, the error of convolve.PlanFor:
// an *unsupportedError where err's chain holds a
// *convolve.CapabilityError, else err as a failure of the plan.
func planError(err error) error {
	if ce := new(convolve.CapabilityError); errors.As(err, &ce) {
		return &unsupportedError{err}
	}
	return fmt.Errorf("plan: %w", err)
}

// The compile cache as plan-timing cases see it: its counters and its
// bypass (tests replace them).
var (
	readCompileStats   = cudabind.ReadCacheStats
	bypassCompileCache = cudabind.BypassCompileCache
)

// errNoCompile is the error of a cold plan-timing case whose plan
// compiles nothing with NVRTC (the cuDNN peers): its cold plan is its
// warm one, so the case is skipped.
var errNoCompile = errors.New("its plan compiles no kernel with NVRTC, so a cold plan is a warm one: nothing to time")

// timePlans makes k plans of the case one after the other and returns
// the time they took, Close excluded (each is closed after its time is
// taken). With cold, each plan is made with the compile caches bypassed
// (bypassCompileCache) and must compile with NVRTC and hit no cache;
// without it, each must compile nothing. The compile-cache counters
// around each plan prove it, and add to s's counts.
func (s *caseState) timePlans(cold bool, k int) (time.Duration, error) {
	var total time.Duration
	for range k {
		restore := func() {}
		if cold {
			restore = bypassCompileCache()
		}
		before := readCompileStats()
		t0 := time.Now()
		pl, err := convolve.PlanFor(s.variant, s.prob, s.cfg)
		d := time.Since(t0)
		after := readCompileStats()
		restore()
		if err != nil {
			return 0, fmt.Errorf("plan: %w", err)
		}
		if err := pl.Close(); err != nil {
			return 0, fmt.Errorf("closing a timed plan: %w", err)
		}
		total += d
		compiles, hits := after.Misses-before.Misses, after.Hits()-before.Hits()
		s.plans++
		s.compiles += compiles
		s.hits += hits
		switch {
		case cold && hits > 0:
			return 0, fmt.Errorf("a cold plan hit the compile cache %d times with the caches bypassed: its time is not a cold plan's", hits)
		case cold && compiles == 0:
			return 0, errNoCompile
		case !cold && compiles > 0:
			return 0, fmt.Errorf("a warm plan compiled %d kernels with NVRTC: the compile cache did not hold them", compiles)
		}
	}
	return total, nil
}

// lookup is r.Lookup, or convolve.Lookup.
func (r *Runner) lookup(name string) (convolve.Variant, error) {
	if r.Lookup != nil {
		return r.Lookup(name)
	}
	return convolve.Lookup(name)
}

// settingNote is the progress note naming the block and tunables a plan
// runs with and where they came from (its tuning table, its family's
// defaults, or the case), for plans that say (convolve.TunedPlan); ""
// for others.
func settingNote(p convolve.Plan) string {
	tp, ok := p.(convolve.TunedPlan)
	if !ok {
		return ""
	}
	return fmt.Sprintf("config: %v, %s", tp.Setting(), tp.SettingSource())
}

// checkBitExact fails a Filter2D case compiled with --fmad=false whose
// variant declares convolve.Capabilities.ReferenceOrder (cpu-naive's
// summation order) and yet differs from cpu-naive.
func checkBitExact(c Case, maxULP int64) error {
	if c.Opts != noFMA || c.Op != convolve.Filter2D {
		return nil
	}
	v, err := convolve.Lookup(c.Variant)
	if err != nil {
		return err
	}
	if !v.Describe().Caps.ReferenceOrder {
		return nil
	}
	if maxULP != 0 {
		return fmt.Errorf("compiled with --fmad=false, %s sums in cpu-naive's order and must match it bit for bit; it is %d ULPs away", c.Variant, maxULP)
	}
	return nil
}

// Run is the body of the sub-benchmark for c. Each call is one result
// line: one sample set, taken as r.Noise says (Noise.Collect) whatever
// b.N is, so the benchmark binary runs with -test.benchtime=1x. A
// sample times a batch of runs lasting at least Noise.SampleTime (the
// batch size is found once per case, batch), or for cold cases one run
// after an L2 flush. Before the case's first line, its runs are timed in
// such batches and discarded until Noise.WarmUp has passed since the
// batch sizing began (warmUp; not for plan-timing cases). The line reports the median of the samples (ns/op
// the host's time per run; gpu-ns/op or total-ns/op the case's), the
// spread of that median (median-ci95-%), the number of samples, for
// GPU cases under a clock guard that is on the samples discarded below
// its limit and the SM clock, power and temperature before and after,
// and for GPU cases on device 0 under an energy meter that is on the
// energy one run drew (mJ/op) and the FLOP per joule (GFLOP/J), where
// the counter advanced over at least the meter's MinSpan of timed runs
// (EnergyMeter.PerRun): the samples' runs, or, where they span less, an
// energy phase's after them (EnergyMeter.Phase; not for cold cases, whose
// energy is their samples'). A progress note says, the first time, why
// lines carry no energy.
// A plan-timing case (planTiming) times plans instead of runs, a batch of
// warm ones or one cold one a sample, unwatched by the clock guard and
// the energy meter; its line reports ns/op, the plan's time, and the
// NVRTC compiles and compile-cache hits per plan (compiles/op,
// cache-hits/op). A cold plan that hits a cache, or a warm one that
// compiles, fails the case; a cold case whose plan compiles nothing is
// skipped.
//
// A case whose variant refuses it as unsupported when it is planned (a
// *convolve.CapabilityError from convolve.PlanFor) is skipped with the
// reason, which a progress note and, where set, r.Unsupported record; a
// case missing what its variant needs here (a *cudabind.UnavailableError)
// is skipped too. Every other error fails the case.
//
// Progress notes (one per line, and one about every five seconds of a
// long line) go to r.Progress at once during a case's first line, which
// testing runs before it prints the case's name; the notes of later lines,
// which run after testing printed the name on stdout, wait for the next
// case or Finish, so that a merged stdout and stderr keeps every result
// line whole.
func (r *Runner) Run(b *testing.B, c Case) {
	name := c.Name()
	first := r.cur == nil || r.cur.name != name
	if first {
		r.flushNotes()
	}
	r.Progress.Start(name, r.now())
	if first {
		if err := r.Close(); err != nil {
			b.Logf("releasing the previous case: %v", err)
		}
		b.StopTimer()
		r.cur = r.prepare(c)
		if r.cur.setting != "" {
			r.Progress.Note(r.cur.setting)
			if r.Settings != nil {
				fmt.Fprintf(r.Settings, "%s%s: %s\n", runfile.SettingPrefix, name, r.cur.setting)
			}
		}
	}
	s := r.cur
	if s.err != nil {
		if ue := new(unsupportedError); errors.As(s.err, &ue) {
			if first {
				r.Progress.Note("unsupported, skipped: " + ue.err.Error())
				if r.Unsupported != nil {
					fmt.Fprintln(r.Unsupported, runfile.UnsupportedLine(name, ue.err.Error()))
				}
			}
			b.Skipf("%s: unsupported, skipped: %v", c.Variant, ue.err)
		}
		if unavailableHere(s.err) || errors.Is(s.err, errNoCompile) {
			b.Skipf("%s: skipped: %v", c.Variant, s.err)
		}
		b.Fatalf("%s: %v", c.Variant, s.err)
	}
	var heartbeat func(string)
	if first {
		heartbeat = r.Progress.Note
	}
	b.ResetTimer()
	b.StartTimer()
	set, use, err := r.sample(c, s, heartbeat)
	b.StopTimer()
	if err != nil {
		b.Fatalf("%s: timing: %v", c.Variant, err)
	}
	energy := r.lineEnergy(c, use)
	r.report(b, c, s.prob, set, energy)
	if s.hasULP {
		b.ReportMetric(float64(s.maxULP), "max-ulp")
	}
	s.lines++
	notes := append([]string{fmt.Sprintf("line %d: %s", s.lines, r.lineNote(c, set, use, energy))}, r.energyNotes(c, s.lines, energy)...)
	if first {
		for _, n := range notes {
			r.Progress.Note(n)
		}
	} else {
		r.pending = append(r.pending, notes...)
	}
}

// lineEnergy is the energy per run of a line of case c whose samples, or
// energy phase, used use (EnergyMeter.PerRun), or why it has none; CPU
// cases have none (Omitted energyOff, and no Detail), nor do plan-timing
// cases and cases on other GPUs.
func (r *Runner) lineEnergy(c Case, use EnergyUse) LineEnergy {
	mode := modeOf(c)
	if e, ok := mode.noEnergy(r.Energy.On()); ok {
		return e
	}
	if r.Energy.On() && !meteredDevices(c.GPUs) {
		return LineEnergy{Omitted: energyOtherGPU, Detail: "gpus=" + c.GPUs}
	}
	e := r.Energy.PerRun(use)
	if e.Omitted == energyShortSpan && mode.flushesL2() {
		e.Omitted = energyColdShort
	}
	return e
}

// energyNotes are the progress notes of a line of case c about its
// energy: at the run's first GPU line what the meter is (EnergyMeter.Note:
// the counter's period and the span a line needs, or why it is off),
// and, the first time in the run that a GPU line carries no energy by a
// rule other than the meter's being off, the rule and the line's
// numbers.
func (r *Runner) energyNotes(c Case, line int, e LineEnergy) []string {
	if !c.GPU {
		return nil
	}
	if r.energyNoted == nil {
		r.energyNoted = map[EnergyRule]bool{}
	}
	var notes []string
	if !r.energyNoted[energyOff] {
		r.energyNoted[energyOff] = true
		notes = append(notes, r.Energy.Note())
	}
	if !e.Reported() && !r.energyNoted[e.Omitted] {
		r.energyNoted[e.Omitted] = true
		notes = append(notes, fmt.Sprintf("energy: lines where %s carry no mJ/op or GFLOP/J, the first %s line %d (%s); said once a run",
			e.Omitted, c.Name(), line, e.Detail))
	}
	return notes
}

// flushNotes prints the progress notes that waited for the end of a case.
func (r *Runner) flushNotes() {
	for _, n := range r.pending {
		r.Progress.Note(n)
	}
	r.pending = nil
}

// Finish prints the notes still waiting and the progress's final line.
func (r *Runner) Finish(now time.Time) {
	r.flushNotes()
	r.Progress.Finish(now)
}

// maxBatch bounds the runs of one sample.
const maxBatch = 1 << 20

// noise is the runner's sampling rule: r.Noise, or DefaultNoise when unset.
func (r *Runner) noise() Noise {
	if r.Noise == (Noise{}) {
		return DefaultNoise
	}
	return r.Noise
}

// sample takes the sample set of one result line of case c, and returns
// it with the energy use the line's energy comes from: its samples'
// (set.Energy), or, where the energy meter reads c's samples and they
// span less than its MinSpan, that of an energy phase after them
// (EnergyMeter.Phase: more of the line's runs, timed as its samples were
// in batches of the case's batch size, as many as its median host time
// a run puts a tenth past MinSpan, more where they run faster). The
// sample set, and so the line's times and its stop, are the samples'
// alone; the clock guard does not watch the phase. A cold case (flushesL2)
// runs no energy phase: its energy is its samples', without the flushes,
// or none.
func (r *Runner) sample(c Case, s *caseState, note func(string)) (SampleSet, EnergyUse, error) {
	if n := s.mode.threads(r); n > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	noise := r.noise()
	run, prepare, oneRun := s.mode.runs(r, s)
	if s.batch == 0 {
		if err := s.sizeBatch(run, prepare, oneRun, noise); err != nil {
			return SampleSet{}, EnergyUse{}, err
		}
	}
	k := s.batch
	s.plans, s.compiles, s.hits = 0, 0, 0 // the line's own
	var guard *ClockGuard
	var meter *EnergyMeter
	if s.mode.guarded() {
		guard = r.Guard
		if meteredDevices(c.GPUs) {
			meter = r.Energy
		}
	}
	take := func() (Sample, error) {
		if prepare != nil {
			if err := prepare(); err != nil {
				return Sample{}, err
			}
		}
		var d, h time.Duration
		use, err := meter.Meter(k, time.Now, func() error {
			var err error
			d, h, err = run(k)
			return err
		})
		return Sample{Per: float64(d.Nanoseconds()) / float64(k), Host: float64(h.Nanoseconds()) / float64(k), Energy: use}, err
	}
	set, err := noise.Collect(take, guard, r.now, note)
	if err != nil || !meter.On() || !energyPhased(c) || set.Energy.Span >= meter.minSpan() {
		return set, set.Energy, err
	}
	host, _ := spread(set.Host)
	use, err := meter.Phase(time.Duration(math.Round(host)), k, time.Now, func(n int) error {
		_, _, err := run(n)
		return err
	})
	if err != nil {
		return set, use, fmt.Errorf("energy phase: %w", err)
	}
	return set, use, nil
}

// sizeBatch sets the case's batch, the runs of one sample (one with
// oneRun, else the fewest lasting noise.SampleTime), and, for a mode that
// warms up, times batches of run and discards them until noise.WarmUp has
// passed since the sizing began (warmUp).
func (s *caseState) sizeBatch(run runFunc, prepare func() error, oneRun bool, noise Noise) error {
	start := time.Now()
	k := 1
	if !oneRun {
		var err error
		if k, err = batch(func(k int) (time.Duration, error) {
			d, _, err := run(k)
			return d, err
		}, noise.SampleTime, maxBatch); err != nil {
			return err
		}
	}
	s.batch = k
	if s.mode.warmsUp() {
		n, err := warmUp(prepare, run, s.batch, start, noise.WarmUp)
		if err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		s.warmRuns, s.warmTime = n, time.Since(start)
	}
	return nil
}

// warmUp times batches of k runs with run, each after prepare where it is
// set, until d has passed since start (the batch sizing before it
// included), and returns how many runs it timed; none is a sample. It
// times none when d has passed already.
func warmUp(prepare func() error, run runFunc, k int, start time.Time, d time.Duration) (int, error) {
	n := 0
	for time.Since(start) < d {
		if prepare != nil {
			if err := prepare(); err != nil {
				return n, err
			}
		}
		if _, _, err := run(k); err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// energyPhased reports whether lines of c whose samples span too little
// time for an energy meter that is on run an energy phase: those of GPU
// cases timing device work (timingMode.guarded) on the metered GPU alone
// (meteredDevices) without an L2 flush before each run
// (timingMode.flushesL2).
func energyPhased(c Case) bool {
	m := modeOf(c)
	return m.guarded() && meteredDevices(c.GPUs) && !m.flushesL2()
}

// copyBWPercent is the share of the device's measured copy bandwidth
// (copyGBps, bytes read plus written per second, as gpu-copy-gbps) that
// one run of p taking per achieves when it moves the fewest bytes it can:
// each input element read once and each float32 output element written
// once, W*H*C*(input element size + 4) bytes (8*W*H for one float32
// channel), the bytes the DRAM floor counts. 100 means the run is at that
// floor. It is 0 when copyGBps or per is not positive.
func copyBWPercent(p convolve.Problem, per time.Duration, copyGBps float64) float64 {
	if per <= 0 {
		return 0
	}
	return convolve.PercentOf(convolve.ThroughputOf(p).GBPerSec(per), copyGBps)
}

// lineNote is the progress line of one sample set whose line's energy
// came from use.
func (r *Runner) lineNote(c Case, set SampleSet, use EnergyUse, energy LineEnergy) string {
	var sb strings.Builder
	if r.cur.lines == 1 && r.cur.warmRuns > 0 {
		fmt.Fprintf(&sb, "after a warm-up of %d runs in %v, discarded: ", r.cur.warmRuns, r.cur.warmTime.Round(time.Millisecond))
	}
	fmt.Fprintf(&sb, "%d samples of %d runs, median %v, median-ci95 %s (target %.2f%%), stopped by %s after %v",
		len(set.Per), r.cur.batch, time.Duration(math.Round(set.Median)), percent(set.Spread), set.Target, set.Stop, set.Elapsed.Round(time.Millisecond))
	sb.WriteString(r.cur.mode.note(r.cur))
	if r.cur.mode.guarded() && r.Guard.On() {
		fmt.Fprintf(&sb, "; %d samples below %d MHz discarded and taken again", set.Discarded, r.Guard.LimitMHz())
		if set.KeptThrottled > 0 {
			fmt.Fprintf(&sb, ", %d more kept after %d retakes (the GPU stays throttled)", set.KeptThrottled, r.Guard.MaxRetakes)
		}
		fmt.Fprintf(&sb, "; GPU %v -> %v", set.Start, set.End)
	}
	switch {
	case energy.Reported() && use.Updates > 0:
		fmt.Fprintf(&sb, "; %.4g mJ a run (%d mJ between counter updates %v apart, %.4g W, over an energy phase after the samples, which spanned %v; %d runs timed between the updates in %v)",
			energy.MJPerRun, use.MJ, use.Updates.Round(100*time.Microsecond), float64(use.MJ)/use.Updates.Seconds()/1e3, set.Energy.Span.Round(100*time.Microsecond), use.Runs, use.Span.Round(100*time.Microsecond))
	case energy.Reported() && use.Phase:
		fmt.Fprintf(&sb, "; %.4g mJ a run (%d mJ over %v of an energy phase of %d runs after the samples, which spanned %v)",
			energy.MJPerRun, use.MJ, use.Span.Round(time.Millisecond), use.Runs, set.Energy.Span.Round(100*time.Microsecond))
	case energy.Reported():
		fmt.Fprintf(&sb, "; %.4g mJ a run (%d mJ over %v of %d runs)", energy.MJPerRun, use.MJ, use.Span.Round(time.Millisecond), use.Runs)
	}
	return sb.String()
}

// report adds the case's metrics: the medians of the sample set, the
// rates derived from the case's time and the shares of the hardware's
// limits they reach (timingMode.reportPeaks), the energy of one run and
// the work per joule where the line has it (energy), or what its mode
// reports in their place (timingMode.reportOwn); the set's spread and
// size, and the clock guard's counts and readings where it watches the
// case.
func (r *Runner) report(b *testing.B, c Case, p convolve.Problem, set SampleSet, energy LineEnergy) {
	per := time.Duration(math.Round(set.Median))
	if per <= 0 {
		b.Fatalf("%s: measured a non-positive time %v per operation", c.Variant, per)
	}
	host, _ := spread(set.Host)
	b.ReportMetric(host, "ns/op")
	mode := r.cur.mode
	if !mode.reportOwn(b, r.cur) {
		if u := mode.timeUnit(); u != "" {
			b.ReportMetric(set.Median, u)
		}
		reportRates(b, p, per, energy)
		mode.reportPeaks(r, b, c, p, per)
		if eff, ok := r.scaling(c, set.Median); ok {
			b.ReportMetric(eff, "scaling-eff")
		}
	}
	b.ReportMetric(set.Spread, "median-ci95-%")
	b.ReportMetric(float64(len(set.Per)), "samples")
	if mode.guarded() && r.Guard.On() {
		reportGuard(b, set)
	}
}

// reportRates reports the pixels, bytes and FLOPs a second of a run of p
// taking per, and the energy of one run and the FLOPs per joule where the
// line has it (energy); RGB->YUV counts no FLOPs.
func reportRates(b *testing.B, p convolve.Problem, per time.Duration, energy LineEnergy) {
	tp := convolve.ThroughputOf(p)
	b.ReportMetric(tp.MPixPerSec(per), "MPix/s")
	b.ReportMetric(tp.GBPerSec(per), "GB/s")
	flops := p.Op != convolve.RGBToYUV
	if flops {
		b.ReportMetric(tp.GFLOPPerSec(per), "GFLOP/s")
	}
	if energy.Reported() {
		b.ReportMetric(energy.MJPerRun, "mJ/op")
		if flops {
			b.ReportMetric(gflopPerJoule(tp.Flops(), energy.MJPerRun), "GFLOP/J")
		}
	}
}

// reportGuard reports the clock guard's counts of the sample set and the
// GPU's state before and after it.
func reportGuard(b *testing.B, set SampleSet) {
	b.ReportMetric(float64(set.Discarded), "throttled-samples")
	b.ReportMetric(float64(set.KeptThrottled), "throttled-kept")
	b.ReportMetric(float64(set.Start.SMClockMHz), "sm-mhz-start")
	b.ReportMetric(float64(set.End.SMClockMHz), "sm-mhz-end")
	if set.Start.HasPower && set.End.HasPower {
		b.ReportMetric(set.Start.PowerW, "power-w-start")
		b.ReportMetric(set.End.PowerW, "power-w-end")
	}
	if set.Start.HasTemp && set.End.HasTemp {
		b.ReportMetric(float64(set.Start.TempC), "temp-c-start")
		b.ReportMetric(float64(set.End.TempC), "temp-c-end")
	}
	if n := max(set.Start.OtherProcesses, set.End.OtherProcesses); n > 0 {
		b.ReportMetric(float64(n), runfile.UnitOtherProcesses)
	}
}

// hostCopyBound is the least time a run of p that copies its input from
// pinned host memory and its output back can take
// (convolve.HostCopyBound): the input's bytes at h2dGBps and the
// output's at d2hGBps, the two directions overlapped but together no
// faster than bothGBps (0: not measured), each shared by the GPUs of devs
// (distinct ordinals, each with its own link as the one measured;
// logical devices of one GPU share its link). It is 0 when a one-way
// bandwidth is not known.
func hostCopyBound(p convolve.Problem, devs []int, h2dGBps, d2hGBps, bothGBps float64) time.Duration {
	in, out := p.Input.Packed(), p.OutputGeometry()
	return convolve.HostCopyBound(int64(in.Len())*int64(in.Type.Size()), int64(out.Len())*int64(out.Type.Size()),
		max(1, distinct(devs)), h2dGBps, d2hGBps, bothGBps)
}

// distinct counts the distinct ordinals of devs.
func distinct(devs []int) int {
	seen := map[int]bool{}
	for _, d := range devs {
		seen[d] = true
	}
	return len(seen)
}

// scaling is the scaling efficiency T1 / (N x TN) of a case on N GPUs
// (the distinct ordinals of its gpus key) whose counterpart on device 0
// alone (gpus=0) was measured before in this run; a case on one device
// list of one ordinal records its median as the T1 of later cases.
func (r *Runner) scaling(c Case, median float64) (float64, bool) {
	devs, err := parseDevices(c.GPUs)
	if !c.GPU || err != nil || len(devs) == 0 {
		return 0, false
	}
	if len(devs) == 1 {
		if r.single == nil {
			r.single = map[string]float64{}
		}
		r.single[c.Name()] = median
		return 0, false
	}
	one := c
	one.GPUs = "0"
	t1, ok := r.single[one.Name()]
	if !ok || median <= 0 {
		return 0, false
	}
	return t1 / (float64(distinct(devs)) * median), true
}

// unitLines are the benchfmt unit metadata lines of the metrics Run
// reports, printed once before the benchmarks.
func unitLines() []string {
	return []string{
		"Unit gpu-ns/op better=lower",
		"Unit total-ns/op better=lower",
		"Unit MPix/s better=higher",
		"Unit GB/s better=higher",
		"Unit GFLOP/s better=higher",
		"Unit mJ/op better=lower",
		"Unit GFLOP/J better=higher",
		"Unit %peak-bw better=higher",
		"Unit %peak-fp32 better=higher",
		"Unit exec-GFLOP/s better=higher",
		"Unit %copy-bw better=higher",
		"Unit %peak-fma better=higher",
		"Unit max-ulp better=lower assume=exact",
		"Unit median-ci95-% better=lower",
		"Unit throttled-samples better=lower",
		"Unit throttled-kept better=lower",
		"Unit sm-mhz-start better=higher",
		"Unit sm-mhz-end better=higher",
		"Unit " + runfile.UnitOtherProcesses + " better=lower",
		"Unit copy-bound-ns/op better=lower",
		"Unit %copy-bound better=higher",
		"Unit scaling-eff better=higher",
		"Unit compiles/op better=lower",
		"Unit cache-hits/op better=higher",
	}
}

// unavailableHere reports whether a case could not be planned because
// what its variant needs is missing on this host (a *cudabind.UnavailableError:
// no GPU, or a peer's library such as cuDNN, cuFFT or NPP): the case is
// skipped with the reason, not failed.
func unavailableHere(err error) bool {
	ue := new(cudabind.UnavailableError)
	return errors.As(err, &ue)
}

// Probe plans case c, passes it through the correctness gate and times
// single runs of it, at least one and up to three while budget lasts
// (the gate's run warms it up), and returns the fastest; the estimates of
// a sweep's duration scale it (EstimateSweep). It leaves the runner's
// current case alone.
func (r *Runner) Probe(c Case, budget time.Duration) (time.Duration, error) {
	s := r.prepare(c)
	defer s.release()
	if s.err != nil {
		return 0, s.err
	}
	if n := s.mode.threads(r); n > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	var best time.Duration
	start := time.Now()
	for i := 0; i < 3 && (i == 0 || time.Since(start) < budget); i++ {
		t0 := time.Now()
		if err := s.plan.Run(s.in, s.out); err != nil {
			return 0, fmt.Errorf("run: %w", err)
		}
		if d := time.Since(t0); i == 0 || d < best {
			best = d
		}
	}
	return best, nil
}
