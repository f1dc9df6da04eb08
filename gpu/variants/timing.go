package variants

import (
	"fmt"
	"time"

	"github.com/convbench/convbench/cudabind"
)

// TimeKernel enqueues the device work n times between two events and
// returns the elapsed device time, all in one device task.
func (b *Base) TimeKernel(n int) (time.Duration, error) {
	if err := b.usable(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("variants: %s: TimeKernel(%d): need at least one run", b.Name, n)
	}
	var d time.Duration
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		var err error
		d, err = b.timeEvents(x, func() error {
			for i := 0; i < n; i++ {
				if err := b.Enqueue(x, b.stream); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	return d, nil
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
	if err := b.usable(); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("variants: %s: TimeKernelGraph(%d): need at least one run", b.Name, n)
	}
	var d time.Duration
	err := b.Dev.Do(func(x *cudabind.Exec) error {
		big, rest := n/GraphBatch, n%GraphBatch
		if big > 0 {
			if err := b.captureGraph(x, 1, GraphBatch); err != nil {
				return err
			}
		}
		if rest > 0 {
			if err := b.captureGraph(x, 0, 1); err != nil {
				return err
			}
		}
		var err error
		d, err = b.timeEvents(x, func() error {
			for i := 0; i < big; i++ {
				if err := x.LaunchGraph(b.graphs[1], b.stream); err != nil {
					return err
				}
			}
			for i := 0; i < rest; i++ {
				if err := x.LaunchGraph(b.graphs[0], b.stream); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	return d, nil
}

// captureGraph fills b.graphs[i], if empty, with runs runs of Enqueue.
func (b *Base) captureGraph(x *cudabind.Exec, i, runs int) error {
	if b.graphs[i] != 0 {
		return nil
	}
	g, err := x.Capture(b.stream, func() error {
		for r := 0; r < runs; r++ {
			if err := b.Enqueue(x, b.stream); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("capturing %d runs of the device work into a CUDA graph: %w", runs, err)
	}
	b.graphs[i] = g
	b.closers = append(b.closers, func(x *cudabind.Exec) error { return x.DestroyGraph(g) })
	return nil
}
