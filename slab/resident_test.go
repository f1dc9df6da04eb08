package slab

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
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

// Resident is an image kept in slabs between repeated passes of one
// filter, as resident mode keeps it on the devices: Load fills every
// slab's input once, each Pass runs every slab's plan and then exchanges
// halo rows, sending each slab's new output rows to the slabs whose halos
// hold them (Partition.Copies), and Store assembles the current image.
// After k passes the image equals k successive runs of the wrapped
// variant on the whole image, bit for bit. The problem's output must be
// able to serve as its next input: a Float32 image whose output geometry
// is its packed input geometry. A Resident is not safe for concurrent
// use.
type Resident struct {
	sp     *slabPlan
	loaded bool
}

// newResident plans inner on n slabs of p's image for repeated passes.
func newResident(inner convolve.Variant, p convolve.Problem, n int, cfg convolve.Config) (*Resident, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if got := p.OutputGeometry(); got != p.Input.Packed() {
		return nil, fmt.Errorf("slab: resident passes of %v: its %v output cannot be the next pass's %v input", p, got, p.Input)
	}
	v, err := Wrap(inner, n)
	if err != nil {
		return nil, err
	}
	pl, err := convolve.PlanFor(v, p, cfg)
	if err != nil {
		return nil, err
	}
	return &Resident{sp: pl.(*slabPlan)}, nil
}

// Partition returns the slabs the image is kept in. The caller must not
// change it.
func (r *Resident) Partition() *Partition { return r.sp.pt }

// checkImage checks that im fits the problem's input geometry (any row
// stride) and that the Resident is open.
func (r *Resident) checkImage(what string, im *convolve.Image) error {
	if r.sp.closed {
		return fmt.Errorf("slab: resident %s: %w", r.sp.name, convolve.ErrClosed)
	}
	if err := im.Check(); err != nil {
		return fmt.Errorf("slab: resident %s: %s: %w", r.sp.name, what, err)
	}
	if im.Geometry.Packed() != r.sp.p.Input.Packed() {
		return fmt.Errorf("slab: resident %s: %s %v does not match the problem's %v", r.sp.name, what, im.Geometry, r.sp.p.Input)
	}
	return nil
}

// Load fills every slab's input, halo rows included, from in.
func (r *Resident) Load(in *convolve.Image) error {
	if err := r.checkImage("Load", in); err != nil {
		return err
	}
	if r.sp.finite {
		if err := convolve.CheckFiniteImage(in); err != nil {
			return convolve.NameVariant(r.sp.name, err)
		}
	}
	for i, s := range r.sp.pt.Slabs {
		r.sp.fill(s, r.sp.ins[i], in)
	}
	r.loaded = true
	return nil
}

// Pass filters the image once: every slab's plan runs on its input
// (concurrently), and then every slab's input, own rows and halo rows,
// is refilled from the outputs of the slabs that own them.
func (r *Resident) Pass() error {
	sp := r.sp
	if sp.closed {
		return fmt.Errorf("slab: resident %s: %w", sp.name, convolve.ErrClosed)
	}
	if !r.loaded {
		return fmt.Errorf("slab: resident %s: Pass before Load", sp.name)
	}
	ins := make([]*convolve.Image, len(sp.pt.Slabs))
	outs := make([]*convolve.Image, len(sp.pt.Slabs))
	errs := make([]error, len(sp.pt.Slabs))
	var wg sync.WaitGroup
	for i, s := range sp.pt.Slabs {
		sub := sp.pt.Problem(sp.p, s)
		ins[i], outs[i] = sp.ins[i].image(sub.Input), sp.outs[i].image(sub.OutputGeometry())
		wg.Go(func() {
			if err := sp.plans[i].Run(ins[i], outs[i]); err != nil {
				errs[i] = fmt.Errorf("slab: resident %s: slab %d (rows %d to %d): %w", sp.name, i, s.Y0, s.Y1-1, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// The slabs' inputs may now disagree; a new Load is needed.
		r.loaded = false
		return err
	}
	for i := range sp.pt.Slabs {
		for _, c := range sp.pt.Copies(i) {
			from := sp.pt.Slabs[c.From]
			for k := range c.Rows {
				copyRow(ins[i], c.Dst+k, outs[c.From], c.Src+k-from.In0)
			}
		}
	}
	if sp.finite {
		// The next pass's input is this pass's output: a FiniteInput
		// variant must not be given an infinity it produced.
		for i, s := range sp.pt.Slabs {
			if err := convolve.CheckFiniteImage(ins[i]); err != nil {
				r.loaded = false
				return fmt.Errorf("slab: resident %s: slab %d (rows %d to %d) after the pass: %w", sp.name, i, s.Y0, s.Y1-1, convolve.NameVariant(sp.name, err))
			}
		}
	}
	return nil
}

// Store writes the current image, the loaded one or the output of the
// last pass, into out.
func (r *Resident) Store(out *convolve.Image) error {
	if err := r.checkImage("Store", out); err != nil {
		return err
	}
	if !r.loaded {
		return fmt.Errorf("slab: resident %s: Store before Load", r.sp.name)
	}
	for i, s := range r.sp.pt.Slabs {
		in := r.sp.ins[i].image(r.sp.pt.Problem(r.sp.p, s).Input)
		for y := s.Y0; y < s.Y1; y++ {
			copyRow(out, y, in, y-s.In0)
		}
	}
	return nil
}

// Close closes the slabs' plans; a second Close returns an error wrapping
// convolve.ErrClosed.
func (r *Resident) Close() error { return r.sp.Close() }
