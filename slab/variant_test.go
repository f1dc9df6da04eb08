package slab

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/convbench/convbench/convolve"
)

// variant runs a wrapped variant on the slabs of a Partition.
type variant struct {
	inner convolve.Variant
	// slabs is the slab count of the in-memory mode; 0 in streaming mode.
	slabs int
	// limit is the byte limit of one slab's buffers in streaming mode.
	limit int64
	// shortBelow takes that many rows off every halo below a slab that
	// has one. It is 0 except in the package's tests, which use it to
	// check that a wrong halo is caught.
	shortBelow int
}

// Wrap returns the variant "slab<n>-<inner>": inner run on n horizontal
// slabs of the image (Divide), each with its own plan of inner, all
// slabs' plans prepared at plan time and run concurrently, the output
// assembled in place. Its capabilities are inner's (ReferenceOrder
// included: every output element is the same sum of the same terms), and
// its output equals inner's bit for bit.
func Wrap(inner convolve.Variant, n int) (convolve.Variant, error) {
	if inner == nil {
		return nil, errors.New("slab: Wrap of a nil variant")
	}
	if n < 1 {
		return nil, fmt.Errorf("slab: Wrap of %s in %d slabs: need at least 1", inner.Describe().Name, n)
	}
	return &variant{inner: inner, slabs: n}, nil
}

// Stream returns the variant "stream<limit>-<inner>": inner run on the
// slabs of the image one after the other, each slab as tall as lets two
// slabs' buffers fit in limit bytes (streamRows), through two pairs of
// input and output buffers that the slabs take in turn: the next slab's
// input is filled while the current slab runs (double buffering). It is the mode for images larger than the
// memory at hand; its output equals inner's, and so Wrap's, bit for bit.
func Stream(inner convolve.Variant, limit int64) (convolve.Variant, error) {
	if inner == nil {
		return nil, errors.New("slab: Stream of a nil variant")
	}
	if limit < 1 {
		return nil, fmt.Errorf("slab: Stream of %s under %d bytes: the limit must be positive", inner.Describe().Name, limit)
	}
	return &variant{inner: inner, limit: limit}, nil
}

func (v *variant) Describe() convolve.Description {
	d := v.inner.Describe()
	caps := d.Caps.Clone()
	if v.slabs > 0 {
		return convolve.Description{
			Name:    fmt.Sprintf("slab%d-%s", v.slabs, d.Name),
			Summary: fmt.Sprintf("%s on %d row slabs with halos, run concurrently, output assembled in place", d.Name, v.slabs),
			Report:  "004",
			Caps:    caps,
		}
	}
	return convolve.Description{
		Name:    fmt.Sprintf("stream%s-%s", FormatBytes(v.limit), d.Name),
		Summary: fmt.Sprintf("%s on row slabs with halos, one after the other, each slab's buffers within %d bytes", d.Name, v.limit),
		Report:  "004",
		Caps:    caps,
	}
}

// streamRows returns the most output rows a slab of p may have in
// streaming mode under limit bytes: two slabs' input and output buffers,
// halo rows included, fit in it (one slab is filled while the other
// runs). It is at most the image's height, and a *convolve.MemoryError
// when not even one row fits.
func streamRows(p convolve.Problem, limit int64) (int, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	above, below := halo(p)
	in, out := p.Input.Packed(), p.OutputGeometry()
	in.Height, out.Height = 1, 1
	perRow := imageBytes(in) + imageBytes(out)
	rows := limit/2/perRow - int64(above+below)
	if rows < 1 {
		return 0, &convolve.MemoryError{
			Memory:    "host",
			What:      fmt.Sprintf("two slab buffers of 1 row and %d halo rows of %v", above+below, p),
			Needed:    convolve.MulBytes(2, perRow, int64(1+above+below)),
			Available: limit,
		}
	}
	return int(min(rows, int64(p.Input.Height))), nil
}

// Plan checks p and cfg against the wrapped variant's capabilities,
// divides the image and plans the wrapped variant for every slab height.
func (v *variant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	d := v.Describe()
	err := d.Caps.Check(p)
	if err == nil {
		err = d.Caps.CheckConfig(cfg)
	}
	if err != nil {
		return nil, convolve.NameVariant(d.Name, err)
	}
	var pt *Partition
	if v.slabs > 0 {
		pt, err = Divide(p, v.slabs)
	} else {
		var rows int
		if rows, err = streamRows(p, v.limit); err == nil {
			pt, err = DivideRows(p, rows)
		}
	}
	if err != nil {
		return nil, convolve.NameVariant(d.Name, err)
	}
	for i := range pt.Slabs {
		s := &pt.Slabs[i]
		if s.In1 > s.Y1 {
			s.In1 = max(s.Y1, s.In1-v.shortBelow)
		}
	}
	sp := &slabPlan{name: d.Name, p: p, pt: pt, finite: d.Caps.FiniteInput, stream: v.slabs == 0}
	if err := sp.prepare(v.inner, cfg); err != nil {
		sp.closeInner()
		return nil, convolve.NameVariant(d.Name, err)
	}
	return sp, nil
}

// slabPlan is a plan of the slab variants.
type slabPlan struct {
	name   string
	p      convolve.Problem
	pt     *Partition
	finite bool // the wrapped variant refuses non-finite input
	stream bool
	// In memory: plans[i], ins[i] and outs[i] serve slab i. Streaming:
	// plans[i] serves the slabs of heights[i] input rows, and the slabs
	// take turns with the two buffer pairs ins[0], outs[0] and ins[1],
	// outs[1].
	plans     []convolve.Plan
	heights   []int
	ins, outs []buffer
	closed    bool
}

// prepare plans inner for the slabs and allocates their buffers, after
// checking that the host has the memory for them.
func (sp *slabPlan) prepare(inner convolve.Variant, cfg convolve.Config) error {
	var need int64
	tallest := 0
	for _, s := range sp.pt.Slabs {
		sub := sp.pt.Problem(sp.p, s)
		need += imageBytes(sub.Input) + imageBytes(sub.OutputGeometry())
		tallest = max(tallest, s.InputRows())
	}
	if sp.stream {
		sub := sp.pt.Problem(sp.p, Slab{In1: tallest})
		need = 2 * (imageBytes(sub.Input) + imageBytes(sub.OutputGeometry()))
	}
	if err := convolve.CheckHostMemory("slab buffers of "+sp.p.String(), need); err != nil {
		return err
	}
	for i, s := range sp.pt.Slabs {
		if sp.stream && slices.Contains(sp.heights, s.InputRows()) {
			continue
		}
		sub := sp.pt.Problem(sp.p, s)
		ip, err := convolve.PlanFor(inner, sub, cfg)
		if err != nil {
			return fmt.Errorf("slab: %s: slab %d (rows %d to %d): %w", sp.name, i, s.Y0, s.Y1-1, err)
		}
		sp.plans = append(sp.plans, ip)
		sp.heights = append(sp.heights, s.InputRows())
		if !sp.stream {
			sp.ins = append(sp.ins, newBuffer(sub.Input))
			sp.outs = append(sp.outs, newBuffer(sub.OutputGeometry()))
		}
	}
	if sp.stream {
		sub := sp.pt.Problem(sp.p, Slab{In1: tallest})
		for range 2 {
			sp.ins = append(sp.ins, newBuffer(sub.Input))
			sp.outs = append(sp.outs, newBuffer(sub.OutputGeometry()))
		}
	}
	return nil
}

// Partitioned is implemented by the plans of the family: the partition
// of the image a plan runs. The caller must not change it.
type Partitioned interface {
	Partition() *Partition
}

// Partition returns the slabs the plan runs.
func (sp *slabPlan) Partition() *Partition { return sp.pt }

// Run fills every slab's input from in, runs the wrapped plans and copies
// each slab's output rows into out. In memory the slabs run concurrently,
// streaming one after the other.
func (sp *slabPlan) Run(in, out *convolve.Image) error {
	if sp.closed {
		return fmt.Errorf("slab: %s: %w", sp.name, convolve.ErrClosed)
	}
	if err := sp.p.CheckRun(sp.name, in, out, sp.finite); err != nil {
		return err
	}
	if sp.stream {
		return sp.runStream(in, out)
	}
	errs := make([]error, len(sp.pt.Slabs))
	var wg sync.WaitGroup
	for i, s := range sp.pt.Slabs {
		wg.Go(func() { errs[i] = sp.runSlab(i, s, sp.plans[i], sp.ins[i], sp.outs[i], in, out) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runSlab computes the output rows of slab i with plan ip through the
// buffers bin and bout.
func (sp *slabPlan) runSlab(i int, s Slab, ip convolve.Plan, bin, bout buffer, in, out *convolve.Image) error {
	sp.fill(s, bin, in)
	return sp.compute(i, s, ip, bin, bout, out)
}

// fill copies slab s's input rows from in into bin.
func (sp *slabPlan) fill(s Slab, bin buffer, in *convolve.Image) {
	sin := bin.image(sp.pt.Problem(sp.p, s).Input)
	for r := range s.InputRows() {
		copyRow(sin, r, in, sp.pt.Source(s, r))
	}
}

// compute runs plan ip on slab i's input in bin into bout and copies the
// slab's output rows into out.
func (sp *slabPlan) compute(i int, s Slab, ip convolve.Plan, bin, bout buffer, out *convolve.Image) error {
	sub := sp.pt.Problem(sp.p, s)
	sin, sout := bin.image(sub.Input), bout.image(sub.OutputGeometry())
	if err := ip.Run(sin, sout); err != nil {
		return fmt.Errorf("slab: %s: slab %d (rows %d to %d): %w", sp.name, i, s.Y0, s.Y1-1, err)
	}
	for y := s.Y0; y < s.Y1; y++ {
		copyRow(out, y, sout, y-s.In0)
	}
	return nil
}

// runStream runs the slabs one after the other with double buffering: a
// goroutine fills the input buffer of the next slab while the current
// slab's plan runs on the other buffer pair. The plans run on the calling
// goroutine only.
func (sp *slabPlan) runStream(in, out *convolve.Image) error {
	free := make(chan int, 2) // buffer pairs ready to be filled
	free <- 0
	free <- 1
	type filled struct{ slab, pair int }
	ready := make(chan filled)
	stop := make(chan struct{})
	go func() {
		defer close(ready)
		for i, s := range sp.pt.Slabs {
			var k int
			select {
			case k = <-free:
			case <-stop:
				return
			}
			sp.fill(s, sp.ins[k], in)
			select {
			case ready <- filled{i, k}:
			case <-stop:
				return
			}
		}
	}()
	var err error
	for f := range ready {
		s := sp.pt.Slabs[f.slab]
		ip := sp.plans[slices.Index(sp.heights, s.InputRows())]
		if err = sp.compute(f.slab, s, ip, sp.ins[f.pair], sp.outs[f.pair], out); err != nil {
			close(stop)
			for range ready {
			}
			return err
		}
		free <- f.pair
	}
	return nil
}

// closeInner closes the wrapped plans and returns their errors.
func (sp *slabPlan) closeInner() error {
	var errs []error
	for _, ip := range sp.plans {
		errs = append(errs, ip.Close())
	}
	sp.plans = nil
	return errors.Join(errs...)
}

// Close closes the wrapped plans; a second Close returns an error wrapping
// convolve.ErrClosed.
func (sp *slabPlan) Close() error {
	if sp.closed {
		return fmt.Errorf("slab: %s: Close: %w", sp.name, convolve.ErrClosed)
	}
	sp.closed = true
	sp.ins, sp.outs = nil, nil
	return sp.closeInner()
}
