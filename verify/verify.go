// Package verify checks a computed output against the float64 reference.
//
// The property suite (convtest), the benchmarks' correctness gate and the
// tuner all take their reference and tolerances from here, so a variant
// is held to the same bound wherever it is checked:
//
//   - the reference and each element's tolerance come from refimpl
//     (Reference), under the error model the variant declares
//     (convolve.ErrorModel, convolve.ModelOf): the direct bound of
//     convolve.OperandTolerance for Direct, TF32 and BF16, and
//     convolve.FFTTolerance for FFT64 and FFT32;
//   - outputs are compared element by element by class, as
//     convolve.Compare does: finite elements within their tolerance, NaN
//     against NaN, +Inf against +Inf, -Inf against -Inf (Output);
//   - a part of an output can be checked from a crop of the input
//     (CropReference), with every element's tolerance the one the whole
//     input gives it, under an FFT model too.
package verify

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/refimpl"
)

// Reference returns the exact output of p on in, rounded to the output
// type, and the tolerance of each of its elements under the error model
// m (refimpl.ExpectModel). An operation other than Filter2D has only the
// Direct model.
func Reference(p convolve.Problem, in *convolve.Image, m convolve.ErrorModel) (ref, tol *convolve.Image, err error) {
	return refimpl.ExpectModel(p, in, m)
}

// Terms returns the norms of each channel of in that an FFT model's
// tolerance of p's outputs depends on (refimpl.FFTTerms).
func Terms(p convolve.Problem, in *convolve.Image) ([]convolve.FFTTerms, error) {
	return refimpl.FFTTerms(p, in)
}

// CropReference is Reference for crop, a part of a larger input that
// holds some outputs' pixels and their filter's reach (read through the
// border mapping where it leaves the larger input), with whole the
// larger input's Terms. The reference of such an output is the one the
// larger input gives, since it sums the same taps in the same order, and
// so is its tolerance under every model:
//
//   - under Direct, TF32 and BF16 a tolerance depends on the output's
//     own taps alone;
//   - under FFT64 and FFT32 it depends on the norms of the whole bordered
//     input (a transform spreads every input's rounding over every
//     output), so it is computed from whole, not from the crop's norms.
//
// An FFT tolerance is computed from the element's float64 sum, as for
// the whole input, never from the float32 reference enlarged by its
// rounding: convolve.FFTTolerance already allows for that rounding
// (|y| <= |ref| / (1 - u)), so the enlargement would count it twice and
// give a window another bound than the whole output. nil whole means
// crop's own terms: Reference of crop.
func CropReference(p convolve.Problem, crop *convolve.Image, m convolve.ErrorModel, whole []convolve.FFTTerms) (ref, tol *convolve.Image, err error) {
	return refimpl.ExpectCrop(p, crop, m, whole)
}

// Output compares out, the output v computed for p from in under cfg,
// with the reference within the tolerance of the error model v's output
// is held to there (convolve.ModelOf), by convolve.Compare's rules.
// Metrics.OK reports whether it passed; the error is for a problem,
// input or output the reference cannot be computed or compared for.
func Output(v convolve.Variant, p convolve.Problem, cfg convolve.Config, in, out *convolve.Image) (convolve.Metrics, error) {
	ref, tol, err := Reference(p, in, convolve.ModelOf(v, p, cfg))
	if err != nil {
		return convolve.Metrics{}, fmt.Errorf("verify: reference of %v: %w", p, err)
	}
	return convolve.Compare(out, ref, tol)
}
