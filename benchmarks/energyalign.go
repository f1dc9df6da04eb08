package benchmarks

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// alignedSpanPeriods is how many of its counter's update periods an
// aligned energy phase spans at least (EnergyMeter.alignedSpan).
const alignedSpanPeriods = 3

// alignedSpan is the least time between the two counter updates that
// bound an aligned energy phase: alignedSpanPeriods update periods
// (periodsSpan).
func (m *EnergyMeter) alignedSpan() time.Duration { return periodsSpan(alignedSpanPeriods, m.Period) }

// periodsSpan is n update periods of period rounded up to a multiple of
// 50ms (so that the configuration line that names it stays the same from
// run to run), at least defaultEnergyMinSpan.
func periodsSpan(n int, period time.Duration) time.Duration {
	const step = 50 * time.Millisecond
	return max(defaultEnergyMinSpan, (time.Duration(n)*period+step-1)/step*step)
}

// runsIn is the number of runs of perRun each that fill d, at least one
// and at most batch (one where perRun is not positive).
func runsIn(d, perRun time.Duration, batch int) int {
	if perRun <= 0 {
		return 1
	}
	return int(min(max((d+perRun-1)/perRun, 1), time.Duration(batch)))
}

// counterStep is an advance of the energy counter that a watch saw: the
// reading and when it was taken.
type counterStep struct {
	At time.Time
	MJ uint64
}

// counterWatch reads the energy counter beside the runs of an aligned
// energy phase, so that the runs never wait for a reading.
type counterWatch interface {
	// Steps returns the advances seen so far, in order, and why the
	// watch stopped reading (a reading failed or went back), if it did.
	Steps() ([]counterStep, string)
	// Stop ends the watch.
	Stop()
}

// pollWatch is the counterWatch of a real counter: a goroutine that reads
// it every poll and dates each advance to the middle of the reading that
// saw it.
type pollWatch struct {
	mu     sync.Mutex
	steps  []counterStep
	failed string
	stop   chan struct{}
	done   chan struct{}
	procs  int // GOMAXPROCS to restore at Stop; 0 to leave it
}

// watchCounter starts a pollWatch of c, reading it every poll. The
// benchmarks run with one P (-test.cpu 1), and a goroutine that launches
// kernels in a loop of short driver calls keeps that P, so that a
// watch beside it would read only when the scheduler preempts the loop
// (every 10 to 20ms, far coarser than poll); the watch therefore raises
// GOMAXPROCS to two while it runs.
func watchCounter(c EnergyCounter, poll time.Duration) counterWatch {
	w := &pollWatch{stop: make(chan struct{}), done: make(chan struct{})}
	if p := runtime.GOMAXPROCS(0); p < 2 {
		runtime.GOMAXPROCS(2)
		w.procs = p
	}
	go w.loop(c, poll)
	return w
}

func (w *pollWatch) loop(c EnergyCounter, poll time.Duration) {
	defer close(w.done)
	var last uint64
	first := true
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		t0 := time.Now()
		e, err := c.EnergyMJ()
		at := t0.Add(time.Since(t0) / 2)
		w.mu.Lock()
		switch {
		case err != nil:
			w.failed = "reading the energy counter: " + err.Error()
		case !first && e < last:
			w.failed = fmt.Sprintf("the energy counter went back from %d to %d mJ", last, e)
		case !first && e != last:
			w.steps = append(w.steps, counterStep{At: at, MJ: e})
		}
		failed := w.failed != ""
		w.mu.Unlock()
		if failed {
			return
		}
		last, first = e, false
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
	}
}

func (w *pollWatch) Steps() ([]counterStep, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]counterStep(nil), w.steps...), w.failed
}

func (w *pollWatch) Stop() {
	select {
	case <-w.stop:
		return // stopped before
	default:
	}
	close(w.stop)
	<-w.done
	if w.procs > 0 {
		runtime.GOMAXPROCS(w.procs)
	}
}

// watchPoll is how often a pollWatch reads the counter: a small share of
// any update period NVML has shown (10 to 100 ms).
const watchPoll = 100 * time.Microsecond

// watch starts the meter's counterWatch.
func (m *EnergyMeter) watch() counterWatch {
	if m.newWatch != nil {
		return m.newWatch()
	}
	return watchCounter(m.Counter, watchPoll)
}

// alignedPhase is Phase on a meter whose counter's update period is
// known. The counter advances only at the driver's updates, so a reading
// taken at an arbitrary moment lags the energy drawn by up to a period,
// and a reading between batches leaves the GPU idle while it lasts. Here
// a watch reads the counter beside the runs (counterWatch), dating each
// advance within a poll; the runs go on in batches of about a tenth of a
// period (at most the line's batch size) until the watch has seen an
// advance and another at least alignedSpan later. MJ is the advance
// between those two, Updates the time between them, and Span and Runs
// the wall time and count of the batches that lie wholly between them:
// PerRun takes the power between the two updates times the wall time of
// one of those runs. A delay common to the datings of both updates
// cancels. Where the counter does not advance twice within alignedSpan
// and four periods, or a reading fails or goes back, the use it returns
// says so (Failed) and the line carries no energy.
func (m *EnergyMeter) alignedPhase(perRun time.Duration, batch int, now func() time.Time, run func(k int) error) (EnergyUse, error) {
	span := m.alignedSpan()
	k := runsIn(m.Period/10, perRun, max(batch, 1))
	limit := span + 4*m.Period
	type timed struct {
		start, end time.Time
	}
	var batches []timed
	w := m.watch()
	defer w.Stop()
	start := now()
	u := EnergyUse{Samples: 1, Phase: true}
	for {
		b0 := now()
		if err := run(k); err != nil {
			return u, err
		}
		b1 := now()
		batches = append(batches, timed{b0, b1})
		u.Runs += k
		u.Span = b1.Sub(start)
		steps, failed := w.Steps()
		if failed != "" {
			u.Failed = failed
			return u, nil
		}
		if len(steps) >= 2 {
			first := steps[0]
			for _, s := range steps[1:] {
				if s.At.Sub(first.At) < span {
					continue
				}
				inner := 0
				var from, to time.Time
				for _, b := range batches {
					if b.start.Before(first.At) || b.end.After(s.At) {
						continue
					}
					if inner == 0 {
						from = b.start
					}
					inner += k
					to = b.end
				}
				return EnergyUse{MJ: s.MJ - first.MJ, Updates: s.At.Sub(first.At), Span: to.Sub(from), Runs: inner, Samples: 1, Phase: true}, nil
			}
		}
		if b1.Sub(start) >= limit {
			u.Failed = fmt.Sprintf("the energy counter advanced %d times within %v of an energy phase, not twice %v apart", len(steps), limit, span)
			return u, nil
		}
	}
}
