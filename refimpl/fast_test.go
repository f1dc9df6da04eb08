package refimpl

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/imagetest"
)

// BenchmarkFast times cpu-fast on 2048x2048 images of each element type
// (float32, uint8, int16) with the Zero border: dense filters of random
// weights (the 2-D path) and Gaussians (the separable path), on each
// path of loops this CPU runs. Its names are path/type/filter, so -bench
// 'Fast/vector512/u8/gauss' picks a few.
func BenchmarkFast(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
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
	types := []struct {
		name string
		t    convolve.ElemType
	}{{"f32", convolve.Float32}, {"u8", convolve.Uint8}, {"i16", convolve.Int16}}
	for _, path := range FastPaths[1:] {
		if !path.Available() {
			continue
		}
		for _, typ := range types {
			g := convolve.Geometry{Width: 2048, Height: 2048, Channels: 1, Type: typ.t}
			in := imagetest.Random(r, g, imagetest.NonZero)
			for _, f := range filters {
				b.Run(path.String()+"/"+typ.name+"/"+f.Name, func(b *testing.B) {
					benchmarkFast(b, path, convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: convolve.Zero}, in)
				})
			}
		}
	}
}

// benchmarkFast times cpu-fast's path on problem p and its input in.
func benchmarkFast(b *testing.B, path FastPath, p convolve.Problem, in *convolve.Image) {
	plan, err := fast{path: path}.Plan(p, convolve.Config{})
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
}

// TestFastWorkersAtRun checks that cpu-fast runs on as many goroutines as
// GOMAXPROCS allows when it runs, not when it was planned: a plan made
// under GOMAXPROCS 1 and run under 2 uses both, and its output is still
// right.
func TestFastWorkersAtRun(t *testing.T) {
	g := convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}
	in := imagetest.Random(rand.New(rand.NewPCG(5, 6)), g, imagetest.NonZero)
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

// TestFastRunFLOPs checks cpu-fast's count of the operations it executed
// on images of one chunk (10 rows: KH-1 extra row-pass rows, once): all
// KW*KH taps of a dense filter, KW+KH of a separable one plus the row
// pass over the KH-1 rows beyond the image, no zero weights on finite
// data, no rows the Zero border puts outside.
func TestFastRunFLOPs(t *testing.T) {
	const w, h = 37, 10
	dense := newFilter("dense5x3", 5, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, -15)
	tests := []struct {
		name   string
		f      *convolve.Filter
		border convolve.Border
		madds  int // multiply-adds of the whole image
	}{
		{"dense replicate", dense, convolve.Replicate, 15 * w * h},
		{"dense zero", dense, convolve.Zero, 15*w*h - 5*w*2}, // one filter row outside at the top and at the bottom
		{"laplacian, zero weights skipped", convolve.Laplacian(), convolve.Replicate, 5 * w * h},
		{"gaussian7 separable", mustFilter(convolve.Gaussian(7, 0)), convolve.Replicate, 7*w*(h+6) + 7*w*h},
		{"gaussian7 separable zero", mustFilter(convolve.Gaussian(7, 0)), convolve.Zero, 7*w*h + (7*w*h - w*(3+2+1)*2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := convolve.Geometry{Width: w, Height: h, Channels: 1, Type: convolve.Float32}
			in := imagetest.Random(rand.New(rand.NewPCG(7, 7)), g, imagetest.NonZero)
			p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: tt.f, Border: tt.border}
			plan, err := fast{}.Plan(p, convolve.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			fp := plan.(*fastPlan)
			if got := fp.RunFLOPs(); got != 0 {
				t.Errorf("before Run: %d FLOPs, want 0", got)
			}
			out, _ := p.NewOutput()
			for range 2 { // the count is the last Run's, not a total
				if err := plan.Run(in, out); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := fp.RunFLOPs(), int64(2*tt.madds); got != want {
				t.Errorf("RunFLOPs = %d, want %d (nominal 2*KW*KH count %v)", got, want, convolve.ThroughputOf(p).Flops())
			}
		})
	}
}
