package convolve

import (
	"fmt"
	"math"
	"math/bits"
)

// ErrorModel is the accuracy a variant declares for Filter2D
// (Capabilities.Accuracy): the arithmetic and algorithm its error bound is
// derived from. refimpl.ExpectModel turns it into a tolerance for every
// output element. The bounds are derived, not fitted to measured errors.
type ErrorModel int

const (
	// Direct is a sum of rounded float32 products in any order, separable
	// or not (Tolerance); the zero value.
	Direct ErrorModel = iota
	// FFT64 is convolution through power-of-two FFTs in float64, rounded
	// once to float32: FFTTolerance with u = 2^-53.
	FFT64
	// FFT32 is the same in float32 arithmetic: FFTTolerance with u = 2^-24.
	FFT32
	// TF32 is a direct sum over image values and weights rounded to
	// nearest TF32 (u = 2^-11), accumulated in float32: OperandTolerance.
	// Truncating the operands instead of rounding does not meet it.
	TF32
	// BF16 is TF32's bound for operands rounded to nearest bfloat16
	// (u = 2^-8).
	BF16
)

// ErrorModels lists every model.
var ErrorModels = []ErrorModel{Direct, FFT64, FFT32, TF32, BF16}

func (m ErrorModel) String() string {
	return enumString("ErrorModel", m, "direct", "fft64", "fft32", "tf32", "bf16")
}

// Valid reports whether m is one of ErrorModels.
func (m ErrorModel) Valid() bool { return m >= Direct && m <= BF16 }

// IsFFT reports whether m is an FFT model, whose bound depends on the
// norm of the whole bordered input rather than on each output's own taps.
func (m ErrorModel) IsFFT() bool { return m == FFT64 || m == FFT32 }

// OperandRoundoff is the unit roundoff of a direct model's operand
// format: 2^-11 for TF32, 2^-8 for BF16, 0 for the others.
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
// rounded to a format of unit roundoff uop, the products summed in
// float32. Each rounded product is x*w*(1+d) with |d| <= 2uop + uop^2, so
// the exact sum of the rounded products is within d*absSum of ref, and
// Tolerance applies to its sum of |terms|, at most (1+d)*absSum. uop = 0
// gives Tolerance. The bound holds for operands in the normal range.
func OperandTolerance(kw, kh int, absSum, ref, uop float64) float64 {
	d := 2*uop + uop*uop
	return Tolerance(kw, kh, (1+d)*absSum, ref) + d*absSum
}

// FFTTerms are the quantities FFTTolerance bounds one output channel by.
type FFTTerms struct {
	// InL2 is the 2-norm of one channel of the input bordered by KW/2
	// (left), KW-1-KW/2 (right), KH/2 (top) and KH-1-KH/2 (bottom)
	// pixels through the border mapping (zeros for Zero).
	InL2 float64
	// FilterL2 is the filter's 2-norm.
	FilterL2 float64
	// LogN is log2 of the number of points of the 2-D transform
	// (FFTLogPoints gives the largest allowed).
	LogN int
}

// FFTLogPoints is the LogN of the largest transform an FFT-model variant
// may use for a w x h image and a kw x kh filter: the next power of two
// of w+kw-1 times that of h+kh-1. Tiles of the image have smaller
// transforms and norms, so the bound of the whole image holds for them.
func FFTLogPoints(w, h, kw, kh int) int {
	return ceilLog2(w+kw-1) + ceilLog2(h+kh-1)
}

func ceilLog2(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// twiddleError bounds the error of a computed twiddle factor in units of
// u: the angle from a rounded 2*pi with two more roundings (under 19u)
// plus sine and cosine within 2 ulp give under 23u; 32u leaves room for
// one more rounding. Twiddles from repeated multiplication do not meet it.
const twiddleError = 32

// FFTTolerance is the largest error of one output of a convolution
// computed through FFTs in arithmetic of unit roundoff u, rounded to
// float32 and compared with ref, the exact result rounded to float32.
//
// It follows Higham's analysis of the Cooley-Tukey FFT (Accuracy and
// Stability of Numerical Algorithms, ch. 24): a transform of n points is
// L = log2 n levels of radix-2 butterflies, each erring by eta =
// mu + gamma_4*(sqrt2 + mu), mu = twiddleError*u; with gF = L*eta/(1-L*eta)
// the transform errs by gF*sqrt(n)*||v||_2 in 2-norm and by gF*||v||_1 in
// each output. With Bx, Bw the 2-norms of the bordered input and the
// filter, the forward transforms, the pointwise product (relative error
// sqrt2*gamma_2, by Cauchy-Schwarz) and the inverse give, before the
// rounding to float32, E = Bx*Bw*(d + gF*(1+d)) with d = 2gF + gF^2 +
// sqrt2*gamma_2*(1+gF)^2. The two roundings to float32 add
// u32*(2|y| + E), and the smallest normal float32 is added as in
// Tolerance.
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
// model: OperandTolerance with its operand roundoff. It returns an error
// for an FFT model (see FFTTolerance) and for an unknown model.
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
// the problem (auto): ModelFor returns the model its plan of p under cfg
// is held to.
type ProblemModel interface {
	ModelFor(p Problem, cfg Config) ErrorModel
}

// ModelOf is the error model v's results for p under cfg are held to:
// Direct for operations other than Filter2D, else ModelFor's where v is a
// ProblemModel, else v's Capabilities.Accuracy.
func ModelOf(v Variant, p Problem, cfg Config) ErrorModel {
	if p.Op != Filter2D {
		return Direct
	}
	if pm, ok := v.(ProblemModel); ok {
		return pm.ModelFor(p, cfg)
	}
	return v.Describe().Caps.Accuracy
}
