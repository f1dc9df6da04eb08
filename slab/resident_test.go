package slab

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/imagetest"
)

// TestResidentPassesEqualRepeatedRuns: three resident passes over 1 to 5
// slabs, each followed by the halo exchange, give three successive runs
// of the wrapped variant on the whole image bit for bit, under every
// border, for slabs shorter than the filter and images with fewer rows
// than slabs; Store before any pass gives the loaded image back.
func TestResidentPassesEqualRepeatedRuns(t *testing.T) {
	const passes = 3
	geoms := []convolve.Geometry{
		{Width: 6, Channels: 1},
		{Width: 5, Channels: 3, Stride: 17},
		{Width: 4, Channels: 2, Layout: convolve.Planar},
	}
	for _, name := range []string{"cpu-naive", "cpu-fast"} {
		inner := lookup(t, name)
		r := rand.New(rand.NewPCG(3, 0))
		i := 0
		for _, b := range convolve.Borders {
			for _, h := range []int{1, 2, 5, 13} {
				for _, kh := range []int{1, 3, 5, 9} {
					i++
					g := geoms[i%len(geoms)]
					g.Height, g.Type = h, convolve.Float32
					p := convolve.Problem{Op: convolve.Filter2D, Input: g, Border: b, Mode: convolve.Modes[i%2],
						Filter: drawFilter(r, []int{3, 1, 5}[i%3], kh, i%3 == 0)}
					in := imagetest.Random(r, g, imagetest.NonFinite)
					want := []*convolve.Image{in}
					for k := range passes {
						q := p
						if k > 0 {
							q.Input = g.Packed() // outputs have packed rows
						}
						out, err := run(inner, q, want[len(want)-1])
						if err != nil {
							t.Fatal(err)
						}
						want = append(want, out)
					}
					for n := 1; n <= 5; n++ {
						res, err := newResident(inner, p, n, convolve.Config{})
						if err != nil {
							t.Fatal(err)
						}
						if err := res.Load(in); err != nil {
							t.Fatal(err)
						}
						for k := 0; k <= passes; k++ {
							if k > 0 {
								if err := res.Pass(); err != nil {
									t.Fatal(err)
								}
							}
							got, _ := convolve.NewImage(g.Packed())
							imagetest.Poison(got)
							if err := res.Store(got); err != nil {
								t.Fatal(err)
							}
							w := want[k]
							if k == 0 {
								w, _ = convolve.NewImage(g.Packed())
								w.CopyFrom(in)
							}
							if err := imagetest.BitDiff(got, w); err != nil {
								t.Errorf("%s %v, %d slabs, after %d passes: %v", name, p, n, k, err)
							}
						}
						if err := res.Close(); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	}
}

// TestResidentErrors: a problem whose output cannot be its next input,
// calls out of order, a mismatched image and use after Close are
// refused.
func TestResidentErrors(t *testing.T) {
	naive := lookup(t, "cpu-naive")
	p := filterProblem(4, 6, 3, convolve.Wrap)
	u8 := p
	u8.Input.Type = convolve.Uint8
	if _, err := newResident(naive, u8, 2, convolve.Config{}); err == nil || !contains(err, "next pass") {
		t.Errorf("newResident of a u8 problem: %v, want a refusal naming the next pass", err)
	}
	if _, err := newResident(naive, p, 0, convolve.Config{}); err == nil {
		t.Error("NewResident in 0 slabs: no error")
	}
	res, err := newResident(naive, p, 2, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Pass(); err == nil || !contains(err, "before Load") {
		t.Errorf("Pass before Load: %v", err)
	}
	img, _ := convolve.NewImage(p.Input)
	if err := res.Store(img); err == nil || !contains(err, "before Load") {
		t.Errorf("Store before Load: %v", err)
	}
	wide := p.Input
	wide.Width++
	other, _ := convolve.NewImage(wide)
	if err := res.Load(other); err == nil || !contains(err, "does not match") {
		t.Errorf("Load of a wider image: %v", err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if err := res.Load(img); !errors.Is(err, convolve.ErrClosed) {
		t.Errorf("Load after Close: %v, want ErrClosed", err)
	}
	if err := res.Pass(); !errors.Is(err, convolve.ErrClosed) {
		t.Errorf("Pass after Close: %v, want ErrClosed", err)
	}
	if err := res.Close(); !errors.Is(err, convolve.ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
}
