package variants

import (
	"errors"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// TestCompletePlan completes fake plans with a setup that succeeds and
// one that fails: the first gives setup's plan with the Base open, the
// second setup's error with the Base closed and its buffers freed.
func TestCompletePlan(t *testing.T) {
	fd, plan := fakePlanner(t, func(*cudabind.Exec, cudabind.Stream) error { return nil })
	refused := errors.New("setup refused")
	type wrapped struct{ *Base }
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"succeeds", nil},
		{"fails", refused},
	} {
		b := plan(fakeProblem(t))
		pl, err := completePlan(b, func(b *Base) (*wrapped, error) { return &wrapped{b}, tt.err })
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.err)
		}
		closeErr := b.Close()
		if tt.err != nil {
			if pl != nil || !errors.Is(closeErr, convolve.ErrClosed) {
				t.Errorf("%s: plan %v, Close after %v; want no plan and the Base closed", tt.name, pl, closeErr)
			}
		} else if w, ok := pl.(*wrapped); !ok || w.Base != b || closeErr != nil {
			t.Errorf("%s: plan %v (Close: %v), want setup's plan over the open Base", tt.name, pl, closeErr)
		}
		if n := fd.Live()["device buffers"]; n != 0 {
			t.Errorf("%s: %d device buffers live after Close", tt.name, n)
		}
	}
}
