package variants

import (
	"fmt"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// TestNPPImpulse runs npp on an impulse image with an asymmetric 3x5
// filter and logs the response next to the expected one, so a wrong
// coefficient order or anchor shows as a visible shift or mirror.
func TestNPPImpulse(t *testing.T) {
	nppOrSkip(t)
	v, err := convolve.Lookup("npp")
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float32, 15)
	for i := range w {
		w[i] = float32(i + 1)
	}
	f, err := convolve.NewFilter("ramp3x5", 3, 5, w)
	if err != nil {
		t.Fatal(err)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 9, Height: 9, Channels: 1, Type: convolve.Float32}, Filter: f, Border: convolve.Zero}
	in, _ := convolve.NewImage(p.Input)
	in.Set(4, 4, 0, 1)
	plan, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	out := poisoned(t, p)
	if err := plan.Run(in, out); err != nil {
		t.Fatal(err)
	}
	ref, _ := convolve.NewImage(p.OutputGeometry())
	for y := 0; y < 9; y++ {
		for x := 0; x < 9; x++ {
			// correlate: out(x,y) = sum w(i,j) in(x+i-1, y+j-2); impulse at (4,4)
			i, j := 4-x+1, 4-y+2
			if i >= 0 && i < 3 && j >= 0 && j < 5 {
				ref.Set(x, y, 0, float64(f.At(i, j)))
			}
		}
	}
	grid := func(im *convolve.Image) string {
		var b strings.Builder
		for y := 0; y < 9; y++ {
			for x := 0; x < 9; x++ {
				fmt.Fprintf(&b, "%4g", im.At(x, y, 0))
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	if m, _ := convolve.Compare(out, ref, nil); !m.OK() {
		t.Errorf("npp impulse response differs: %v\ngot:\n%swant:\n%s", m, grid(out), grid(ref))
	}
}
