package refimpl

import (
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/imagetest"
)

// planOf plans p on the named variant through PlanFor.
func planOf(t *testing.T, name string, p convolve.Problem) convolve.Plan {
	t.Helper()
	v, err := convolve.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		t.Fatalf("%s: plan %v: %v", name, p, err)
	}
	return pl
}

// TestNonFiniteIEEE: with NaN and infinite pixels and weights every CPU
// variant gives the reference's class at every element (IEEE arithmetic
// over every tap: 0 x Inf = NaN, and a Zero-border tap outside the image
// is a term w*0), and the finite elements stay within tolerance.
func TestNonFiniteIEEE(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	g := convolve.Geometry{Width: 9, Height: 7, Channels: 1}
	// A separable filter with zero weights (the centre column), so that
	// cpu-fast takes its separable path with zero factors.
	sobel := convolve.SobelX()
	// Zero weights beside a full-rank pattern: the 2-D path.
	laplace := convolve.Laplacian()
	infW := laplace.Clone()
	infW.Weights[0] = inf // a corner: outside the image near the edges
	nanW := sobel.Clone()
	nanW.Weights[8] = nan
	pixels := func(vals map[[2]int]float32) *convolve.Image {
		im, _ := convolve.NewImage(g)
		for i := range im.F32 {
			im.F32[i] = float32(i%5) - 1.5
		}
		for xy, v := range vals {
			im.F32[im.Offset(xy[0], xy[1], 0)] = v
		}
		return im
	}
	inputs := map[string]*convolve.Image{
		"finite":                pixels(nil),
		"+Inf under a zero tap": pixels(map[[2]int]float32{{4, 3}: inf}),
		"NaN":                   pixels(map[[2]int]float32{{0, 0}: nan}),
		"+Inf and -Inf":         pixels(map[[2]int]float32{{2, 2}: inf, {3, 2}: -inf}),
		"-Inf in a corner":      pixels(map[[2]int]float32{{8, 6}: -inf}),
	}
	for _, f := range []*convolve.Filter{sobel, laplace, infW, nanW} {
		for name, in := range inputs {
			for _, b := range convolve.Borders {
				for _, op := range []convolve.Operation{convolve.Filter2D, convolve.SobelMagnitude} {
					p := convolve.Problem{Op: op, Input: g, Filter: f, Border: b}
					ref, tol, err := Expect(p, in)
					if err != nil {
						t.Fatal(err)
					}
					for _, vn := range variantNames {
						out := runVariant(t, vn, p, in)
						m, err := convolve.Compare(out, ref, tol)
						if err != nil {
							t.Fatal(err)
						}
						if !m.OK() {
							t.Errorf("%s on %s input, %v: %v", vn, name, p, m)
						}
					}
				}
			}
		}
	}
	// The reference itself: 0 x Inf is NaN, and an infinite weight on a
	// Zero-border tap outside the image makes NaN.
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: sobel}
	ref, _, _ := Expect(p, inputs["+Inf under a zero tap"])
	if v := ref.At(4, 3, 0); !math.IsNaN(v) {
		t.Errorf("SobelX (zero centre column) on +Inf: %v, want NaN", v)
	}
	p.Filter = infW
	ref, _, _ = Expect(p, inputs["finite"])
	if v := ref.At(0, 0, 0); !math.IsNaN(v) {
		t.Errorf("infinite weight on an outside Zero-border tap: %v, want NaN", v)
	}
}

// TestRunInPlaceRefused: an output whose data overlaps the input's in any
// way, capacity-capped slices and views of another element type included,
// is refused with convolve.ErrOverlap by every CPU plan, and the output is
// left alone.
func TestRunInPlaceRefused(t *testing.T) {
	g := convolve.Geometry{Width: 6, Height: 5, Channels: 1}
	n := g.Len()
	buf := make([]float32, 2*n+1)
	for i := range buf {
		buf[i] = float32(i % 7)
	}
	wrapF := func(d []float32) *convolve.Image {
		im, err := convolve.WrapFloat32(g, d)
		if err != nil {
			t.Fatal(err)
		}
		return im
	}
	u8g := g
	u8g.Type = convolve.Uint8
	bytesOf := unsafe.Slice((*uint8)(unsafe.Pointer(&buf[0])), 4*len(buf))
	inU8, err := convolve.WrapUint8(u8g, bytesOf[4*n-2:5*n-2:5*n-2])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		p       convolve.Problem
		in, out *convolve.Image
	}{
		{"capacity-capped, one element apart", convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: mustFilter(convolve.Box(3))},
			wrapF(buf[0:n:n]), wrapF(buf[1 : n+1 : n+1])},
		{"same slice", convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: mustFilter(convolve.Box(3))},
			wrapF(buf[:n]), wrapF(buf[:n])},
		{"uint8 input over the output's last element", convolve.Problem{Op: convolve.SobelMagnitude, Input: u8g},
			inU8, wrapF(buf[0:n:n])},
	}
	for _, tc := range cases {
		for _, vn := range variantNames {
			pl := planOf(t, vn, tc.p)
			before := append([]float32(nil), buf...)
			err := pl.Run(tc.in, tc.out)
			if !errors.Is(err, convolve.ErrOverlap) {
				t.Errorf("%s, %s: Run = %v, want convolve.ErrOverlap", vn, tc.name, err)
			}
			for i := range buf {
				if math.Float32bits(buf[i]) != math.Float32bits(before[i]) {
					t.Errorf("%s, %s: the refused run changed element %d", vn, tc.name, i)
					break
				}
			}
			pl.Close()
		}
	}
}

// TestPlanSnapshotsFilter: changing the filter's weights after planning
// does not change what Run computes, on every CPU variant and mode.
func TestPlanSnapshotsFilter(t *testing.T) {
	g := convolve.Geometry{Width: 11, Height: 9, Channels: 2}
	in, _ := convolve.NewImage(g)
	for i := range in.F32 {
		in.F32[i] = float32((i*7)%13) - 6
	}
	for _, m := range convolve.Modes {
		for _, vn := range variantNames {
			f := mustFilter(convolve.Gaussian(5, 1.2))
			p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Mode: m}
			want := runVariant(t, vn, p, in)
			pl := planOf(t, vn, p)
			for i := range f.Weights {
				f.Weights[i] = float32(i) - 3
			}
			f.Name = "changed"
			out, _ := p.NewOutput()
			if err := pl.Run(in, out); err != nil {
				t.Fatal(err)
			}
			pl.Close()
			if imagetest.BitDiff(out, want) != nil {
				t.Errorf("%s %v: Run after the filter changed differs from the output planned for", vn, m)
			}
		}
	}
}

// TestClosedPlan: Run after Close and a second Close are errors wrapping
// convolve.ErrClosed on every CPU plan, never panics.
func TestClosedPlan(t *testing.T) {
	g := convolve.Geometry{Width: 4, Height: 3, Channels: 3, Type: convolve.Uint8}
	for _, op := range convolve.Operations {
		p := convolve.Problem{Op: op, Input: g, Filter: mustFilter(convolve.Box(3))}
		in, _ := convolve.NewImage(g)
		for _, vn := range variantNames {
			pl := planOf(t, vn, p)
			out, _ := p.NewOutput()
			if err := pl.Run(in, out); err != nil {
				t.Fatalf("%s %v: %v", vn, op, err)
			}
			if err := pl.Close(); err != nil {
				t.Errorf("%s %v: first Close: %v", vn, op, err)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s %v: panic after Close: %v", vn, op, r)
					}
				}()
				if err := pl.Run(in, out); !errors.Is(err, convolve.ErrClosed) {
					t.Errorf("%s %v: Run after Close = %v, want convolve.ErrClosed", vn, op, err)
				}
				if err := pl.Close(); !errors.Is(err, convolve.ErrClosed) {
					t.Errorf("%s %v: second Close = %v, want convolve.ErrClosed", vn, op, err)
				}
			}()
		}
	}
}

// TestPlanHostMemory: a plan whose own buffers the host cannot hold is
// refused with a *convolve.MemoryError naming the bytes needed and
// available, before anything is allocated. The test lowers the Go memory
// limit (as GOMEMLIMIT would) to 64 MiB over what the runtime already
// holds, so that the 16384 x 16384 float32 plane of cpu-naive (1 GiB) and
// the float64 output and tolerance of the reference (4 GiB) cannot fit on
// any host, while cpu-fast, which keeps a few rows per goroutine, still
// plans. No image of that size is made: planning needs only the problem.
func TestPlanHostMemory(t *testing.T) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	old := debug.SetMemoryLimit(int64(ms.Sys) + 64<<20)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })

	big := convolve.Geometry{Width: 1 << 14, Height: 1 << 14, Channels: 1}
	for _, op := range []convolve.Operation{convolve.Filter2D, convolve.SobelMagnitude} {
		p := convolve.Problem{Op: op, Input: big, Filter: mustFilter(convolve.Box(3))}
		if err := p.Validate(); err != nil {
			t.Fatalf("%v %dx%d: %v", op, big.Width, big.Height, err)
		}
		for _, tc := range []struct {
			variant string
			refused bool
		}{{"reference", true}, {"cpu-naive", true}, {"cpu-fast", false}} {
			v, err := convolve.Lookup(tc.variant)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := convolve.PlanFor(v, p, convolve.Config{})
			if pl != nil {
				pl.Close()
			}
			if !tc.refused {
				if err != nil {
					t.Errorf("%s %v: plan: %v, want a plan (its buffers are a few rows)", tc.variant, op, err)
				}
				continue
			}
			var me *convolve.MemoryError
			if !errors.As(err, &me) || me.Variant != tc.variant || me.Needed <= me.Available || me.Memory != "host" {
				t.Errorf("%s %v: plan %v, error %v; want a *convolve.MemoryError", tc.variant, op, pl != nil, err)
				continue
			}
			if s := err.Error(); !strings.Contains(s, "bytes of host memory") || !strings.Contains(s, "available") {
				t.Errorf("%s: message %q does not name the bytes needed and available", tc.variant, s)
			}
		}
	}
	if _, _, err := Expect(convolve.Problem{Op: convolve.Filter2D, Input: big, Filter: mustFilter(convolve.Box(3))}, nil); !errors.As(err, new(*convolve.MemoryError)) {
		t.Errorf("Expect of a %dx%d problem under a 64 MiB limit: %v, want a *convolve.MemoryError", big.Width, big.Height, err)
	}
}
