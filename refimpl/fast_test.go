package refimpl

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// BenchmarkFast times cpu-fast on 2048x2048 float32 images with the Zero
// border: dense filters of random weights (the 2-D path) and Gaussians
// (the separable path).
func BenchmarkFast(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	g := convolve.Geometry{Width: 2048, Height: 2048, Channels: 1, Type: convolve.Float32}
	in := randomImage(r, g)
	var filters []*convolve.Filter
	for _, k := range []int{3, 7, 21} {
		w := make([]float32, k*k)
		for i := range w {
			w[i] = r.Float32()*2 - 1
		}
		filters = append(filters, newFilter(fmt.Sprintf("dense%d", k), k, k, w...))
	}
	for _, k := range []int{3, 7, 21} {
		filters = append(filters, mustFilter(convolve.Gaussian(k, 0)))
	}
	for _, f := range filters {
		b.Run(f.Name, func(b *testing.B) {
			p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: convolve.Zero}
			plan, err := fast{}.Plan(p, convolve.Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer plan.Close()
			out, err := p.NewOutput()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := plan.Run(in, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFastWorkersAtRun checks that cpu-fast runs on as many goroutines as
// GOMAXPROCS allows when it runs, not when it was planned: a plan made
// under GOMAXPROCS 1 and run under 2 uses both, and its output is still
// right.
func TestFastWorkersAtRun(t *testing.T) {
	g := convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}
	in := randomImage(rand.New(rand.NewPCG(5, 6)), g)
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: convolve.SobelX(), Border: convolve.Zero}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	plan, err := fast{}.Plan(p, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	runtime.GOMAXPROCS(2)
	out, _ := p.NewOutput()
	if err := plan.Run(in, out); err != nil {
		t.Fatal(err)
	}
	if n := len(plan.(*fastPlan).workers); n < 2 {
		t.Errorf("planned under GOMAXPROCS 1, run under 2: %d goroutine scratch spaces, want 2", n)
	}
	ref, tol, err := Expect(p, in)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := convolve.Compare(out, ref, tol); !m.OK() {
		t.Errorf("%v: %v", p, m)
	}
}
