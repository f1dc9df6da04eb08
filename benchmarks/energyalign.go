package benchmarks

import (
	"fmt"
	"time"
)

// alignedSpanPeriods is how many of its counter's update periods an
// aligned energy phase spans at least (EnergyMeter.alignedSpan).
const alignedSpanPeriods = 3

// alignedSpan is the least time between the two counter updates that
// bound an aligned energy phase: three update periods rounded up to a
// multiple of 50ms (so that the configuration line that names it stays
// the same from run to run), at least DefaultEnergyMinSpan.
func (m *EnergyMeter) alignedSpan() time.Duration {
	const step = 50 * time.Millisecond
	span := (alignedSpanPeriods*m.Period + step - 1) / step * step
	return max(DefaultEnergyMinSpan, span)
}

// runsIn is the number of runs of perRun each that fill d, at least one
// and at most batch (one where perRun is not positive).
func runsIn(d, perRun time.Duration, batch int) int {
	if perRun <= 0 {
		return 1
	}
	return int(min(max((d+perRun-1)/perRun, 1), time.Duration(batch)))
}

// alignedPhase is Phase on a meter whose counter's update period is
// known. The counter advances only at the driver's updates, so a reading
// taken at an arbitrary moment lags the energy drawn by up to a period;
// two readings taken just after two updates do not. The phase runs
// short batches (a fiftieth of a period, at most the line's batch size)
// and reads the counter after each until it advances, which dates that
// update to the middle of the batch it fell in; it then runs longer
// batches (a tenth of a period) until alignedSpan has passed since, and
// short ones again, reading after each, until the counter advances once
// more. MJ is the advance between those two updates, Updates the time
// between them, and Span and Runs the wall time and count of the runs
// timed wholly between the two batches that held them: PerRun takes the
// power over Updates times the wall time of one of those runs. Each
// update is dated within half a short batch, a fiftieth of a period of
// at least three, so the power is off by well under a percent from the
// dating, against up to a period at each end for a reading not aligned.
// Where the counter does not advance within alignedSpan and four
// periods of the phase's start, or a reading fails or goes back, the use
// it returns says so (Failed) and the line carries no energy.
func (m *EnergyMeter) alignedPhase(perRun time.Duration, batch int, now func() time.Time, run func(k int) error) (EnergyUse, error) {
	span := m.alignedSpan()
	batch = max(batch, 1)
	short, long := runsIn(m.Period/50, perRun, batch), runsIn(m.Period/10, perRun, batch)
	start := now()
	limit := span + 4*m.Period
	u := EnergyUse{Samples: 1, Phase: true}
	read := func(prev uint64) (uint64, bool) {
		e, err := m.Counter.EnergyMJ()
		switch {
		case err != nil:
			u.Failed = "reading the energy counter: " + err.Error()
			return 0, false
		case e < prev:
			u.Failed = fmt.Sprintf("the energy counter went back from %d to %d mJ", prev, e)
			return 0, false
		}
		return e, true
	}
	// untilUpdate runs short batches until the counter passes from; it
	// returns the reading, the start and end of the batch the update fell
	// in, and whether the counter advanced in time.
	untilUpdate := func(from uint64) (e uint64, b0, b1 time.Time, ok bool, err error) {
		for now().Sub(start) < limit {
			b0 = now()
			if err := run(short); err != nil {
				return 0, b0, b0, false, err
			}
			b1 = now()
			u.Runs += short
			var read0 bool
			if e, read0 = read(from); !read0 {
				return 0, b0, b1, false, nil
			}
			if e != from {
				return e, b0, b1, true, nil
			}
		}
		u.Failed = fmt.Sprintf("the energy counter did not advance from %d mJ within %v of an energy phase", from, limit)
		return from, b0, b1, false, nil
	}
	e0, ok := read(0)
	if !ok {
		return u, nil
	}
	e1, a0, a1, ok, err := untilUpdate(e0)
	if err != nil || !ok {
		u.Span = now().Sub(start)
		return u, err
	}
	first := a0.Add(a1.Sub(a0) / 2)
	inner := 0
	for now().Sub(first) < span {
		if err := run(long); err != nil {
			return u, err
		}
		u.Runs += long
		inner += long
	}
	mark, ok := read(e1)
	if !ok {
		return u, nil
	}
	// The short batches before the update count among the inner runs:
	// untilUpdate adds each batch's runs to u.Runs as it goes.
	before := u.Runs
	e2, c0, c1, ok, err := untilUpdate(mark)
	if err != nil || !ok {
		u.Span = now().Sub(start)
		return u, err
	}
	inner += u.Runs - before - short
	last := c0.Add(c1.Sub(c0) / 2)
	return EnergyUse{MJ: e2 - e1, Updates: last.Sub(first), Span: c0.Sub(a1), Runs: inner, Samples: 1, Phase: true}, nil
}
