package refimpl

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
)

// unitRoundoff is float32's unit roundoff u = 2^-24.
const unitRoundoff = 0x1p-24

// Expect computes the exact reference output of p on in and the tolerance
// a correct float32 implementation must meet at every element.
//
// ref has the problem's OutputGeometry, each float element the float64
// result rounded once; tol has its shape with Float32 elements, each
// rounded up from the float64 bound:
//
//   - Filter2D: convolve.Tolerance(KW, KH, sum|w*x|, ref) per element, with
//     w the oriented filter and the sum over the output's taps.
//   - SobelMagnitude: tx + ty + 4u*|ref| with tx, ty the Tolerance of the
//     gradients (u = 2^-24): an error e in (gx, gy) moves the magnitude by
//     at most |ex| + |ey|, and squaring, adding, the square root and the
//     rounding of ref add at most 4u of it.
//   - RGBToYUV: 0; every variant must match convolve.RGBToYUVPixel exactly.
//
// Output (x, y) of Filter2D is sum_j sum_i w[j][i] * in(x+i-KW/2, y+j-KH/2),
// with outside coordinates mapped by p.Border.Index (Zero reads them as
// 0). Non-finite values follow IEEE arithmetic over every tap, zero
// weights and Zero's outside taps included; an exact sum beyond the
// float32 range rounds to an infinity of its sign. Where the reference is
// NaN or infinite its tolerance is too, and convolve.Compare matches by
// class.
func Expect(p convolve.Problem, in *convolve.Image) (ref, tol *convolve.Image, err error) {
	return ExpectModel(p, in, convolve.Direct)
}

// ExpectModel is Expect with the tolerance of Filter2D taken from the
// error model m instead of Direct's:
//
//   - Direct, TF32, BF16: convolve.ModelTolerance(m, KW, KH, sum|w*x|, ref)
//     per element.
//   - FFT64, FFT32: convolve.FFTTolerance per element, from the 2-norms of
//     the element's channel of the bordered input (the image extended by
//     the filter's reach through the border mapping) and of the filter,
//     and convolve.FFTLogPoints.
//
// ref is the same under every model. SobelMagnitude and RGBToYUV have
// only the Direct model; another is an error.
func ExpectModel(p convolve.Problem, in *convolve.Image, m convolve.ErrorModel) (ref, tol *convolve.Image, err error) {
	return ExpectCrop(p, in, m, nil)
}

// ExpectCrop is ExpectModel for in, a crop of a larger input that holds
// some of its pixels and their filter's reach, whose FFTTerms are whole
// (one per channel). Under an FFT model every tolerance is computed from
// whole, since a transform spreads every input's rounding over every
// output, so an element the crop computes from the same taps gets the
// tolerance ExpectModel of the larger input gives it. Other models do not
// read whole; nil whole means the crop's own terms.
func ExpectCrop(p convolve.Problem, in *convolve.Image, m convolve.ErrorModel, whole []convolve.FFTTerms) (ref, tol *convolve.Image, err error) {
	if !m.Valid() {
		return nil, nil, fmt.Errorf("refimpl: unknown error model %d", int(m))
	}
	if m != convolve.Direct && p.Op != convolve.Filter2D {
		return nil, nil, fmt.Errorf("refimpl: error model %v: defined for Filter2D only, not %v", m, p.Op)
	}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	if err := convolve.CheckHostMemory("refimpl.Expect", expectScratch(p)); err != nil {
		return nil, nil, err
	}
	ref, err = p.NewOutput()
	if err != nil {
		return nil, nil, err
	}
	tg := p.OutputGeometry()
	tg.Type = convolve.Float32
	tol, err = convolve.NewImage(tg)
	if err != nil {
		return nil, nil, err
	}
	if err := p.CheckIO(in, ref); err != nil {
		return nil, nil, err
	}
	switch p.Op {
	case convolve.Filter2D:
		f := p.Filter.Oriented(p.Mode)
		terms := whole
		if m.IsFFT() && terms == nil {
			terms = fftTerms(in, f, p.Border)
		}
		if m.IsFFT() && len(terms) != in.Channels {
			return nil, nil, fmt.Errorf("refimpl: %d FFT terms for %d channels", len(terms), in.Channels)
		}
		forEach(in.Geometry, func(x, y, c int) {
			s, abs := dot64(in, c, x, y, f, p.Border)
			ref.Set(x, y, c, s)
			var t float64
			if m.IsFFT() {
				// From s, not ref: FFTTolerance allows for the
				// rounding of ref itself.
				t = convolve.FFTTolerance(terms[c], s, m.FFTRoundoff())
			} else {
				t = convolve.OperandTolerance(f.Width, f.Height, abs, s, m.OperandRoundoff())
			}
			tol.F32[tol.Offset(x, y, c)] = roundUp(t)
		})
	case convolve.SobelMagnitude:
		fx, fy := sobelWeights()
		forEach(in.Geometry, func(x, y, c int) {
			gx, ax := dot64(in, c, x, y, fx, p.Border)
			gy, ay := dot64(in, c, x, y, fy, p.Border)
			mag := math.Sqrt(gx*gx + gy*gy)
			t := convolve.Tolerance(3, 3, ax, gx) + convolve.Tolerance(3, 3, ay, gy) + 4*unitRoundoff*mag
			ref.Set(x, y, c, mag)
			tol.F32[tol.Offset(x, y, c)] = roundUp(t)
		})
	case convolve.RGBToYUV:
		for y := 0; y < in.Height; y++ {
			for x := 0; x < in.Width; x++ {
				Y, U, V := convolve.RGBToYUVPixel(uint8(in.At(x, y, 0)), uint8(in.At(x, y, 1)), uint8(in.At(x, y, 2)))
				ref.Set(x, y, 0, float64(Y))
				ref.Set(x, y, 1, float64(U))
				ref.Set(x, y, 2, float64(V))
			}
		}
	default:
		return nil, nil, fmt.Errorf("refimpl: operation %v: not implemented", p.Op)
	}
	return ref, tol, nil
}

// forEach calls fn for every channel c, row y and column x of g, in that
// nesting order.
func forEach(g convolve.Geometry, fn func(x, y, c int)) {
	for c := 0; c < g.Channels; c++ {
		for y := 0; y < g.Height; y++ {
			for x := 0; x < g.Width; x++ {
				fn(x, y, c)
			}
		}
	}
}

// dot64 correlates f with channel c of in at (x, y) in float64 and returns
// the sum and the sum of its terms' absolute values; Zero's outside taps
// are terms w*0.
func dot64(in *convolve.Image, c, x, y int, f *convolve.Filter, b convolve.Border) (s, abs float64) {
	ax, ay := f.Width/2, f.Height/2
	for j := 0; j < f.Height; j++ {
		iy, oky := b.Index(y+j-ay, in.Height)
		for i := 0; i < f.Width; i++ {
			ix, okx := b.Index(x+i-ax, in.Width)
			pixel := 0.0
			if oky && okx {
				pixel = in.At(ix, iy, c)
			}
			v := float64(f.At(i, j)) * pixel
			s += v
			abs += math.Abs(v)
		}
	}
	return s, abs
}

// FFTTerms returns the convolve.FFTTerms of each channel of in for the
// Filter2D problem p, as ExpectModel uses them under an FFT model.
func FFTTerms(p convolve.Problem, in *convolve.Image) ([]convolve.FFTTerms, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Op != convolve.Filter2D {
		return nil, fmt.Errorf("refimpl: FFTTerms: defined for Filter2D only, not %v", p.Op)
	}
	if err := in.Check(); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	if in.Geometry.Packed() != p.Input.Packed() {
		return nil, fmt.Errorf("refimpl: FFTTerms: input %v does not match the problem's %v", in.Geometry, p.Input)
	}
	return fftTerms(in, p.Filter.Oriented(p.Mode), p.Border), nil
}

// fftTerms returns convolve.FFTTerms for each channel of in under the
// filter f and border b (see ExpectModel).
func fftTerms(in *convolve.Image, f *convolve.Filter, b convolve.Border) []convolve.FFTTerms {
	var fl2 float64
	for _, w := range f.Weights {
		fl2 += float64(w) * float64(w)
	}
	ax, ay := f.Width/2, f.Height/2
	terms := make([]convolve.FFTTerms, in.Channels)
	for c := range terms {
		var l2 float64
		for y := -ay; y < in.Height+f.Height-1-ay; y++ {
			iy, oky := b.Index(y, in.Height)
			for x := -ax; x < in.Width+f.Width-1-ax; x++ {
				ix, okx := b.Index(x, in.Width)
				if oky && okx {
					v := in.At(ix, iy, c)
					l2 += v * v
				}
			}
		}
		terms[c] = convolve.FFTTerms{
			InL2: math.Sqrt(l2), FilterL2: math.Sqrt(fl2),
			LogN: convolve.FFTLogPoints(in.Width, in.Height, f.Width, f.Height),
		}
	}
	return terms
}

// expectScratch is the host memory Expect allocates: the reference output
// and its float32 tolerance.
func expectScratch(p convolve.Problem) int64 {
	out := p.OutputGeometry()
	return convolve.MulBytes(int64(out.Len()), int64(out.Type.Size())) + floatBytes(int64(out.Len()))
}

// roundUp returns the smallest float32 not below t (t >= 0).
func roundUp(t float64) float32 {
	f := float32(t)
	if float64(f) < t {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// reference is the "reference" variant: it runs Expect and writes ref.
type reference struct{}

func (reference) Describe() convolve.Description {
	return convolve.Description{
		Name:    "reference",
		Summary: "float64 ground truth on the CPU (refimpl.Expect), one goroutine",
		Caps:    cpuCaps(),
	}
}

func (r reference) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := checkPlan(r.Describe(), p, cfg, expectScratch); err != nil {
		return nil, err
	}
	p.Filter = p.Filter.Clone()
	return &referencePlan{p: p}, nil
}

type referencePlan struct {
	p      convolve.Problem
	closed bool
}

func (rp *referencePlan) Run(in, out *convolve.Image) error {
	if err := checkRun("reference", rp.closed, rp.p, in, out); err != nil {
		return err
	}
	ref, _, err := Expect(rp.p, in)
	if err != nil {
		return err
	}
	// out may have a row stride of its own.
	forEach(ref.Geometry, func(x, y, c int) {
		out.Set(x, y, c, ref.At(x, y, c))
	})
	return nil
}

func (rp *referencePlan) Close() error { return closeOnce("reference", &rp.closed) }

func init() {
	convolve.Register(reference{})
}
