package cudabind

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A captured graph replays its launches on every LaunchGraph and runs
// nothing at capture time; a capture whose work fails, or that makes a
// synchronous call, is refused and leaves the stream usable.
func TestGPUGraphCaptureAndReplay(t *testing.T) {
	d := gpu(t)
	f := function(t, testModule(t, d), "saxpy")
	const n = 4099
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	got := make([]float32, n)
	check := func(x *Exec, y DevPtr, want float32, when string) error {
		if err := x.CopyDtoH(Ptr(got), y, SizeOf(got)); err != nil {
			return err
		}
		for i, v := range got {
			if v != want {
				return fmt.Errorf("%s: y[%d] = %v, want %v", when, i, v, want)
			}
		}
		return nil
	}
	err := d.Do(func(x *Exec) error {
		s, err := x.NewStream()
		if err != nil {
			return err
		}
		defer x.DestroyStream(s)
		dx, err := x.Alloc(SizeOf(ones))
		if err != nil {
			return err
		}
		defer x.Free(dx)
		dy, err := x.Alloc(SizeOf(ones))
		if err != nil {
			return err
		}
		defer x.Free(dy)
		if err := x.CopyHtoD(dx, Ptr(ones), SizeOf(ones)); err != nil {
			return err
		}
		if err := x.MemsetD32(dy, 0, n); err != nil {
			return err
		}
		launch3 := func() error {
			for i := 0; i < 3; i++ {
				if err := x.Launch(f, Dim3{X: (n + 255) / 256}, Dim3{X: 256}, 0, s, dy, dx, float32(1), int32(n)); err != nil {
					return err
				}
			}
			return nil
		}
		g, err := x.Capture(s, launch3)
		if err != nil {
			return fmt.Errorf("Capture: %w", err)
		}
		defer x.DestroyGraph(g)
		if err := x.StreamSync(s); err != nil {
			return err
		}
		if err := check(x, dy, 0, "after capture"); err != nil {
			return err
		}
		for i := 0; i < 2; i++ {
			if err := x.LaunchGraph(g, s); err != nil {
				return err
			}
		}
		if err := x.StreamSync(s); err != nil {
			return err
		}
		if err := check(x, dy, 6, "after two replays of three launches"); err != nil {
			return err
		}

		boom := errors.New("boom")
		if _, err := x.Capture(s, func() error { return boom }); !errors.Is(err, boom) {
			return fmt.Errorf("Capture of failing work: err = %v, want it to wrap %v", err, boom)
		}
		if _, err := x.Capture(s, func() error { return x.CopyHtoD(dx, Ptr(ones), SizeOf(ones)) }); err == nil {
			return fmt.Errorf("Capture of a synchronous copy succeeded")
		} else {
			t.Logf("Capture of a synchronous copy: %v", err)
		}
		if _, err := x.Capture(0, launch3); err == nil || !strings.Contains(err.Error(), "legacy default stream") {
			return fmt.Errorf("Capture on stream 0: err = %v", err)
		}
		// The stream still takes ordinary work after the refused captures.
		if err := launch3(); err != nil {
			return fmt.Errorf("launch after refused captures: %w", err)
		}
		if err := x.StreamSync(s); err != nil {
			return err
		}
		return check(x, dy, 9, "after three more launches")
	})
	if err != nil {
		t.Fatal(err)
	}
}
