package cudabind

import (
	"errors"
	"fmt"

	"github.com/convbench/convbench/cudabind/driver"
)

// Graph is an executable CUDA graph (CUgraphExec): stream work recorded
// once by Capture and replayed by LaunchGraph with one host call.
type Graph uintptr

// captureModeThreadLocal is CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: while the
// capture runs, calls from this thread that could synchronise with the
// captured work (cuMemAlloc, synchronous copies, ...) fail instead of
// running, so a work function that makes one is refused, not recorded
// wrongly.
const captureModeThreadLocal = 1

// errNoGraphs is returned by Capture when the driver lacks the stream
// capture and graph entry points (drivers before CUDA 11.4).
var errNoGraphs = errors.New("cudabind: the driver has no stream capture and graph entry points")

// Capture records the work that enqueue puts on stream s into a graph,
// instantiates it and uploads it to the device, so that the first
// LaunchGraph costs no more than the next. enqueue must only enqueue work
// on s (kernel launches, asynchronous copies and memsets); a call that
// cannot be captured makes Capture fail with that call's error, and the
// stream is left out of capture mode either way. s must not be the legacy
// default stream. DestroyGraph releases the result.
func (x *Exec) Capture(s Stream, enqueue func() error) (Graph, error) {
	if err := x.ok("Capture"); err != nil {
		return 0, err
	}
	l := x.lib()
	if !l.Has(driver.Graphs) {
		return 0, errNoGraphs
	}
	if s == 0 {
		return 0, fmt.Errorf("cudabind: Capture on the legacy default stream, which cannot be captured")
	}
	if err := x.check("cuStreamBeginCapture", l.StreamBeginCapture(driver.Stream(s), captureModeThreadLocal)); err != nil {
		return 0, err
	}
	werr := enqueue()
	g, r := l.StreamEndCapture(driver.Stream(s))
	eerr := x.check("cuStreamEndCapture", r)
	if werr != nil || eerr != nil {
		if g != 0 {
			l.GraphDestroy(g)
		}
		if werr != nil {
			return 0, fmt.Errorf("cudabind: capture: %w", werr)
		}
		return 0, eerr
	}
	if g == 0 {
		return 0, fmt.Errorf("cudabind: cuStreamEndCapture returned no graph")
	}
	exec, r := l.GraphInstantiate(g, 0)
	ierr := x.check("cuGraphInstantiateWithFlags", r)
	if err := x.check("cuGraphDestroy", l.GraphDestroy(g)); err != nil && ierr == nil {
		ierr = err
	}
	if ierr != nil {
		if exec != 0 {
			l.GraphExecDestroy(exec)
		}
		return 0, ierr
	}
	x.count(kindGraph, 1)
	if err := x.check("cuGraphUpload", l.GraphUpload(exec, driver.Stream(s))); err != nil {
		x.DestroyGraph(Graph(exec))
		return 0, err
	}
	return Graph(exec), nil
}

// LaunchGraph enqueues one replay of g on stream s.
func (x *Exec) LaunchGraph(g Graph, s Stream) error {
	if err := x.ok("LaunchGraph"); err != nil {
		return err
	}
	if g == 0 {
		return fmt.Errorf("cudabind: LaunchGraph of a null graph")
	}
	return x.check("cuGraphLaunch", x.lib().GraphLaunch(driver.GraphExec(g), driver.Stream(s)))
}

// DestroyGraph releases a graph from Capture; replays already enqueued
// still run.
func (x *Exec) DestroyGraph(g Graph) error {
	return x.release("DestroyGraph", "cuGraphExecDestroy", kindGraph, g == 0, "a null graph", func() driver.Result { return x.lib().GraphExecDestroy(driver.GraphExec(g)) })
}
