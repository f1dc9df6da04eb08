package benchmarks

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/refimpl"
)

// FullGateWork is the largest Work for which the correctness gate
// compares every output element with the float64 reference. Larger cases
// compare nine windows (corners, edge middles, centre) against the
// reference computed on a crop of the input, and scan the whole output
// for unwritten (NaN-poisoned) elements.
const FullGateWork = 1 << 27

// gateWindow is the side of one window of a windowed gate.
const gateWindow = 48

// GateMode says how much of the output a gate compared.
type GateMode string

const (
	GateFull    GateMode = "full"
	GateWindows GateMode = "windows"
)

// Gate checks out, the output a plan computed for p from in, against the
// reference (refimpl.Expect) with its per-element tolerance. The caller
// poisons out with NaN before the run, so unwritten float elements count
// as violations. Metrics.OK() tells whether the variant passed.
func Gate(p convolve.Problem, in, out *convolve.Image) (convolve.Metrics, GateMode, error) {
	kw, kh := p.KernelSize()
	work := int64(p.Input.Width) * int64(p.Input.Height) * int64(p.Input.Channels) * int64(kw*kh)
	windowed := work > FullGateWork && (p.Border == convolve.Zero || p.Border == convolve.Replicate)
	if !windowed {
		ref, tol, err := refimpl.Expect(p, in)
		if err != nil {
			return convolve.Metrics{}, GateFull, fmt.Errorf("benchmarks: reference for %v: %w", p, err)
		}
		m, err := convolve.Compare(out, ref, tol)
		return m, GateFull, err
	}
	var total convolve.Metrics
	for _, y0 := range windowStarts(p.Input.Height) {
		for _, x0 := range windowStarts(p.Input.Width) {
			m, err := gateWindowAt(p, in, out, x0, y0, kw/2, kh/2)
			if err != nil {
				return total, GateWindows, err
			}
			total = mergeMetrics(total, m)
		}
	}
	if n := countNaN(out); n > 0 {
		if total.Violations == 0 {
			total.First = convolve.Mismatch{X: -1, Y: -1, C: -1, Got: math.NaN()}
		}
		total.Violations += n
	}
	return total, GateWindows, nil
}

// windowStarts returns the window origins along a side of n pixels:
// start, middle and end, without duplicates.
func windowStarts(n int) []int {
	w := min(gateWindow, n)
	starts := []int{0}
	for _, s := range []int{(n - w) / 2, n - w} {
		if s != starts[len(starts)-1] {
			starts = append(starts, s)
		}
	}
	return starts
}

// gateWindowAt compares the window of out at (x0, y0) with the reference
// computed on the crop of in that holds the window and its halo (rx, ry).
// Under zero and replicate borders that crop's output equals the full
// output inside the window.
func gateWindowAt(p convolve.Problem, in, out *convolve.Image, x0, y0, rx, ry int) (convolve.Metrics, error) {
	w, h := min(gateWindow, p.Input.Width), min(gateWindow, p.Input.Height)
	cx0, cy0 := max(0, x0-rx), max(0, y0-ry)
	cx1, cy1 := min(p.Input.Width, x0+w+rx), min(p.Input.Height, y0+h+ry)
	crop, err := subImage(in, cx0, cy0, cx1-cx0, cy1-cy0)
	if err != nil {
		return convolve.Metrics{}, err
	}
	cp := p
	cp.Input = crop.Geometry
	ref, tol, err := refimpl.Expect(cp, crop)
	if err != nil {
		return convolve.Metrics{}, fmt.Errorf("benchmarks: reference for window (%d,%d) of %v: %w", x0, y0, p, err)
	}
	gotW, err := subImage(out, x0, y0, w, h)
	if err != nil {
		return convolve.Metrics{}, err
	}
	refW, err := subImage(ref, x0-cx0, y0-cy0, w, h)
	if err != nil {
		return convolve.Metrics{}, err
	}
	tolW, err := subImage(tol, x0-cx0, y0-cy0, w, h)
	if err != nil {
		return convolve.Metrics{}, err
	}
	m, err := convolve.Compare(gotW, refW, tolW)
	if err == nil && m.Violations > 0 {
		m.First.X += x0
		m.First.Y += y0
	}
	return m, err
}

// subImage copies the w x h rectangle at (x0, y0) of im into a new packed
// image of the same type, channels and layout.
func subImage(im *convolve.Image, x0, y0, w, h int) (*convolve.Image, error) {
	g := im.Geometry
	g.Width, g.Height, g.Stride = w, h, 0
	sub, err := convolve.NewImage(g)
	if err != nil {
		return nil, fmt.Errorf("benchmarks: window %dx%d at (%d,%d) of %v: %w", w, h, x0, y0, im.Geometry, err)
	}
	for c := 0; c < g.Channels; c++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				sub.Set(x, y, c, im.At(x0+x, y0+y, c))
			}
		}
	}
	return sub, nil
}

func mergeMetrics(a, b convolve.Metrics) convolve.Metrics {
	if a.Violations == 0 && b.Violations > 0 {
		a.First = b.First
	}
	a.N += b.N
	a.Violations += b.Violations
	a.MaxAbs = max(a.MaxAbs, b.MaxAbs)
	if math.IsNaN(b.MaxAbs) {
		a.MaxAbs = b.MaxAbs
	}
	a.MaxULP = max(a.MaxULP, b.MaxULP)
	a.RelL2 = max(a.RelL2, b.RelL2)
	return a
}

func countNaN(im *convolve.Image) int {
	n := 0
	for _, v := range im.F32 {
		if v != v {
			n++
		}
	}
	return n
}
