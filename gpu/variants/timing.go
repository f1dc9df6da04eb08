package variants

import (
	"fmt"
	"time"

	"github.com/convbench/convbench/cudabind"
)

// TimeKernel enqueues the device work n times between two events and
// returns the elapsed device time, all in one device task.
func (b *Base) TimeKernel(n int) (time.Duration, error) {
	return b.timeRuns("TimeKernel", n, func(x *cudabind.Exec) (time.Duration, error) {
		return b.timeEvents(x, func() error { return b.enqueueRuns(x, n) })
	})
}

// timeRuns is the frame of TimeKernel and TimeKernelGraph (named by
// method): it refuses a closed plan and n below one, runs timed as one
// device task and names the plan in its error.
func (b *Base) timeRuns(method string, n int, timed func(x *cudabind.Exec) (time.Duration, error)) (time.Duration, error) {
	if err := b.usable(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("variants: %s: %s(%d): need at least one run", b.Name, method, n)
	}
	var d time.Duration
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		d, err = timed(x)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	return d, nil
}

// enqueueRuns enqueues the device work runs times on the plan's stream.
func (b *Base) enqueueRuns(x *cudabind.Exec, runs int) error {
	for i := 0; i < runs; i++ {
		if err := b.Enqueue(x, b.stream); err != nil {
			return err
		}
	}
	return nil
}

// timeEvents records the start event on the plan's stream, lets enqueue
// put the timed work there, records the stop event, waits for it and
// returns the device time between the two.
func (b *Base) timeEvents(x *cudabind.Exec, enqueue func() error) (time.Duration, error) {
	if err := x.Record(b.start, b.stream); err != nil {
		return 0, err
	}
	if err := enqueue(); err != nil {
		return 0, err
	}
	if err := x.Record(b.stop, b.stream); err != nil {
		return 0, err
	}
	if err := x.EventSync(b.stop); err != nil {
		return 0, err
	}
	return x.Elapsed(b.start, b.stop)
}

// newStreamEvents creates the plan's stream and its start and stop
// events, each destroyed at Close.
func (b *Base) newStreamEvents(x *cudabind.Exec) error {
	var err error
	if b.stream, err = x.NewStream(); err != nil {
		return err
	}
	b.OnClose(func(x *cudabind.Exec) error { return x.DestroyStream(b.stream) })
	if b.start, err = x.NewEvent(); err != nil {
		return err
	}
	b.OnClose(func(x *cudabind.Exec) error { return x.DestroyEvent(b.start) })
	if b.stop, err = x.NewEvent(); err != nil {
		return err
	}
	b.OnClose(func(x *cudabind.Exec) error { return x.DestroyEvent(b.stop) })
	return nil
}

// GraphBatch is how many runs of the device work one CUDA graph of
// TimeKernelGraph holds. At 64 runs even a 2 µs kernel keeps the GPU busy
// for over 100 µs per graph launch, against the 4-6 µs the host took per
// kernel launch on the H100 and H200 (preset launch-overhead).
const GraphBatch = 64

// TimeKernelGraph is TimeKernel with the n runs replayed from CUDA graphs
// (n/GraphBatch launches of a graph of GraphBatch runs, then one launch of
// a one-run graph per remaining run), so that the time is the device's
// alone even where one host launch takes longer than the kernel. The
// graphs are captured from Enqueue on first use, outside the timed
// region; work that cannot be captured (a synchronous call in Enqueue) is
// an error.
func (b *Base) TimeKernelGraph(n int) (time.Duration, error) {
	return b.timeRuns("TimeKernelGraph", n, func(x *cudabind.Exec) (time.Duration, error) {
		big, rest := n/GraphBatch, n%GraphBatch
		if big > 0 {
			if err := b.captureGraph(x, 1, GraphBatch); err != nil {
				return 0, err
			}
		}
		if rest > 0 {
			if err := b.captureGraph(x, 0, 1); err != nil {
				return 0, err
			}
		}
		return b.timeEvents(x, func() error {
			if err := b.launchGraph(x, 1, big); err != nil {
				return err
			}
			return b.launchGraph(x, 0, rest)
		})
	})
}

// launchGraph launches b.graphs[i] times times on the plan's stream.
func (b *Base) launchGraph(x *cudabind.Exec, i, times int) error {
	for r := 0; r < times; r++ {
		if err := x.LaunchGraph(b.graphs[i], b.stream); err != nil {
			return err
		}
	}
	return nil
}

// captureGraph fills b.graphs[i], if empty, with runs runs of Enqueue.
func (b *Base) captureGraph(x *cudabind.Exec, i, runs int) error {
	if b.graphs[i] != 0 {
		return nil
	}
	g, err := x.Capture(b.stream, func() error { return b.enqueueRuns(x, runs) })
	if err != nil {
		return fmt.Errorf("capturing %d runs of the device work into a CUDA graph: %w", runs, err)
	}
	b.graphs[i] = g
	b.closers = append(b.closers, func(x *cudabind.Exec) error { return x.DestroyGraph(g) })
	return nil
}
