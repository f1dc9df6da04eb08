// Package verify checks a computed output against the float64 reference.
//
// The property suite (convtest), the benchmarks' correctness gate and the
// tuner all take their reference and tolerances from here, so a variant
// is held to the same bound wherever it is checked: refimpl's reference
// and tolerances under the error model the variant declares
// (convolve.ModelOf), compared by class as convolve.Compare does.
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
// holds some outputs' pixels and their filter's reach, with whole the
// larger input's Terms (refimpl.ExpectCrop). Such an output's reference
// and tolerance are the ones the larger input gives it under every
// model: an FFT model's tolerance is computed from whole, since a
// transform spreads every input's rounding over every output. nil whole
// means crop's own terms: Reference of crop.
func CropReference(p convolve.Problem, crop *convolve.Image, m convolve.ErrorModel, whole []convolve.FFTTerms) (ref, tol *convolve.Image, err error) {
	return refimpl.ExpectCrop(p, crop, m, whole)
}

// Output compares out, the output v computed for p from in under cfg,
// with the reference within the tolerance of v's error model there
// (convolve.ModelOf), by convolve.Compare's rules. Metrics.OK reports
// whether it passed; the error is for a problem, input or output the
// reference cannot be computed or compared for.
func Output(v convolve.Variant, p convolve.Problem, cfg convolve.Config, in, out *convolve.Image) (convolve.Metrics, error) {
	ref, tol, err := Reference(p, in, convolve.ModelOf(v, p, cfg))
	if err != nil {
		return convolve.Metrics{}, fmt.Errorf("verify: reference of %v: %w", p, err)
	}
	return convolve.Compare(out, ref, tol)
}
