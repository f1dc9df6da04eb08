package convolve

import (
	"fmt"
	"math"
	"math/bits"
)

// ErrorModel is the accuracy a variant declares for Filter2D
// (Capabilities.Accuracy): which arithmetic and algorithm its error bound
// is derived from. The reference (refimpl.ExpectModel) turns the model
// into a tolerance for every output element, and the property suite, the
// benchmarks' correctness gate and the tuner hold each variant to the
// tolerance of its own model through package verify. Every bound below is derived from the number formats and
// the algorithm, not fitted to measured errors.
type ErrorModel int

const (
	// Direct is a sum of rounded float32 products in any order, separable
	// or not: the bound of Tolerance. It is the zero value, and what every
	// variant that declares no model is held to.
	Direct ErrorModel = iota
	// FFT64 is convolution through power-of-two fast Fourier transforms
	// in float64 arithmetic, the result rounded once to float32: the
	// bound of FFTTolerance with u = 2^-53.
	FFT64
	// FFT32 is the same algorithm in float32 arithmetic (a GPU FFT
	// library's single-precision transforms): FFTTolerance with u = 2^-24.
	FFT32
	// TF32 is a direct sum with every image value and weight rounded to
	// nearest TF32 (10 stored mantissa bits, u = 2^-11) before a product
	// accumulated in float32: OperandTolerance with u = 2^-11. A kernel
	// that lets the hardware drop the low bits instead of rounding has
	// twice that error and does not meet the model.
	TF32
	// BF16 is TF32's bound for operands rounded to nearest bfloat16 (7
	// stored mantissa bits, u = 2^-8), accumulated in float32.
	BF16
)

// ErrorModels lists every model.
var ErrorModels = []ErrorModel{Direct, FFT64, FFT32, TF32, BF16}

var errorModelNames = map[ErrorModel]string{
	Direct: "direct", FFT64: "fft64", FFT32: "fft32", TF32: "tf32", BF16: "bf16",
}

func (m ErrorModel) String() string {
	if s, ok := errorModelNames[m]; ok {
		return s
	}
	return fmt.Sprintf("ErrorModel(%d)", int(m))
}

// Valid reports whether m is one of ErrorModels.
func (m ErrorModel) Valid() bool {
	_, ok := errorModelNames[m]
	return ok
}

// IsFFT reports whether m is an FFT model, whose bound depends on the
// norm of the whole bordered input rather than on each output's own taps.
func (m ErrorModel) IsFFT() bool { return m == FFT64 || m == FFT32 }

// OperandRoundoff is the unit roundoff of the operand format of a direct
// model: 0 for Direct (the operands are used as given), 2^-11 for TF32,
// 2^-8 for BF16; 0 for the FFT models.
func (m ErrorModel) OperandRoundoff() float64 {
	switch m {
	case TF32:
		return 0x1p-11
	case BF16:
		return 0x1p-8
	}
	return 0
}

// FFTRoundoff is the unit roundoff of an FFT model's arithmetic: 2^-53
// for FFT64, 2^-24 for FFT32, 0 for the direct models.
func (m ErrorModel) FFTRoundoff() float64 {
	switch m {
	case FFT64:
		return 0x1p-53
	case FFT32:
		return unitRoundoff
	}
	return 0
}

// OperandTolerance is the bound of a direct sum whose operands are first
// rounded to a format of unit roundoff uop (TF32, BF16) and whose products
// are then summed in float32. Each rounded product is
// x(1+a) * w(1+b) = x*w*(1+d) with |a|, |b| <= uop, so |d| <= 2uop + uop^2.
// The exact sum of the rounded products therefore differs from the exact
// result ref by at most (2uop + uop^2) * absSum, and its own sum of
// |terms| is at most (1+uop)^2 * absSum, to which Tolerance's float32
// summation bound applies. The total is that sum of the two; uop = 0
// gives Tolerance itself. The relative rounding bound holds for operands
// in the normal range: TF32 and BF16 keep float32's exponent range, but a
// subnormal operand keeps fewer significant bits (and tensor cores may
// flush it), which this bound does not cover; the property suite's
// subnormal cases show whether a variant stays within it there.
func OperandTolerance(kw, kh int, absSum, ref, uop float64) float64 {
	d := 2*uop + uop*uop
	return Tolerance(kw, kh, (1+d)*absSum, ref) + d*absSum
}

// FFTTerms are the quantities FFTTolerance bounds one output channel by:
// 2-norms of the bordered input channel and of the filter, and the size
// of the transforms.
type FFTTerms struct {
	// InL2 is the 2-norm of one channel of the bordered input: the image
	// extended by KW/2 (left), KW-1-KW/2 (right), KH/2 (top) and
	// KH-1-KH/2 (bottom) pixels, filled through the border mapping (zeros
	// for Zero).
	InL2 float64
	// FilterL2 is the filter's 2-norm.
	FilterL2 float64
	// LogN is log2 of the number of points of the 2-D transform: the sum
	// of log2 of its lengths. FFTLogPoints gives the largest a conforming
	// variant may use.
	LogN int
}

// FFTLogPoints is the LogN of the largest transform an FFT-model variant
// may use for a w x h image and a kw x kh filter: the next power of two
// of w+kw-1 times that of h+kh-1, the smallest transforms whose circular
// convolution of the bordered image equals the linear one. A variant
// that uses smaller transforms (tiles of the image) has a smaller LogN
// and a smaller norm, so the bound of the whole image holds for it too.
func FFTLogPoints(w, h, kw, kh int) int {
	return ceilLog2(w+kw-1) + ceilLog2(h+kh-1)
}

func ceilLog2(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// twiddleError is the bound mu on the error of a computed twiddle factor
// exp(-2 pi i k/n), in units of u: the angle 2*pi*k/n is formed from a
// rounded 2*pi with at most two more roundings (a relative error of 3u on
// an angle below 2*pi, so under 6*pi*u < 19u absolute, and sine and
// cosine have slope at most 1), and the library sine and cosine are each
// within two units in the last place. So mu < 23u; 32u leaves room for a
// library that forms the angle with one more rounding. A transform whose
// twiddles are computed by repeated multiplication does not meet it.
const twiddleError = 32

// FFTTolerance is the largest error of one output of a convolution
// computed through FFTs in arithmetic of unit roundoff u, rounded to
// float32 and compared with ref, the exact result rounded to float32.
//
// The derivation follows the standard error analysis of the Cooley-Tukey
// FFT (Higham, Accuracy and Stability of Numerical Algorithms, chapter
// 24). A power-of-two transform is L = log2 n levels of radix-2
// butterflies (a radix-4 pass counts as two levels: its extra twiddles
// are +-i, exact). Each butterfly a + w*b, with w a twiddle factor known
// to within mu (twiddleError), errs by at most eta times |a| + |b| plus
// the errors of a and b, with eta = mu + gamma_4*(sqrt2 + mu) and
// gamma_k = k*u/(1-k*u). Two bounds follow by induction over the levels,
// with gF = L*eta / (1 - L*eta):
//
//   - normwise (Higham's theorem): the computed unnormalised transform of
//     v errs by at most gF * ||F v||_2 = gF sqrt(n) ||v||_2 in 2-norm;
//   - componentwise: each output is reached from each input along one
//     path of L butterflies, so each computed output errs by at most
//     ((1+eta)^L - 1) sum|v_j| <= gF ||v||_1.
//
// A 2-D transform is the 1-D ones over rows, then columns: one path of
// L = log2 of the whole number of points, so both bounds hold with that L.
//
// With x the bordered input channel zero-padded to n points, w the filter
// likewise, X = Fx and W = Fw unnormalised (||X||_2 = sqrt(n)||x||_2), and
// Bx, Bw the 2-norms of x and w:
//
//  1. forward transforms: X' = X + Ex, W' = W + Ew with
//     ||Ex||_2 <= gF sqrt(n) Bx and ||Ew||_2 <= gF sqrt(n) Bw (normwise);
//  2. pointwise product P' = fl(X' .* W'): a complex product rounds with a
//     relative error of at most sqrt2*gamma_2, so P' - X.*W = X.*Ew +
//     Ex.*W + Ex.*Ew + Em with |Em_j| <= sqrt2*gamma_2 |X'_j||W'_j|; by
//     Cauchy-Schwarz each term's 1-norm is at most the product of two
//     2-norms, so ||P' - X.*W||_1 <= n Bx Bw d with
//     d = 2gF + gF^2 + sqrt2*gamma_2 (1+gF)^2, and
//     ||P'||_1 <= n Bx Bw (1 + d);
//  3. inverse transform and scaling by 1/n (exact for a power of two):
//     the error carried over from step 2 is at most ||P' - X.*W||_1 / n
//     <= Bx Bw d at every output, and the inverse's own rounding at most
//     gF ||P'||_1 / n <= gF Bx Bw (1 + d) (componentwise).
//
// So before its rounding to float32 the output errs by at most
// E = Bx Bw (d + gF (1 + d)). That rounding and the rounding of ref add
// u32 (2|y| + E) (u32 = 2^-24) for the exact result y, with
// |y| <= |ref| / (1 - u32), and the smallest normal float32 is added as in
// Tolerance. The bound grows as u log2(n) times the 2-norms of the
// whole bordered image and of the filter, not with each output's own
// taps: an FFT spreads every input's rounding over every output. A
// variant that transforms tiles of the image has a smaller L and tile
// norms no larger than the image's, so the bound of the whole image holds
// for it.
func FFTTolerance(t FFTTerms, ref, u float64) float64 {
	L := float64(t.LogN)
	g2, g4 := gamma(2, u), gamma(4, u)
	mu := twiddleError * u
	eta := mu + g4*(math.Sqrt2+mu)
	gF := L * eta / (1 - L*eta)
	d := 2*gF + gF*gF + math.Sqrt2*g2*(1+gF)*(1+gF)
	e := t.InL2 * t.FilterL2 * (d + gF*(1+d))
	return e + unitRoundoff*(2*math.Abs(ref)/(1-unitRoundoff)+e) + 0x1p-126
}

// gamma is Higham's gamma_k = k*u / (1 - k*u).
func gamma(k, u float64) float64 { return k * u / (1 - k*u) }

// ModelTolerance is the tolerance of one Filter2D output under a direct
// model (Direct, TF32, BF16): OperandTolerance with the model's operand
// roundoff. It returns an error for an FFT model, whose bound needs the
// norms of FFTTerms (FFTTolerance), and for an unknown model.
func ModelTolerance(m ErrorModel, kw, kh int, absSum, ref float64) (float64, error) {
	if !m.Valid() {
		return 0, fmt.Errorf("convolve: unknown error model %d", int(m))
	}
	if m.IsFFT() {
		return 0, fmt.Errorf("convolve: error model %v bounds an output by the norm of the whole input (FFTTolerance), not by its taps", m)
	}
	return OperandTolerance(kw, kh, absSum, ref, m.OperandRoundoff()), nil
}

// ProblemModel is implemented by a variant whose error model depends on
// the problem: one that picks its path per problem (auto). ModelFor
// returns the model its plan of p under cfg is held to; its
// Capabilities.Accuracy is then the model of what it cannot plan.
type ProblemModel interface {
	ModelFor(p Problem, cfg Config) ErrorModel
}

// ModelOf is the error model v's results for p under cfg are held to:
// Direct for operations other than Filter2D, ModelFor's where v
// implements ProblemModel, else v's declared Capabilities.Accuracy.
func ModelOf(v Variant, p Problem, cfg Config) ErrorModel {
	if p.Op != Filter2D {
		return Direct
	}
	if pm, ok := v.(ProblemModel); ok {
		return pm.ModelFor(p, cfg)
	}
	return v.Describe().Caps.Accuracy
}
