package benchmarks

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/verify"
)

// fullGateWork is the largest Work for which the correctness gate
// compares every output element with the float64 reference. Larger cases
// compare nine windows (corners, edge middles, centre) against the
// reference computed on a crop of the input, and scan the whole output
// for unwritten (NaN-poisoned) elements.
const fullGateWork = 1 << 27

// gateWindow is the side of one window of a windowed gate.
const gateWindow = 48

// GateMode says how much of the output a gate compared.
type GateMode string

const (
	gateFull     GateMode = "full"
	gateWindowed GateMode = "windows"
)

// gateModel checks out, the output a plan computed for p from in, against
// the reference (verify.Reference) with the per-element tolerance of the
// error model m, the one the variant declares
// (convolve.Capabilities.Accuracy; convolve.Direct for operations other
// than Filter2D). A window's tolerance is the one the whole image gives
// its elements (verify.CropReference), under an FFT model too. The caller
// poisons out with NaN before the run, so unwritten float elements count
// as violations. Metrics.OK() tells whether the variant passed.
func gateModel(p convolve.Problem, in, out *convolve.Image, m convolve.ErrorModel) (convolve.Metrics, GateMode, error) {
	if p.Op != convolve.Filter2D {
		m = convolve.Direct
	}
	if gateModeOf(p) == gateFull {
		ref, tol, err := expect(p, in, m, nil)
		if err != nil {
			return convolve.Metrics{}, gateFull, fmt.Errorf("benchmarks: reference for %v: %w", p, err)
		}
		m, err := convolve.Compare(out, ref, tol)
		return m, gateFull, err
	}
	var total convolve.Metrics
	var terms []convolve.FFTTerms
	if m.IsFFT() {
		var err error
		if terms, err = verify.Terms(p, in); err != nil {
			return convolve.Metrics{}, gateWindowed, fmt.Errorf("benchmarks: norms for %v: %w", p, err)
		}
	}
	for _, w := range gateWindows(p) {
		m, err := gateWindowAt(p, in, out, w, m, terms)
		if err != nil {
			return total, gateWindowed, err
		}
		total = mergeMetrics(total, m)
	}
	if n := countNaN(out); n > 0 {
		if total.Violations == 0 {
			total.First = convolve.Mismatch{X: -1, Y: -1, C: -1, Got: math.NaN()}
		}
		total.Violations += n
	}
	return total, gateWindowed, nil
}

// gateModeOf says how much of p's output a gate compares: windows when
// the problem is larger than FullGateWork, everything otherwise.
func gateModeOf(p convolve.Problem) GateMode {
	kw, kh := p.KernelSize()
	work := int64(p.Input.Width) * int64(p.Input.Height) * int64(p.Input.Channels) * int64(kw*kh)
	if work > fullGateWork {
		return gateWindowed
	}
	return gateFull
}

// hasNaiveULP reports whether naiveULP measures p: Filter2D and
// SobelMagnitude, whose outputs are float32 (RGBToYUV writes bytes).
func hasNaiveULP(p convolve.Problem) bool {
	return p.Op == convolve.Filter2D || p.Op == convolve.SobelMagnitude
}

// naiveULP returns the largest distance in float32 ULPs between out and
// the output of cpu-naive for p from in, over the elements gateModel compares
// (every element, or the same nine windows, each computed by cpu-naive on
// the crop that holds it and its halo, clipped or padded as window says:
// that crop sums the same values in the same order). A NaN in a compared
// element of out counts as math.MaxInt64.
func naiveULP(p convolve.Problem, in, out *convolve.Image) (int64, GateMode, error) {
	if !hasNaiveULP(p) {
		return 0, gateFull, fmt.Errorf("benchmarks: no ULP distance from cpu-naive for operation %v: its output is not float32", p.Op)
	}
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		return 0, gateFull, err
	}
	mode := gateModeOf(p)
	if mode == gateFull {
		want, err := runOnce(naive, p, in)
		if err != nil {
			return 0, mode, err
		}
		m, err := convolve.Compare(out, want, nil)
		return naiveULPOf(m), mode, err
	}
	var worst int64
	for _, w := range gateWindows(p) {
		crop, err := w.crop(in)
		if err != nil {
			return 0, mode, err
		}
		cp := p
		cp.Input = crop.Geometry
		want, err := runOnce(naive, cp, crop)
		if err != nil {
			return 0, mode, err
		}
		gotW, wantW, err := w.cut(out, want)
		if err != nil {
			return 0, mode, err
		}
		m, err := convolve.Compare(gotW, wantW, nil)
		if err != nil {
			return 0, mode, err
		}
		worst = max(worst, naiveULPOf(m))
	}
	return worst, mode, nil
}

// naiveULPOf is m's MaxULP, or math.MaxInt64 when some element differs
// in class (Compare leaves those out of MaxULP).
func naiveULPOf(m convolve.Metrics) int64 {
	if m.ClassMismatches > 0 {
		return math.MaxInt64
	}
	return m.MaxULP
}

// runOnce plans p with v under the default configuration, runs it on in
// and returns the output.
func runOnce(v convolve.Variant, p convolve.Problem, in *convolve.Image) (*convolve.Image, error) {
	name := v.Describe().Name
	plan, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		return nil, fmt.Errorf("benchmarks: %s for %v: %w", name, p, err)
	}
	out, err := p.NewOutput()
	if err == nil {
		err = plan.Run(in, out)
	}
	if cerr := plan.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("benchmarks: %s for %v: %w", name, p, err)
	}
	return out, nil
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

// window is one compared window of a windowed gate: the w x h rectangle
// at (x0, y0) of the output, and the crop of the input at (cx0, cy0),
// cw x ch, that holds it and its filter halo.
//
// Under zero and replicate borders the crop is the window and its halo
// clipped to the image: the crop's own border then gives the image's.
// Under the other borders the crop is the window with its whole halo,
// each pixel outside the image read through the border mapping
// (padded), so that no tap of a window pixel leaves the crop.
type window struct {
	x0, y0, w, h     int
	cx0, cy0, cw, ch int
	padded           bool
	border           convolve.Border // the mapping of a padded crop
}

// gateWindows lists the windows of a windowed gate of p: corners, edge
// middles and centre, without duplicates.
func gateWindows(p convolve.Problem) []window {
	kw, kh := p.KernelSize()
	rx, ry := kw/2, kh/2
	w, h := min(gateWindow, p.Input.Width), min(gateWindow, p.Input.Height)
	clip := p.Border == convolve.Zero || p.Border == convolve.Replicate
	var ws []window
	for _, y0 := range windowStarts(p.Input.Height) {
		for _, x0 := range windowStarts(p.Input.Width) {
			if !clip {
				ws = append(ws, window{x0, y0, w, h, x0 - rx, y0 - ry, w + 2*rx, h + 2*ry, true, p.Border})
				continue
			}
			cx0, cy0 := max(0, x0-rx), max(0, y0-ry)
			cx1, cy1 := min(p.Input.Width, x0+w+rx), min(p.Input.Height, y0+h+ry)
			ws = append(ws, window{x0, y0, w, h, cx0, cy0, cx1 - cx0, cy1 - cy0, false, p.Border})
		}
	}
	return ws
}

// crop copies the window's crop of in, padded through the border mapping
// where the window says so.
func (w window) crop(in *convolve.Image) (*convolve.Image, error) {
	if !w.padded {
		return subImage(in, w.cx0, w.cy0, w.cw, w.ch)
	}
	g := in.Geometry
	g.Width, g.Height, g.Stride = w.cw, w.ch, 0
	sub, err := convolve.NewImage(g)
	if err != nil {
		return nil, fmt.Errorf("benchmarks: padded crop %dx%d at (%d,%d) of %v: %w", w.cw, w.ch, w.cx0, w.cy0, in.Geometry, err)
	}
	for y := 0; y < w.ch; y++ {
		sy, ok := w.border.Index(w.cy0+y, in.Height)
		if !ok {
			return nil, fmt.Errorf("benchmarks: border %v maps row %d of %d outside the image", w.border, w.cy0+y, in.Height)
		}
		for x := 0; x < w.cw; x++ {
			sx, ok := w.border.Index(w.cx0+x, in.Width)
			if !ok {
				return nil, fmt.Errorf("benchmarks: border %v maps column %d of %d outside the image", w.border, w.cx0+x, in.Width)
			}
			for c := 0; c < g.Channels; c++ {
				sub.Set(x, y, c, in.At(sx, sy, c))
			}
		}
	}
	return sub, nil
}

// cut returns the window of out (full-image coordinates) and of ref,
// which is computed on the crop (crop coordinates).
func (w window) cut(out, ref *convolve.Image) (gotW, refW *convolve.Image, err error) {
	if gotW, err = subImage(out, w.x0, w.y0, w.w, w.h); err != nil {
		return nil, nil, err
	}
	if refW, err = subImage(ref, w.x0-w.cx0, w.y0-w.cy0, w.w, w.h); err != nil {
		return nil, nil, err
	}
	return gotW, refW, nil
}

// gateWindowAt compares the window w of out with the reference computed
// on the crop of in that holds the window and its halo (clipped or padded,
// as window says), whose output equals the full output inside the window.
// terms are the whole image's verify.Terms under an FFT model, which
// bound each element (verify.CropReference), else nil.
func gateWindowAt(p convolve.Problem, in, out *convolve.Image, w window, model convolve.ErrorModel, terms []convolve.FFTTerms) (convolve.Metrics, error) {
	crop, err := w.crop(in)
	if err != nil {
		return convolve.Metrics{}, err
	}
	cp := p
	cp.Input = crop.Geometry
	ref, tol, err := expect(cp, crop, model, terms)
	if err != nil {
		return convolve.Metrics{}, fmt.Errorf("benchmarks: reference for window (%d,%d) of %v: %w", w.x0, w.y0, p, err)
	}
	gotW, refW, err := w.cut(out, ref)
	if err != nil {
		return convolve.Metrics{}, err
	}
	tolW, err := subImage(tol, w.x0-w.cx0, w.y0-w.cy0, w.w, w.h)
	if err != nil {
		return convolve.Metrics{}, err
	}
	m, err := convolve.Compare(gotW, refW, tolW)
	if err == nil && m.Violations > 0 {
		m.First.X += w.x0
		m.First.Y += w.y0
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
	a.NonFinite += b.NonFinite
	a.ClassMismatches += b.ClassMismatches
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
