package benchmarks

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

// steppedGPU is a GPU that draws watts at all times and whose energy
// counter the driver brings up to date every period, the first update
// offset after start, on a fake clock that its runs advance by wall
// each: the counter NVML reads between updates.
type steppedGPU struct {
	fakeRuns
	start          time.Time
	period, offset time.Duration
	watts          float64
	reads          int // counter readings
}

func newSteppedGPU(period, offset time.Duration, watts float64, wall time.Duration) *steppedGPU {
	t0 := time.Unix(0, 0)
	return &steppedGPU{fakeRuns: fakeRuns{clock: fakeTime{t: t0}, wall: wall, failAt: 5}, start: t0, period: period, offset: offset, watts: watts}
}

func (g *steppedGPU) EnergyMJ() (uint64, error) {
	g.reads++
	since := g.clock.t.Sub(g.start)
	if since < g.offset {
		return 5000, nil
	}
	last := g.offset + (since-g.offset)/g.period*g.period
	return 5000 + uint64(math.Round(last.Seconds()*g.watts*1e3)), nil
}

// modelWatch is the counterWatch of a steppedGPU: it sees each update
// late after it happens, from the moment the watch starts.
type modelWatch struct {
	g     *steppedGPU
	from  time.Time
	late  time.Duration
	still bool // the counter never advances
}

func (w *modelWatch) Steps() ([]counterStep, string) {
	if w.still {
		return nil, ""
	}
	var steps []counterStep
	for at := w.g.start.Add(w.g.offset); !at.Add(w.late).After(w.g.clock.t); at = at.Add(w.g.period) {
		if !at.After(w.from) {
			continue
		}
		since := at.Sub(w.g.start)
		steps = append(steps, counterStep{At: at.Add(w.late), MJ: 5000 + uint64(math.Round(since.Seconds()*w.g.watts*1e3))})
	}
	return steps, ""
}

func (w *modelWatch) Stop() {}

// An aligned energy phase takes the power between two counter updates at
// least alignedSpan apart, as its watch dates them (a delay common to
// both cancels), times the wall time of a run timed wholly between them:
// the true energy of a run within a percent; it lasts the span and at
// most about two periods more, no call exceeds the line's batch, and
// only the watch reads the counter (a reading between batches would
// leave the GPU idle and lengthen the runs).
func TestAlignedEnergyPhase(t *testing.T) {
	tests := []struct {
		name           string
		period, offset time.Duration
		late           time.Duration // the watch's delay in dating an update
		watts          float64
		wall           time.Duration // a run's
		batch          int
	}{
		{"short runs, 100ms updates", 100 * time.Millisecond, 37 * time.Millisecond, 0, 500, 10 * time.Microsecond, 100},
		{"a late watch", 100 * time.Millisecond, 37 * time.Millisecond, 700 * time.Microsecond, 500, 10 * time.Microsecond, 100},
		{"short runs, 10ms updates", 10 * time.Millisecond, 3 * time.Millisecond, 50 * time.Microsecond, 300, 7 * time.Microsecond, 1000},
		{"runs in large batches", 100 * time.Millisecond, 90 * time.Millisecond, 0, 650, 3 * time.Microsecond, 100000},
		{"long runs", 100 * time.Millisecond, 5 * time.Millisecond, 0, 420, 17 * time.Millisecond, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSteppedGPU(tt.period, tt.offset, tt.watts, tt.wall)
			m := &EnergyMeter{Counter: g, Period: tt.period, MinSpan: 10 * tt.period,
				newWatch: func() counterWatch { return &modelWatch{g: g, from: g.clock.t, late: tt.late} }}
			u, err := m.Phase(tt.wall, tt.batch, g.clock.now, g.run)
			if err != nil {
				t.Fatal(err)
			}
			if u.Failed != "" || !u.Phase || u.Samples != 1 || u.Updates < m.alignedSpan() || u.Runs <= 0 {
				t.Fatalf("use %+v: want a phase between updates at least %v apart", u, m.alignedSpan())
			}
			e := m.PerRun(u)
			want := tt.watts * tt.wall.Seconds() * 1e3
			if !e.Reported() || math.Abs(e.MJPerRun-want) > 0.01*want {
				t.Errorf("line energy %+v, want %.4g mJ a run within 1%%", e, want)
			}
			if took := g.clock.t.Sub(g.start); took > m.alignedSpan()+2*tt.period+tt.late+tt.wall*time.Duration(tt.batch) {
				t.Errorf("the phase took %v, over its span %v and two periods", took, m.alignedSpan())
			}
			for i, k := range g.calls {
				if k < 1 || k > tt.batch {
					t.Errorf("call %d times %d runs, want 1 to the batch of %d", i, k, tt.batch)
				}
			}
			if u.Runs > g.runs {
				t.Errorf("%d runs between the updates, of %d timed", u.Runs, g.runs)
			}
			if g.reads != 0 {
				t.Errorf("the phase read the counter %d times between its runs; only its watch reads it", g.reads)
			}
		})
	}
}

// A counter that does not advance ends the phase after its limit with the
// reason, and the line carries none; the runs' error comes back.
func TestAlignedEnergyPhaseFaults(t *testing.T) {
	still := newSteppedGPU(100*time.Millisecond, 0, 0, 10*time.Microsecond)
	m := &EnergyMeter{Counter: still, Period: 100 * time.Millisecond, MinSpan: time.Second,
		newWatch: func() counterWatch { return &modelWatch{g: still, still: true} }}
	u, err := m.Phase(10*time.Microsecond, 100, still.clock.now, still.run)
	if err != nil {
		t.Fatal(err)
	}
	if e := m.PerRun(u); e.Reported() || e.Omitted != energyUnread || !strings.Contains(e.Detail, "advanced 0 times") {
		t.Errorf("a still counter: line energy %+v, want none, saying it did not advance", e)
	}
	if took := still.clock.t.Sub(still.start); took > m.alignedSpan()+5*m.Period {
		t.Errorf("a still counter kept the phase going %v", took)
	}
	boom := errors.New("launch failed")
	g := newSteppedGPU(100*time.Millisecond, 0, 100, 10*time.Microsecond)
	g.err = boom
	m = &EnergyMeter{Counter: g, Period: 100 * time.Millisecond,
		newWatch: func() counterWatch { return &modelWatch{g: g, from: g.clock.t} }}
	if _, err := m.Phase(10*time.Microsecond, 100, g.clock.now, g.run); !errors.Is(err, boom) {
		t.Errorf("a failing run: %v, want its error", err)
	}
}

// clockCounter advances by one millijoule every step of the wall clock
// from start, or fails with err.
type clockCounter struct {
	start time.Time
	step  time.Duration
	err   error
}

func (c *clockCounter) EnergyMJ() (uint64, error) {
	if c.err != nil {
		return 0, c.err
	}
	return uint64(time.Since(c.start) / c.step), nil
}

// A pollWatch sees a counter's advances in order while the caller goes
// on, and stops; a reading that fails stops it with the reason.
func TestPollWatch(t *testing.T) {
	w := watchCounter(&clockCounter{start: time.Now(), step: 2 * time.Millisecond}, watchPoll)
	time.Sleep(60 * time.Millisecond)
	w.Stop()
	steps, failed := w.Steps()
	if failed != "" || len(steps) < 3 {
		t.Fatalf("%d advances (%q) of a counter advancing every 2ms over 60ms; want several", len(steps), failed)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].MJ <= steps[i-1].MJ || steps[i].At.Before(steps[i-1].At) {
			t.Errorf("advance %d %+v after %+v: want both later", i, steps[i], steps[i-1])
		}
	}
	w.Stop() // a second Stop returns
	bad := watchCounter(&clockCounter{err: errors.New("NVML: GPU is lost")}, watchPoll)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, failed := bad.Steps(); failed != "" {
			if !strings.Contains(failed, "GPU is lost") {
				t.Errorf("failed %q, want the reading's error", failed)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a failing counter: the watch never said so")
		}
		time.Sleep(time.Millisecond)
	}
	bad.Stop()
}

// With one P, as the benchmarks run, a pollWatch still reads the counter
// about every poll while the caller keeps the P in a loop of short system
// calls (as a loop of kernel launches does), and gives the P back at Stop.
func TestPollWatchOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const step = 2 * time.Millisecond
	w := watchCounter(&clockCounter{start: time.Now(), step: step}, watchPoll)
	end := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(end) {
		for range 1000 {
			syscall.Getppid()
		}
	}
	w.Stop()
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Errorf("GOMAXPROCS %d after Stop, want 1 restored", p)
	}
	steps, failed := w.Steps()
	// 100 advances over 200ms; a watch that reads only when the loop is
	// preempted sees about one in eight.
	if failed != "" || len(steps) < 50 {
		t.Fatalf("%d advances (%q) of a counter advancing every %v over 200ms beside a loop of system calls; want at least 50", len(steps), failed, step)
	}
}

// The number of runs that fill a span: at least one, at most the batch.
func TestRunsIn(t *testing.T) {
	for _, tt := range []struct {
		d, perRun time.Duration
		batch     int
		want      int
	}{
		{2 * time.Millisecond, 10 * time.Microsecond, 1000, 200},
		{2 * time.Millisecond, 10 * time.Microsecond, 100, 100},
		{2 * time.Millisecond, 3 * time.Microsecond, 1000, 667},
		{2 * time.Millisecond, 17 * time.Millisecond, 10, 1},
		{2 * time.Millisecond, 0, 10, 1},
	} {
		if got := runsIn(tt.d, tt.perRun, tt.batch); got != tt.want {
			t.Errorf("runsIn(%v, %v, %d) = %d, want %d", tt.d, tt.perRun, tt.batch, got, tt.want)
		}
	}
}

// batchWatch is a counterWatch of a fakeGPU for the runner's tests: each
// time the phase asks, it dates an advance to that moment where a period
// has passed since the last, with the counter as the runs left it.
type batchWatch struct {
	gpu    *fakeGPU
	period time.Duration
	last   time.Time
	steps  []counterStep
}

func (w *batchWatch) Steps() ([]counterStep, string) {
	if now := time.Now(); now.Sub(w.last) >= w.period {
		w.last = now
		w.steps = append(w.steps, counterStep{At: now, MJ: 1000 + w.gpu.mJ*uint64(w.gpu.runs)})
	}
	return w.steps, ""
}

func (w *batchWatch) Stop() {}

// A runner whose meter knows its counter's period gives a short line the
// energy of an aligned phase: mJ/op near the runs' own, and a note that
// gives the power between the two updates.
func TestRunnerAlignedEnergyPhase(t *testing.T) {
	useFakeCompileCache(t, &fakeCompileCache{})
	const mJ = 3
	gpu := &fakeGPU{per: 5 * time.Microsecond, mJ: mJ}
	meter := &EnergyMeter{Counter: gpu, MinSpan: 50 * time.Millisecond, Period: 5 * time.Millisecond,
		newWatch: func() counterWatch { return &batchWatch{gpu: gpu, period: 5 * time.Millisecond, last: time.Now()} }}
	var progress strings.Builder
	r := meteredRunner(gpu, meter, &progress)
	c := Case{Variant: "gpu-fake", Op: convolve.Filter2D, Width: 32, Height: 24, Filter: "gauss3", Channels: 1, Cache: Hot, Timing: KernelTiming, GPU: true}
	res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
	if r.cur.err != nil || res.N == 0 {
		t.Fatalf("the case did not run: %v\n%s", r.cur.err, progress.String())
	}
	r.Finish(nowForTest())
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// The watch dates each advance at a batch's end, so the span between
	// two holds the gaps between batches as well as the runs.
	if mj, ok := res.Extra["mJ/op"]; !ok || math.Abs(mj-mJ) > 0.2*mJ {
		t.Errorf("mJ/op %v (%v), want about %d\n%s", mj, ok, mJ, progress.String())
	}
	if !strings.Contains(progress.String(), "between counter updates") {
		t.Errorf("the line note does not give the aligned phase:\n%s", progress.String())
	}
}
