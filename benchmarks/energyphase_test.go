package benchmarks

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

// meteredRunner is a Runner of cases of a fakeGPUVariant on gpu, metered
// by meter, writing its progress to progress. Its lines last at most 10ms
// or so, under the 50ms MinSpan of the tests' short lines, however loaded
// the host.
func meteredRunner(gpu *fakeGPU, meter *EnergyMeter, progress *strings.Builder) *Runner {
	noise := quickNoise
	noise.MaxTime = 10 * time.Millisecond
	return &Runner{Device: fakeDevice{}, Seed: 1, Noise: noise, Energy: meter,
		Progress: newProgress(progress, "test", 1, nowForTest()),
		Lookup: func(string) (convolve.Variant, error) {
			v, err := convolve.Lookup("cpu-naive")
			return fakeGPUVariant{Variant: v, gpu: gpu}, err
		}}
}

// phaseClock is a fake clock and energy counter for EnergyMeter.Phase: a
// run takes wall on the clock and draws mJ on the counter, and every call
// of the runs is recorded.
type phaseClock struct {
	fakeRuns
	mJ uint64 // energy of one run; 0: the counter stands still
}

func (p *phaseClock) EnergyMJ() (uint64, error) { return 7000 + p.mJ*uint64(p.runs), nil }

// fakeRuns are runs on a fake clock: each takes wall on it, every call
// is recorded, and call number failAt returns err.
type fakeRuns struct {
	clock  fakeTime
	wall   time.Duration // wall time of one run
	runs   int
	calls  []int
	err    error
	failAt int
}

func (f *fakeRuns) run(k int) error {
	f.calls = append(f.calls, k)
	if f.err != nil && len(f.calls) == f.failAt {
		return f.err
	}
	f.runs += k
	f.clock.t = f.clock.t.Add(time.Duration(k) * f.wall)
	return nil
}

// An energy phase times ⌈1.1 MinSpan / ns/op⌉ runs in batches of the
// line's batch size, and more batches where those span less than MinSpan;
// it stops after the batch that passes twice MinSpan, or at 2^24 runs,
// and counts the runs it did exactly; PerRun then judges its span as a
// line's.
func TestEnergyPhase(t *testing.T) {
	tests := []struct {
		name     string
		minSpan  time.Duration // 0: defaultEnergyMinSpan
		perRun   time.Duration // the line's ns/op
		batch    int
		wall     time.Duration // wall time of a run in the phase
		mJ       uint64        // energy of a run in the phase
		runs     int           // runs the phase times
		calls    int           // calls of the runs
		last     int           // runs of the last call
		span     time.Duration
		mJPerRun float64
		rule     EnergyRule // why the line has no energy
	}{
		// 110ms / 10us = 11000 runs, 110 batches of 100, 2 mJ each.
		{name: "short kernel", perRun: 10 * time.Microsecond, batch: 100, wall: 10 * time.Microsecond, mJ: 2,
			runs: 11000, calls: 110, last: 100, span: 110 * time.Millisecond, mJPerRun: 2},
		// ⌈110ms / 30us⌉ = 3667 runs: 91 batches of 40 and one of 27.
		{name: "a batch left over", perRun: 30 * time.Microsecond, batch: 40, wall: 30 * time.Microsecond, mJ: 9,
			runs: 3667, calls: 92, last: 27, span: 3667 * 30 * time.Microsecond, mJPerRun: 9},
		// A meter's own MinSpan: ⌈165ms / 50us⌉ = 3300 runs.
		{name: "150ms meter", minSpan: 150 * time.Millisecond, perRun: 50 * time.Microsecond, batch: 20, wall: 50 * time.Microsecond, mJ: 5,
			runs: 3300, calls: 165, last: 20, span: 165 * time.Millisecond, mJPerRun: 5},
		// One run a batch: ⌈110ms / 40ms⌉ = 3 runs.
		{name: "long runs", perRun: 40 * time.Millisecond, batch: 1, wall: 40 * time.Millisecond, mJ: 12000,
			runs: 3, calls: 3, last: 1, span: 120 * time.Millisecond, mJPerRun: 12000},
		// The runs take 5x the line's ns/op: the phase stops after the
		// batch that passes 200ms, 40 batches of 5ms, with 4000 of its
		// 11000 runs, and reports their energy.
		{name: "wall cap", perRun: 10 * time.Microsecond, batch: 100, wall: 50 * time.Microsecond, mJ: 3,
			runs: 4000, calls: 40, last: 100, span: 200 * time.Millisecond, mJPerRun: 3},
		// ... and where a batch overshoots it, after that batch.
		{name: "wall cap, long batch", perRun: 10 * time.Microsecond, batch: 3000, wall: 50 * time.Microsecond, mJ: 3,
			runs: 6000, calls: 2, last: 3000, span: 300 * time.Millisecond, mJPerRun: 3},
		// A ns/op of 0 asks for the most runs, 2^24, which here take 16.8ms:
		// too short.
		{name: "runs cap", perRun: 0, batch: maxBatch, wall: time.Nanosecond, mJ: 1,
			runs: maxPhaseRuns, calls: maxPhaseRuns / maxBatch, last: maxBatch, span: maxPhaseRuns * time.Nanosecond, rule: energyShortSpan},
		// Runs faster than the median by more than a tenth span 88ms in
		// the 11000 runs; more batches take them to 100ms.
		{name: "faster than the median", perRun: 10 * time.Microsecond, batch: 100, wall: 8 * time.Microsecond, mJ: 2,
			runs: 12500, calls: 125, last: 100, span: 100 * time.Millisecond, mJPerRun: 2},
		// ... in whole batches, after the planned runs' short one.
		{name: "faster, a batch left over", perRun: 30 * time.Microsecond, batch: 40, wall: 20 * time.Microsecond, mJ: 2,
			runs: 3667 + 34*40, calls: 92 + 34, last: 40, span: (3667 + 34*40) * 20 * time.Microsecond, mJPerRun: 2},
		{name: "counter still", perRun: 10 * time.Microsecond, batch: 100, wall: 10 * time.Microsecond, mJ: 0,
			runs: 11000, calls: 110, last: 100, span: 110 * time.Millisecond, rule: energyStill},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &phaseClock{fakeRuns: fakeRuns{clock: fakeTime{t: time.Unix(0, 0)}, wall: tt.wall}, mJ: tt.mJ}
			m := &EnergyMeter{Counter: p, MinSpan: tt.minSpan}
			u, err := m.Phase(tt.perRun, tt.batch, p.clock.now, p.run)
			if err != nil {
				t.Fatal(err)
			}
			if u.Runs != tt.runs || p.runs != tt.runs || len(p.calls) != tt.calls || p.calls[len(p.calls)-1] != tt.last || u.Span != tt.span || !u.Phase || u.Samples != 1 {
				t.Errorf("use %+v after %d calls, the last of %d runs; want %d runs (%d timed) in %d calls, the last of %d, spanning %v",
					u, len(p.calls), p.calls[len(p.calls)-1], tt.runs, p.runs, tt.calls, tt.last, tt.span)
			}
			for i, k := range p.calls {
				if k > tt.batch {
					t.Errorf("call %d times %d runs, over the batch of %d", i, k, tt.batch)
				}
			}
			if want := uint64(tt.runs) * tt.mJ; u.MJ != want {
				t.Errorf("%d mJ, want %d", u.MJ, want)
			}
			e := m.PerRun(u)
			if e.Omitted != tt.rule || tt.rule == "" && e.MJPerRun != tt.mJPerRun {
				t.Errorf("line energy %+v, want %v mJ a run or the rule %q", e, tt.mJPerRun, tt.rule)
			}
			if tt.rule != "" && !strings.Contains(e.Detail, "the energy phase's ") {
				t.Errorf("detail %q does not name the energy phase", e.Detail)
			}
		})
	}
	// The runs' error ends the phase and comes back; an off meter runs
	// nothing.
	boom := errors.New("launch failed")
	p := &phaseClock{fakeRuns: fakeRuns{clock: fakeTime{t: time.Unix(0, 0)}, wall: time.Microsecond, err: boom, failAt: 3}, mJ: 1}
	if _, err := (&EnergyMeter{Counter: p}).Phase(time.Microsecond, 10, p.clock.now, p.run); !errors.Is(err, boom) || len(p.calls) != 3 {
		t.Errorf("a failing run: %v after %d calls; want its error after the third", err, len(p.calls))
	}
	for _, m := range []*EnergyMeter{nil, {Off: "no GPU"}} {
		p := &phaseClock{fakeRuns: fakeRuns{clock: fakeTime{t: time.Unix(0, 0)}, wall: time.Microsecond}}
		if u, err := m.Phase(time.Microsecond, 10, p.clock.now, p.run); err != nil || u != (EnergyUse{}) || len(p.calls) != 0 {
			t.Errorf("off meter %+v: phase %+v, %v after %d calls; want nothing", m, u, err, len(p.calls))
		}
	}
}

// phaseTime is the phase a line adds: none when its samples span
// MinSpan, else its runs at ns/op, at most the limit and a run.
func TestPhaseTime(t *testing.T) {
	tests := []struct {
		span, perRun, minSpan, want time.Duration
	}{
		{12 * time.Millisecond, 10 * time.Microsecond, 0, 110 * time.Millisecond},
		{12 * time.Millisecond, 7 * time.Microsecond, 0, 15715 * 7 * time.Microsecond}, // ⌈110000/7⌉ runs
		{90 * time.Millisecond, 15 * time.Millisecond, 0, 120 * time.Millisecond},      // 8 runs
		{99 * time.Millisecond, 90 * time.Millisecond, 0, 180 * time.Millisecond},      // 2 runs
		{12 * time.Millisecond, 10 * time.Microsecond, 150 * time.Millisecond, 165 * time.Millisecond},
		{defaultEnergyMinSpan, 10 * time.Microsecond, 0, 0},
		{2 * time.Second, 10 * time.Microsecond, 0, 0},
		{12 * time.Millisecond, 0, 0, 0},
	}
	for _, tt := range tests {
		if got := phaseTime(tt.span, tt.perRun, tt.minSpan); got != tt.want {
			t.Errorf("phaseTime(%v, %v, %v) = %v, want %v", tt.span, tt.perRun, tt.minSpan, got, tt.want)
		}
	}
}

// PhaseEstimate is phaseTime on a meter whose period is unknown, and on
// an aligned one a period's wait, alignedSpan and a batch (a tenth of a
// period, or a run) where the samples span under MinSpan (ten periods).
func TestPhaseEstimate(t *testing.T) {
	const ms = time.Millisecond
	aligned := alignedMeter(100 * ms) // MinSpan 1s, alignedSpan 300ms
	slow := alignedMeter(117 * ms)    // MinSpan 1.2s, alignedSpan 400ms
	tests := []struct {
		m                  *EnergyMeter
		span, perRun, want time.Duration
	}{
		{&EnergyMeter{}, 12 * ms, 10 * time.Microsecond, 110 * ms},
		{&EnergyMeter{MinSpan: 150 * ms}, 12 * ms, 10 * time.Microsecond, 165 * ms},
		{aligned, 12 * ms, 10 * time.Microsecond, 410 * ms},
		{aligned, 900 * ms, 50 * ms, 450 * ms},
		{aligned, time.Second, 10 * time.Microsecond, 0},
		{aligned, 12 * ms, 0, 0},
		{slow, 1100 * ms, 10 * time.Microsecond, 117*ms + 400*ms + 11700*time.Microsecond},
		{slow, 1200 * ms, 10 * time.Microsecond, 0},
	}
	for _, tt := range tests {
		if got := tt.m.PhaseEstimate(tt.span, tt.perRun); got != tt.want {
			t.Errorf("meter of period %v, MinSpan %v: PhaseEstimate(%v, %v) = %v, want %v", tt.m.Period, tt.m.MinSpan, tt.span, tt.perRun, got, tt.want)
		}
	}
}

// fakeGPU is a GPU for fake device plans: each run of their device work
// spins the host for per and draws mJ on its energy counter, whose reads
// it logs between the runs, so that a test can tell the samples' metered
// runs from an energy phase's.
type fakeGPU struct {
	per  time.Duration
	mJ   uint64
	runs int
	log  []fakeGPUEvent
}

// fakeGPUEvent is one event of a fakeGPU: a read of its counter (runs 0)
// or a call that ran runs runs by method ("kernel", "graph" or "run").
type fakeGPUEvent struct {
	method string
	runs   int
	at     time.Time
}

func (g *fakeGPU) EnergyMJ() (uint64, error) {
	g.log = append(g.log, fakeGPUEvent{at: time.Now()})
	return 1000 + g.mJ*uint64(g.runs), nil
}

func (g *fakeGPU) work(method string, n int) time.Duration {
	end := time.Now().Add(time.Duration(n) * g.per)
	for time.Now().Before(end) {
	}
	g.runs += n
	g.log = append(g.log, fakeGPUEvent{method: method, runs: n})
	return time.Duration(n) * g.per
}

// metered splits the log from its first counter read into the spans
// between pairs of reads, each the calls it holds.
func (g *fakeGPU) metered() (spans [][]fakeGPUEvent, durations []time.Duration) {
	var cur []fakeGPUEvent
	var open *fakeGPUEvent
	for i, e := range g.log {
		switch {
		case e.method == "" && open == nil:
			open, cur = &g.log[i], nil
		case e.method == "":
			spans, durations = append(spans, cur), append(durations, e.at.Sub(open.at))
			open = nil
		case open != nil:
			cur = append(cur, e)
		}
	}
	return spans, durations
}

// fakeGPUVariant is cpu-naive dressed as a GPU variant on several devices
// whose plans time their device work on a fakeGPU.
type fakeGPUVariant struct {
	convolve.Variant
	gpu *fakeGPU
}

func (v fakeGPUVariant) Describe() convolve.Description {
	d := v.Variant.Describe()
	d.Name, d.Caps.GPU, d.Caps.MultiDevice = "gpu-fake", true, true
	return d
}

func (v fakeGPUVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	cfg.Devices = nil
	pl, err := v.Variant.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return &fakeDevicePlan{Plan: pl, gpu: v.gpu}, nil
}

// fakeDevicePlan is a convolve.DevicePlan whose device work is a
// fakeGPU's; Run is cpu-naive's, counted as a run of the fake GPU.
type fakeDevicePlan struct {
	convolve.Plan
	gpu *fakeGPU
}

func (p *fakeDevicePlan) Run(in, out *convolve.Image) error {
	if err := p.Plan.Run(in, out); err != nil {
		return err
	}
	p.gpu.work("run", 1)
	return nil
}

func (p *fakeDevicePlan) Upload(*convolve.Image) error   { return nil }
func (p *fakeDevicePlan) Download(*convolve.Image) error { return nil }
func (p *fakeDevicePlan) TimeKernel(n int) (time.Duration, error) {
	return p.gpu.work("kernel", n), nil
}
func (p *fakeDevicePlan) TimeKernelGraph(n int) (time.Duration, error) {
	return p.gpu.work("graph", n), nil
}

// A GPU line whose samples span less than the meter's MinSpan gets its
// energy from an energy phase after them: ⌈1.1 MinSpan / ns/op⌉ more of
// its runs, timed as its samples were, in batches of its batch size,
// between two more readings of the counter; a line whose samples span
// enough, a cold line, a plan-timing line and a line on other GPUs run
// none. The fake GPU draws 3 mJ a run, so a line's mJ/op is exactly 3
// where its runs are counted exactly.
func TestRunnerEnergyPhase(t *testing.T) {
	const mJ = 3
	base := Case{Variant: "gpu-fake", Op: convolve.Filter2D, Width: 32, Height: 24, Filter: "gauss3", Channels: 1, Cache: Hot, Timing: KernelTiming, GPU: true}
	with := func(f func(c *Case)) Case {
		c := base
		f(&c)
		return c
	}
	tests := []struct {
		name    string
		c       Case
		minSpan time.Duration // 0: the meter is off
		method  string        // the method of the samples' and the phase's calls
		phase   bool          // whether the line runs an energy phase
		metered bool          // whether the samples are metered
		rule    EnergyRule    // why the line has no energy, "" when it has
	}{
		{"short kernel line", base, 50 * time.Millisecond, "kernel", true, true, ""},
		{"short graph line", with(func(c *Case) { c.Timing = graphTiming }), 50 * time.Millisecond, "graph", true, true, ""},
		{"short total line", with(func(c *Case) { c.Timing, c.Mem = totalTiming, pageable }), 50 * time.Millisecond, "run", true, true, ""},
		{"two logical devices of GPU 0", with(func(c *Case) { c.GPUs = "0,0" }), 50 * time.Millisecond, "kernel", true, true, ""},
		// Six samples of at least 100us span 600us or more.
		{"long line", base, 100 * time.Microsecond, "kernel", false, true, ""},
		{"cold line, long", with(func(c *Case) { c.Cache = Cold }), time.Microsecond, "kernel", false, true, ""},
		{"cold line, short", with(func(c *Case) { c.Cache = Cold }), 50 * time.Millisecond, "kernel", false, true, energyColdShort},
		{"other GPUs", with(func(c *Case) { c.GPUs = "0,1" }), 50 * time.Millisecond, "kernel", false, false, energyOtherGPU},
		{"plan timing", with(func(c *Case) { c.Timing = planTiming }), 50 * time.Millisecond, "", false, false, energyPlanTiming},
		{"meter off", base, 0, "kernel", false, false, energyOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useFakeCompileCache(t, &fakeCompileCache{}) // plans compile nothing
			gpu := &fakeGPU{per: 5 * time.Microsecond, mJ: mJ}
			meter := &EnergyMeter{Off: "no counter"}
			if tt.minSpan > 0 {
				meter = &EnergyMeter{Counter: gpu, MinSpan: tt.minSpan}
			}
			var progress strings.Builder
			r := meteredRunner(gpu, meter, &progress)
			res := benchOnce(t, func(b *testing.B) { r.Run(b, tt.c) })
			if r.cur.err != nil || res.N == 0 {
				t.Fatalf("the case did not run: %v\n%s", r.cur.err, progress.String())
			}
			batch := r.cur.batch
			r.Finish(nowForTest())
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}

			samples := int(res.Extra["samples"])
			spans, durations := gpu.metered()
			want := 0
			if tt.metered {
				want = samples
			}
			if tt.phase {
				want++
			}
			if len(spans) != want {
				t.Fatalf("%d metered spans, want %d (%d samples, phase %v):\n%s", len(spans), want, samples, tt.phase, progress.String())
			}
			// Each sample times the line's batch: one call of it, or
			// for total timing as many runs.
			for i := range min(samples, len(spans)) {
				if runs, ok := calls(spans[i], tt.method, batch); runs != batch || !ok {
					t.Errorf("sample %d timed %+v, want %s calls of %d runs", i, spans[i], tt.method, batch)
				}
			}
			mj, hasMJ := res.Extra["mJ/op"]
			gfj, hasGFJ := res.Extra["GFLOP/J"]
			if hasMJ != (tt.rule == "") || hasGFJ != (tt.rule == "") {
				t.Fatalf("mJ/op %v (%v), GFLOP/J %v (%v); want reported %v\n%s", mj, hasMJ, gfj, hasGFJ, tt.rule == "", progress.String())
			}
			if tt.rule != "" {
				if note := "energy: lines where " + string(tt.rule); tt.rule != energyOff && !strings.Contains(progress.String(), note) {
					t.Errorf("progress lacks the note %q...:\n%s", note, progress.String())
				}
				return
			}
			if mj != mJ {
				t.Errorf("mJ/op %v, want %d: the runs were not counted exactly", mj, mJ)
			}
			p, err := tt.c.Problem()
			if err != nil {
				t.Fatal(err)
			}
			if want := convolve.ThroughputOf(p).Flops() / (mJ * 1e6); math.Abs(gfj-want) > 1e-12*want {
				t.Errorf("GFLOP/J %v, want FLOP a run / 3 mJ = %v", gfj, want)
			}
			if !tt.phase {
				return
			}
			// The phase: ⌈1.1 MinSpan / ns/op⌉ runs in batches of the
			// line's (more where they spanned under MinSpan, fewer where
			// it passed twice MinSpan first), spanning MinSpan.
			phase, span := spans[len(spans)-1], durations[len(durations)-1]
			runs, ok := calls(phase, tt.method, batch)
			if !ok {
				t.Errorf("phase calls %+v; want %s calls of %d runs, but the one that ends the planned runs", phase, tt.method, batch)
			}
			n := phaseRuns(time.Duration(math.Round(res.Extra["ns/op"])), tt.minSpan)
			switch {
			case span < tt.minSpan:
				t.Errorf("phase of %d runs over %v, under MinSpan %v", runs, span, tt.minSpan)
			case runs < n && span < phaseLimit(tt.minSpan):
				t.Errorf("phase of %d runs over %v; want %d runs (ns/op %v), or fewer past %v", runs, span, n, res.Extra["ns/op"], phaseLimit(tt.minSpan))
			}
			if !strings.Contains(progress.String(), " mJ a run (") || !strings.Contains(progress.String(), " of an energy phase of "+strconv.Itoa(runs)+" runs after the samples") {
				t.Errorf("the line note does not give the phase's %d runs:\n%s", runs, progress.String())
			}
			// The line's times are its samples': gpu-ns/op is the fake's.
			if tt.method != "run" && res.Extra["gpu-ns/op"] != float64(gpu.per.Nanoseconds()) {
				t.Errorf("gpu-ns/op %v, want the samples' %v", res.Extra["gpu-ns/op"], gpu.per.Nanoseconds())
			}
		})
	}
}

// calls sums the runs of the calls es and reports whether they are all
// by method and, for the device methods, each of batch runs but at most
// one shorter (an energy phase's call that ends its planned runs).
func calls(es []fakeGPUEvent, method string, batch int) (runs int, ok bool) {
	ok = len(es) > 0
	short := 0
	for _, e := range es {
		runs += e.runs
		if e.method != method {
			ok = false
		}
		if method != "run" && e.runs < batch {
			short++
		}
		if method != "run" && e.runs > batch {
			ok = false
		}
	}
	return runs, ok && short <= 1
}
