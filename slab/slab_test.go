package slab

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/imagetest"
	_ "github.com/convbench/convbench/refimpl"
)

// lookup returns a registered variant or fails the test.
func lookup(t testing.TB, name string) convolve.Variant {
	t.Helper()
	v, err := convolve.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// shape is the element type, channels, layout and row padding of a case.
type shape struct {
	typ      convolve.ElemType
	channels int
	layout   convolve.Layout
	pad      int
}

var shapes = []shape{
	{convolve.Uint8, 1, convolve.Interleaved, 0},
	{convolve.Int16, 3, convolve.Interleaved, 2},
	{convolve.Float32, 2, convolve.Planar, 1},
	{convolve.Float32, 1, convolve.Interleaved, 3},
	{convolve.Uint8, 4, convolve.Planar, 0},
	{convolve.Int16, 1, convolve.Planar, 0},
}

// drawFilter returns a kw x kh filter of random weights, separable when
// sep, so that cpu-fast takes its two-pass path.
func drawFilter(r *rand.Rand, kw, kh int, sep bool) *convolve.Filter {
	if sep {
		return imagetest.SeparableFilter(r, kw, kh)
	}
	return imagetest.RandomFilter(r, kw, kh)
}

// run plans v for p, runs it on in into a poisoned output and returns the
// output.
func run(v convolve.Variant, p convolve.Problem, in *convolve.Image) (*convolve.Image, error) {
	pl, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		return nil, err
	}
	defer pl.Close()
	out, err := p.NewOutput()
	if err != nil {
		return nil, err
	}
	imagetest.Poison(out)
	if err := pl.Run(in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// equalsInner checks that wrapped gives inner's output bit for bit on p
// with random input drawn from r.
func equalsInner(t *testing.T, r *rand.Rand, inner, wrapped convolve.Variant, p convolve.Problem) error {
	t.Helper()
	in := imagetest.Random(r, p.Input, imagetest.NonFinite)
	want, err := run(inner, p, in)
	if err != nil {
		return fmt.Errorf("%s: %v", inner.Describe().Name, err)
	}
	got, err := run(wrapped, p, in)
	if err != nil {
		return fmt.Errorf("%s: %v", wrapped.Describe().Name, err)
	}
	if err := imagetest.BitDiff(got, want); err != nil {
		return fmt.Errorf("%s vs %s: %v", wrapped.Describe().Name, inner.Describe().Name, err)
	}
	return nil
}

// problems returns the Filter2D problems of the table: every border,
// heights from 1 to 13 rows and filter heights from 1 to 11, so that slab
// edges fall on halo rows, slabs are shorter than the filter and images
// have fewer rows than slabs; element types, channels, layouts and row
// padding cycle through shapes.
func problems(r *rand.Rand) []convolve.Problem {
	var ps []convolve.Problem
	i := 0
	for _, b := range convolve.Borders {
		for _, h := range []int{1, 2, 3, 7, 13} {
			for _, kh := range []int{1, 3, 5, 9, 11} {
				s := shapes[i%len(shapes)]
				kw := []int{3, 1, 5}[i%3]
				w := 5 + i%4
				g := convolve.Geometry{Width: w, Height: h, Channels: s.channels, Type: s.typ, Layout: s.layout}
				if s.pad > 0 {
					g.Stride = g.RowElems() + s.pad
				}
				ps = append(ps, convolve.Problem{
					Op: convolve.Filter2D, Input: g, Border: b, Mode: convolve.Modes[i%2],
					Filter: drawFilter(r, kw, kh, i%4 == 0),
				})
				i++
			}
		}
	}
	return ps
}

// TestWrapEqualsInner: for cpu-naive and cpu-fast, 1 to 5 slabs give the
// wrapped variant's output bit for bit on every problem of the table.
func TestWrapEqualsInner(t *testing.T) {
	for _, name := range []string{"cpu-naive", "cpu-fast"} {
		inner := lookup(t, name)
		for n := 1; n <= 5; n++ {
			wrapped, err := Wrap(inner, n)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(wrapped.Describe().Name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), 0))
				for _, p := range problems(r) {
					if err := equalsInner(t, r, inner, wrapped, p); err != nil {
						t.Errorf("%v: %v", p, err)
					}
				}
			})
		}
	}
}

// TestWrapOtherOperations: the Sobel magnitude and RGB to YUV operations
// through slabs equal the wrapped variant's.
func TestWrapOtherOperations(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 0))
	for _, name := range []string{"cpu-naive", "cpu-fast"} {
		inner := lookup(t, name)
		for n := 1; n <= 5; n++ {
			wrapped, _ := Wrap(inner, n)
			for _, b := range convolve.Borders {
				for _, h := range []int{1, 2, 4, 9} {
					sobel := convolve.Problem{Op: convolve.SobelMagnitude, Border: b,
						Input: convolve.Geometry{Width: 6, Height: h, Channels: 2, Type: convolve.Float32, Layout: convolve.Planar}}
					yuv := convolve.Problem{Op: convolve.RGBToYUV, Border: b,
						Input: convolve.Geometry{Width: 5, Height: h, Channels: 3, Type: convolve.Uint8}}
					for _, p := range []convolve.Problem{sobel, yuv} {
						if err := equalsInner(t, r, inner, wrapped, p); err != nil {
							t.Errorf("%v: %v", p, err)
						}
					}
				}
			}
		}
	}
}

// TestStreamEqualsInner: streaming under limits that leave room for 1 to
// 4 output rows a slab gives the wrapped variant's output bit for bit.
func TestStreamEqualsInner(t *testing.T) {
	for _, name := range []string{"cpu-naive", "cpu-fast"} {
		inner := lookup(t, name)
		r := rand.New(rand.NewPCG(11, 0))
		for _, p := range problems(r) {
			for rows := 1; rows <= 4; rows++ {
				limit := streamLimit(p, rows)
				v, err := Stream(inner, limit)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := streamRows(p, limit); err != nil || got != min(rows, p.Input.Height) {
					t.Fatalf("%v: streamRows(%d) = %d, %v; want %d", p, limit, got, err, min(rows, p.Input.Height))
				}
				if err := equalsInner(t, r, inner, v, p); err != nil {
					t.Errorf("%v: %v", p, err)
				}
			}
		}
	}
}

// streamLimit is the limit under which a streaming slab of p holds rows
// output rows: two slabs' input and output buffers with all their halo
// rows.
func streamLimit(p convolve.Problem, rows int) int64 {
	_, kh := p.KernelSize()
	in, out := p.Input.Packed(), p.OutputGeometry()
	in.Height, out.Height = rows+kh-1, rows+kh-1
	return 2 * (imageBytes(in) + imageBytes(out))
}
