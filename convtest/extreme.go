package convtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"

	"github.com/convbench/convbench/convolve"
)

// Extreme input. Each of these properties turns a drawn case into a
// problem and input with extreme values and checks the variant against
// verify.Reference by convolve.Compare's rules: NaN meets NaN, +Inf meets
// +Inf, -Inf meets -Inf, finite values within tolerance. Non-finite input
// must instead be refused with a *convolve.NonFiniteError by a variant
// that declares Capabilities.FiniteInput (a filter at plan time, pixels
// at Run and Upload).
//
// The finite extremes are scaled so that a correct float32 computation in
// any summation order, fused or not, separable or not, stays within the
// tolerance: near-overflow sums stay below 2^125 (no float32 intermediate
// can overflow), overflowing sums have every term beyond the float32
// range with one sign (every order gives that infinity), and subnormal
// sums stay below the smallest normal float32 (2^-126, which the
// tolerance allows for flushed subnormals).

// nonFiniteIn says what non-finite values an extreme case holds.
type nonFiniteIn int

const (
	allFinite nonFiniteIn = iota
	nonFiniteFilter
	nonFinitePixels
)

// extremeBuild turns case c into the problem and input of an extreme
// property.
type extremeBuild func(e *env, c testCase) (p convolve.Problem, in *convolve.Image, nf nonFiniteIn, err error)

var (
	filterAndSobel = []convolve.Operation{convolve.Filter2D, convolve.SobelMagnitude}
	nonFiniteVals  = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
)

// extremeProperties are the properties of extreme input, in the order
// they run after the others.
var extremeProperties = []*property{
	{name: "nonfinite-pixels", ops: filterAndSobel, fix: withType(convolve.Float32), accept: isType(convolve.Float32),
		applies: hasType(convolve.Float32), check: checkExtreme(nonFinitePixelsCase), budget: extremeBudget},
	{name: "nonfinite-weights", ops: filter2DOnly, applies: nonFiniteWeightsApply, check: checkExtreme(nonFiniteWeightsCase),
		budget: extremeBudget},
	{name: "near-overflow", ops: filterAndSobel, accept: nearOverflowFits, check: checkExtreme(nearOverflowCase), budget: extremeBudget},
	{name: "overflow", ops: filter2DOnly, check: checkExtreme(overflowCase), budget: extremeBudget},
	// Subnormal arithmetic is slow on most CPUs: smaller cases still.
	{name: "subnormal", ops: filterAndSobel, acceptFor: subnormalAccept, check: checkExtreme(subnormalCase), budget: extremeBudget / 4},
	{name: "saturation", fix: withIntegerType, accept: isIntegerCase, applies: hasIntegerType, check: checkExtreme(saturationCase),
		budget: extremeBudget},
}

// extremeBudget bounds the work of an extreme case: the values, not the
// sizes, are what these properties are about.
const extremeBudget = defaultBudget / 4

func init() { properties = append(properties, extremeProperties...) }

func withType(t convolve.ElemType) func(*domain, testCase) testCase {
	return func(d *domain, c testCase) testCase {
		if len(d.caps.Types) == 0 || slices.Contains(d.caps.Types, t) {
			c.Type = t
		}
		return c
	}
}

func isType(t convolve.ElemType) func(testCase) bool {
	return func(c testCase) bool { return c.Type == t }
}

func hasType(t convolve.ElemType) func(*env) string {
	return func(e *env) string {
		if len(e.desc.Caps.Types) > 0 && !slices.Contains(e.desc.Caps.Types, t) {
			return fmt.Sprintf("%s takes no %v input", e.name, t)
		}
		return ""
	}
}

// withIntegerType keeps an integer type, or moves a float32 case to the
// first integer type the variant takes.
func withIntegerType(d *domain, c testCase) testCase {
	if c.Type != convolve.Float32 {
		return c
	}
	for _, t := range []convolve.ElemType{convolve.Uint8, convolve.Int16} {
		if len(d.caps.Types) == 0 || slices.Contains(d.caps.Types, t) {
			c.Type = t
			return c
		}
	}
	return c
}

func isIntegerCase(c testCase) bool { return c.Type != convolve.Float32 }

func hasIntegerType(e *env) string {
	t := e.desc.Caps.Types
	if len(t) == 0 || slices.Contains(t, convolve.Uint8) || slices.Contains(t, convolve.Int16) {
		return ""
	}
	return fmt.Sprintf("%s takes no integer input to saturate", e.name)
}

// nonFiniteWeightsApply: a filter with a NaN or infinite weight is never
// separable, so a variant that accepts only separable filters and does
// not declare FiniteInput could only refuse it as non-separable.
func nonFiniteWeightsApply(e *env) string {
	if c := e.desc.Caps; c.SeparableOnly && !c.FiniteInput {
		return fmt.Sprintf("%s accepts only separable filters, and a filter with a non-finite weight is not one", e.name)
	}
	return ""
}

// checkExtreme is the check of an extreme property built by build.
func checkExtreme(build extremeBuild) func(e *env, c testCase) error {
	return func(e *env, c testCase) (err error) {
		p, in, nf, err := build(e, c)
		if err != nil {
			return err
		}
		finiteOnly := e.desc.Caps.FiniteInput
		if finiteOnly && nf == nonFiniteFilter {
			pl, err := e.plan(p, c.Config())
			if err == nil {
				closePlan(pl, &err)
				return fmt.Errorf("%s declares FiniteInput but planned a filter with a non-finite weight", e.name)
			}
			if !errors.As(err, new(*convolve.NonFiniteError)) {
				return fmt.Errorf("plan of a filter with a non-finite weight: %w; want a *convolve.NonFiniteError", err)
			}
			// The variant's own Plan must refuse too, not only PlanFor.
			direct, err := e.variant.Plan(p, c.Config())
			if err == nil {
				direct.Close()
				return fmt.Errorf("%s declares FiniteInput but its Plan accepted a filter with a non-finite weight", e.name)
			}
			if !errors.As(err, new(*convolve.NonFiniteError)) {
				return fmt.Errorf("the variant's Plan of a filter with a non-finite weight: %w; want a *convolve.NonFiniteError", err)
			}
			return nil
		}
		pl, err := e.plan(p, c.Config())
		if err != nil {
			return err
		}
		defer closePlan(pl, &err)
		if finiteOnly && nf == nonFinitePixels {
			out, err := p.NewOutput()
			if err != nil {
				return err
			}
			if err := pl.Run(in, out); !errors.As(err, new(*convolve.NonFiniteError)) {
				return fmt.Errorf("the plan's Run of an input with a non-finite pixel: %v; want a *convolve.NonFiniteError", err)
			}
			if dp, ok := pl.Plan.(convolve.DevicePlan); ok {
				if err := dp.Upload(in); !errors.As(err, new(*convolve.NonFiniteError)) {
					return fmt.Errorf("the plan's Upload of an input with a non-finite pixel: %v; want a *convolve.NonFiniteError", err)
				}
			}
			return nil
		}
		ref, tol, err := e.expect(p, c.Config(), in)
		if err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		for _, poison := range extremePoisons(p.OutputGeometry().Type) {
			out, err := runPoisoned(pl, p, in, poison)
			if err != nil {
				return err
			}
			if err := agree(fmt.Sprintf("Run over poison %v", poison), out, ref, tol); err != nil {
				return err
			}
		}
		return nil
	}
}

// extremePoisons are the output poisons of the extreme properties: an
// unwritten element shows as a NaN where the reference is not NaN, and as
// a finite value no output takes where the reference is non-finite.
func extremePoisons(t convolve.ElemType) []float64 {
	if t == convolve.Float32 {
		return []float64{math.NaN(), -1.2345678e37}
	}
	return poisons(t)
}

// extremeRand is the random source of an extreme case's values.
func extremeRand(c testCase, salt int64) *rand.Rand {
	return rand.New(rand.NewSource(c.Seed ^ salt))
}

// pixelValues returns the pixel (not padding) element indices of im.
func pixelIndices(im *convolve.Image) []int {
	var idx []int
	for ch := 0; ch < im.Channels; ch++ {
		for y := 0; y < im.Height; y++ {
			for x := 0; x < im.Width; x++ {
				idx = append(idx, im.Offset(x, y, ch))
			}
		}
	}
	return idx
}

// sumAbs is sum |w| over the filter's weights (the op's own for Sobel).
func sumAbs(p convolve.Problem) float64 {
	f := p.Filter
	if p.Op == convolve.SobelMagnitude {
		f = convolve.SobelX()
	}
	s := 0.0
	for _, w := range f.Weights {
		s += math.Abs(float64(w))
	}
	return s
}

// maxAbsPixel is the largest |pixel| of in (padding excluded).
func maxAbsPixel(in *convolve.Image) float64 {
	m := 0.0
	for ch := 0; ch < in.Channels; ch++ {
		for y := 0; y < in.Height; y++ {
			for x := 0; x < in.Width; x++ {
				m = max(m, math.Abs(in.At(x, y, ch)))
			}
		}
	}
	return m
}

// scalePixels multiplies every float32 pixel of in by 2^e (exact unless
// the result leaves the normal range).
func scalePixels(in *convolve.Image, e int) {
	for _, i := range pixelIndices(in) {
		in.F32[i] = float32(math.Ldexp(float64(in.F32[i]), e))
	}
}

// scaledFilter returns f with every weight multiplied by 2^e.
func scaledFilter(f *convolve.Filter, e int) *convolve.Filter {
	g := f.Clone()
	for i, w := range g.Weights {
		g.Weights[i] = float32(math.Ldexp(float64(w), e))
	}
	g.Name = fmt.Sprintf("%s*2^%d", f.Name, e)
	return g
}

// nonFinitePixelsCase puts one to three NaN or infinite pixels into the
// case's float32 input and zeroes one column of its filter, so that some
// taps are 0 x Inf (NaN in IEEE arithmetic). A zeroed column keeps a
// rank-one filter rank one. Subnormal weights become zero: a variant may
// flush them (fast math does, and so does the hardware on some paths), and
// a subnormal weight times an infinity is then NaN instead of that
// infinity. The subnormal property checks subnormal weights apart.
func nonFinitePixelsCase(_ *env, c testCase) (convolve.Problem, *convolve.Image, nonFiniteIn, error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return p, nil, 0, err
	}
	rng := extremeRand(c, 0x9a9)
	idx := pixelIndices(in)
	for k := 1 + rng.Intn(3); k > 0; k-- {
		in.F32[idx[rng.Intn(len(idx))]] = nonFiniteVals[rng.Intn(len(nonFiniteVals))]
	}
	if p.Op == convolve.Filter2D {
		f := p.Filter.Clone()
		flushSubnormals(f.Weights)
		if f.Width > 1 {
			col := rng.Intn(f.Width)
			for j := 0; j < f.Height; j++ {
				f.Weights[j*f.Width+col] = 0
			}
		}
		if !allZero(f.Weights) {
			p.Filter = f
		}
	}
	return p, in, nonFinitePixels, nil
}

// flushSubnormals sets every subnormal value of v to zero of its sign.
func flushSubnormals(v []float32) {
	for i, x := range v {
		if x != 0 && math.Abs(float64(x)) < 0x1p-126 {
			v[i] = float32(math.Copysign(0, float64(x)))
		}
	}
}

// nonFiniteWeightsCase sets one or two weights of the case's filter to NaN
// or an infinity. Every output's window holds every tap (a Zero-border tap
// outside the image is a term w*0), so every output is non-finite.
func nonFiniteWeightsCase(_ *env, c testCase) (convolve.Problem, *convolve.Image, nonFiniteIn, error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return p, nil, 0, err
	}
	rng := extremeRand(c, 0x3e1)
	f := p.Filter.Clone()
	for k := 1 + rng.Intn(2); k > 0; k-- {
		f.Weights[rng.Intn(len(f.Weights))] = nonFiniteVals[rng.Intn(len(nonFiniteVals))]
	}
	f.Name = "case-nonfinite"
	p.Filter = f
	// As in nonFinitePixelsCase: no subnormal operand meets an infinity.
	if in.Type == convolve.Float32 {
		flushSubnormals(in.F32)
	}
	return p, in, nonFiniteFilter, nil
}

// nearOverflowFits: Sobel's magnitude squares its gradients, which can
// only be made large through float32 pixels.
func nearOverflowFits(c testCase) bool {
	return c.Op != convolve.SobelMagnitude || c.Type == convolve.Float32
}

// nearOverflowCase scales the pixels (float32 input, half of the cases)
// or the weights by a power of two so that sum |w| * max |x| is just
// below 2^125: every float32 product, partial sum and row-pass
// intermediate of any order stays finite. For Sobel the pixels reach
// 2^60, so that gx^2 + gy^2 stays below 2^127.
func nearOverflowCase(_ *env, c testCase) (convolve.Problem, *convolve.Image, nonFiniteIn, error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return p, nil, 0, err
	}
	pixels := c.Type == convolve.Float32 && extremeRand(c, 0x0f1).Intn(2) == 0
	p = scaleToExponent(p, in, 125, 60, pixels)
	return p, in, allFinite, nil
}

// scaleToExponent scales the pixels of in (pixels true, or always for
// Sobel, whose weights are fixed) or the weights of p's filter by a power
// of two so that sum |w| * max |x| falls just below 2^target, or for Sobel
// max |x| just below 2^sobelTarget. An all-zero input is left as it is.
func scaleToExponent(p convolve.Problem, in *convolve.Image, target, sobelTarget float64, pixels bool) convolve.Problem {
	m := maxAbsPixel(in)
	if m == 0 {
		return p
	}
	if p.Op == convolve.SobelMagnitude {
		scalePixels(in, int(math.Floor(sobelTarget-math.Log2(m))))
		return p
	}
	e := int(math.Floor(target - math.Log2(sumAbs(p)*m)))
	// Neither the pixels nor the weights may leave the finite range
	// (below 2^126 in magnitude): what one side cannot take, the other
	// does. A tiny weight beside one pixel would otherwise scale that
	// pixel to infinity.
	if pixels {
		ep := min(e, int(math.Floor(126-math.Log2(m))))
		scalePixels(in, ep)
		if e > ep {
			p.Filter = scaledFilter(p.Filter, e-ep)
		}
	} else {
		ew := e
		if mw := maxAbsWeight(p.Filter); mw > 0 {
			ew = min(e, int(math.Floor(126-math.Log2(mw))))
		}
		p.Filter = scaledFilter(p.Filter, ew)
		if e > ew {
			scalePixels(in, e-ew)
		}
	}
	return p
}

// maxAbsWeight is the largest |weight| of f.
func maxAbsWeight(f *convolve.Filter) float64 {
	m := 0.0
	for _, w := range f.Weights {
		m = max(m, math.Abs(float64(w)))
	}
	return m
}

// overflowCase makes every product w*x at least 2^128 in magnitude with
// one sign for the whole image: pixels of one sign, a rank-one filter of
// one sign with factors in [1, 1.4] (times 2, or times 2^63 and 2^64 for
// integer input), and float32 pixels in [2^127, 2^128) or integer pixels
// of magnitude at least 2. Every float32 order of the sum is then that
// infinity, as the reference's exact sum rounded to float32 is.
func overflowCase(_ *env, c testCase) (convolve.Problem, *convolve.Image, nonFiniteIn, error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return p, nil, 0, err
	}
	rng := extremeRand(c, 0x0fe)
	sx, sw := 1.0, 1.0
	if rng.Intn(2) == 0 {
		sw = -1
	}
	if c.Type != convolve.Uint8 && rng.Intn(2) == 0 {
		sx = -1
	}
	for _, i := range pixelIndices(in) {
		r := rng.Float64()
		switch in.Type {
		case convolve.Float32:
			in.F32[i] = float32(sx * math.Ldexp(1+0.99*r, 127))
		case convolve.Uint8:
			in.U8[i] = uint8(2 + rng.Intn(254))
		case convolve.Int16:
			in.I16[i] = int16(sx * float64(2+rng.Intn(32766)))
		}
	}
	re, ce := 0, 1
	if in.Type != convolve.Float32 {
		re, ce = 63, 64
	}
	row, col := make([]float32, c.KW), make([]float32, c.KH)
	for i := range row {
		row[i] = float32(sw * math.Ldexp(1+0.4*rng.Float64(), re))
	}
	for j := range col {
		col[j] = float32(math.Ldexp(1+0.4*rng.Float64(), ce))
	}
	w := make([]float32, c.KW*c.KH)
	outer(w, row, col)
	f, err := convolve.NewFilter("overflow", c.KW, c.KH, w)
	if err != nil {
		return p, nil, 0, err
	}
	p.Filter = f
	return p, in, allFinite, nil
}

// subnormalAccept: subnormal pixels need float32 input; variants that
// accept only separable filters get subnormal pixels only (subnormal
// weights lose the bits that make a filter rank one).
func subnormalAccept(e *env) func(testCase) bool {
	sepOnly := e.desc.Caps.SeparableOnly
	return func(c testCase) bool {
		pixels := subnormalPixels(c, sepOnly)
		return !pixels || c.Type == convolve.Float32
	}
}

// subnormalPixels says whether case c scales its pixels (true) or its
// weights (false) into the subnormal range; Sobel has fixed weights.
func subnormalPixels(c testCase, sepOnly bool) bool {
	return c.Op == convolve.SobelMagnitude || sepOnly || extremeRand(c, 0x5b0).Intn(2) == 0
}

// subnormalCase scales the pixels or the weights down by a power of two
// until sum |w| * max |x| is below 2^-127 (for Sobel, the pixels below
// 2^-129, so that |gx| + |gy| stays below 2^-126): most scaled values are
// subnormal, and the whole output is below the smallest normal float32,
// so flushing subnormals to zero (fast math) stays within the tolerance.
func subnormalCase(e *env, c testCase) (convolve.Problem, *convolve.Image, nonFiniteIn, error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return p, nil, 0, err
	}
	p = scaleToExponent(p, in, -127, -129, subnormalPixels(c, e.desc.Caps.SeparableOnly))
	return p, in, allFinite, nil
}

// saturationCase sets every pixel of the case's integer input to a value
// at or next to an end of its type's range (0, 1, 254, 255 for uint8;
// -32768, -32767, 32766, 32767 for int16), mostly the ends themselves;
// RGB->YUV then meets its darkest, brightest and most saturated colours.
func saturationCase(_ *env, c testCase) (convolve.Problem, *convolve.Image, nonFiniteIn, error) {
	p, in, err := c.problemAndInput()
	if err != nil {
		return p, nil, 0, err
	}
	rng := extremeRand(c, 0x5a7)
	lo, hi := 0.0, 255.0
	if in.Type == convolve.Int16 {
		lo, hi = math.MinInt16, math.MaxInt16
	}
	for ch := 0; ch < in.Channels; ch++ {
		for y := 0; y < in.Height; y++ {
			for x := 0; x < in.Width; x++ {
				v := lo
				if rng.Intn(2) == 0 {
					v = hi
				}
				if rng.Intn(8) == 0 { // one step inside the range
					v += math.Copysign(1, (lo+hi)/2-v)
				}
				in.Set(x, y, ch, v)
			}
		}
	}
	return p, in, allFinite, nil
}
