package variants

import (
	"errors"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// TestRun runs fake plans once: a good run uploads, enqueues the device
// work once and downloads (the fake device's output buffer is zero, and
// comes back so); an input of another geometry, a failing Enqueue and a
// closed plan are refused, the first two naming the plan.
func TestRun(t *testing.T) {
	enqueued, fail := 0, error(nil)
	_, plan := fakePlanner(t, func(*cudabind.Exec, cudabind.Stream) error { enqueued++; return fail })
	p := fakeProblem(t)
	other := p
	other.Input.Width = 9
	for _, tt := range []struct {
		name     string
		in       convolve.Geometry
		fail     error
		closed   bool
		enqueued int
		err      string // "" for success
	}{
		{name: "run", in: p.Input, enqueued: 1},
		{name: "other input", in: other.Input, err: "fake-plan"},
		{name: "enqueue fails", in: p.Input, fail: errors.New("launch refused"), enqueued: 1, err: "variants: fake-plan: launch refused"},
		{name: "closed", in: p.Input, closed: true, err: convolve.ErrClosed.Error()},
	} {
		b := plan(p)
		if tt.closed {
			b.Close()
		}
		in, err := convolve.NewImage(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		for i := range in.F32 {
			in.F32[i] = 1
		}
		out, err := p.NewOutput()
		if err != nil {
			t.Fatal(err)
		}
		for i := range out.F32 {
			out.F32[i] = -1
		}
		enqueued, fail = 0, tt.fail
		err = b.Run(in, out)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.err)
		case tt.err == "" && out.F32[0] != 0:
			t.Errorf("%s: output element 0 = %v, want the device output's 0", tt.name, out.F32[0])
		}
		if enqueued != tt.enqueued {
			t.Errorf("%s: Enqueue called %d times, want %d", tt.name, enqueued, tt.enqueued)
		}
		if !tt.closed {
			b.Close()
		}
	}
}
