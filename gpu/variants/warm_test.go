package variants

import (
	"errors"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

func TestWarm(t *testing.T) {
	g := convolve.Geometry{Width: 300, Height: 200, Channels: 1, Type: convolve.Float32}
	box, err := convolve.Box(5)
	if err != nil {
		t.Fatal(err)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: box, Border: convolve.Replicate}
	naive, err := convolve.Lookup("gpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := convolve.Lookup("gpu-shared")
	if err != nil {
		t.Fatal(err)
	}
	cpu := &Variant{Desc: convolve.Description{Name: "not-gpu"}} // Caps.GPU false: skipped
	specs := []WarmSpec{{Variant: cpu, Problem: p}, {Variant: naive, Problem: p}, {Variant: shared, Problem: p},
		{Variant: naive, Problem: p, Config: convolve.Config{Block: convolve.Block{X: 2048, Y: 1}}}} // refused: too many threads
	if st, err := Warm(specs[:1], 4, nil); err != nil || st != (WarmStats{}) {
		t.Errorf("CPU specs only: %+v, %v; want nothing done", st, err)
	}
	calls := 0
	st, err := Warm(specs, 4, func(done, total int) {
		calls++
		if total != 3 || done < 1 || done > total {
			t.Errorf("progress(%d, %d), want done in 1..3 of 3", done, total)
		}
	})
	var ue *cudabind.UnavailableError
	if errors.As(err, &ue) {
		if st.Planned != 0 {
			t.Errorf("no GPU: %+v planned", st)
		}
		t.Skipf("the rest needs a GPU: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Planned != 2 || st.Failed != 1 || calls != 3 {
		t.Errorf("Warm: %+v after %d progress calls, want 2 planned, 1 refused, 3 calls", st, calls)
	}
}
