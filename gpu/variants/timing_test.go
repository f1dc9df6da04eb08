package variants

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
)

// TestTimeRuns times a plan whose Enqueue counts its calls on a fake
// device: TimeKernel enqueues n runs between the two events,
// TimeKernelGraph captures a GraphBatch-run graph and a one-run graph as
// n needs them and launches n/GraphBatch and n%GraphBatch of them between
// the events; fewer than one run and a closed plan are refused, naming
// the method.
func TestTimeRuns(t *testing.T) {
	enqueued := 0
	fd, plan := fakePlanner(t, func(*cudabind.Exec, cudabind.Stream) error { enqueued++; return nil })
	p := fakeProblem(t)
	count := func(calls []string, api string) int {
		n := 0
		for _, c := range calls {
			if c == api {
				n++
			}
		}
		return n
	}
	for _, tt := range []struct {
		method   string
		time     func(b *Base, n int) (time.Duration, error)
		n        int
		enqueued int // Enqueue calls, timed or captured
		graphs   int // graph launches between the events
		err      string
	}{
		{"TimeKernel", (*Base).TimeKernel, 0, 0, 0, "TimeKernel(0): need at least one run"},
		{"TimeKernel", (*Base).TimeKernel, 1, 1, 0, ""},
		{"TimeKernel", (*Base).TimeKernel, 70, 70, 0, ""},
		{"TimeKernelGraph", (*Base).TimeKernelGraph, -1, 0, 0, "TimeKernelGraph(-1): need at least one run"},
		{"TimeKernelGraph", (*Base).TimeKernelGraph, 3, 1, 3, ""},
		{"TimeKernelGraph", (*Base).TimeKernelGraph, GraphBatch, GraphBatch, 1, ""},
		{"TimeKernelGraph", (*Base).TimeKernelGraph, 2*GraphBatch + 2, GraphBatch + 1, 4, ""},
	} {
		b := plan(p)
		enqueued = 0
		before := len(fd.Calls())
		got, err := tt.time(b, tt.n)
		calls := fd.Calls()[before:]
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), "fake-plan") || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s(%d) = %v, want an error naming the plan and %q", tt.method, tt.n, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s(%d): %v", tt.method, tt.n, err)
		case got <= 0:
			t.Errorf("%s(%d) = %v, want a positive time", tt.method, tt.n, got)
		}
		if enqueued != tt.enqueued {
			t.Errorf("%s(%d) called Enqueue %d times, want %d", tt.method, tt.n, enqueued, tt.enqueued)
		}
		if n := count(calls, "cuGraphLaunch"); n != tt.graphs {
			t.Errorf("%s(%d) launched %d graphs, want %d", tt.method, tt.n, n, tt.graphs)
		}
		if n := count(calls, "cuEventRecord"); tt.err == "" && n != 2 {
			t.Errorf("%s(%d) recorded %d events, want 2", tt.method, tt.n, n)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := tt.time(b, 1); !errors.Is(err, convolve.ErrClosed) {
			t.Errorf("%s after Close: %v, want convolve.ErrClosed", tt.method, err)
		}
	}
}

// fakePlanner opens a fake device for the test and returns it with a
// function that plans a problem on it under a variant whose Setup sets
// enqueue as the device work. The variant takes float32 and uint8
// images of 1 to 4 channels in either layout, Zero and Replicate borders
// and filters up to 3x3.
func fakePlanner(t *testing.T, enqueue func(*cudabind.Exec, cudabind.Stream) error) (*fakedriver.Driver, func(convolve.Problem) *Base) {
	t.Helper()
	fd := &fakedriver.Driver{}
	d, err := cudabind.OpenDriver(fd, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	v := &Variant{
		Desc: convolve.Description{Name: "fake-plan", Caps: convolve.Capabilities{
			Ops: []convolve.Operation{convolve.Filter2D}, Types: []convolve.ElemType{convolve.Float32, convolve.Uint8},
			Channels: []int{1, 2, 3, 4}, Layouts: []convolve.Layout{convolve.Interleaved, convolve.Planar},
			Borders: []convolve.Border{convolve.Zero, convolve.Replicate}, MaxFilterSide: 3, GPU: true}},
		Setup: func(b *Base) error {
			b.Enqueue = enqueue
			return nil
		},
	}
	return fd, func(p convolve.Problem) *Base {
		t.Helper()
		b, err := PlanOn(v, d, p, convolve.Config{})
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		return b
	}
}

// fakeProblem is an 8x4 float32 Filter2D problem with a 3x3 Gaussian, one
// that fakePlanner's variant accepts.
func fakeProblem(t *testing.T) convolve.Problem {
	t.Helper()
	f, err := convolve.Gaussian(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	return convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 8, Height: 4, Channels: 1, Type: convolve.Float32}, Filter: f}
}
