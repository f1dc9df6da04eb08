// Package refimpl holds the pure-Go CPU implementations of the convolve
// operations. Importing it registers four variants with convolve:
//
//   - "reference": the float64 ground truth. [Expect], [ExpectModel] and
//     [ExpectCrop] return it with the per-element tolerance a correct
//     implementation must meet; package verify is how the suites use them.
//   - "cpu-naive": the reports' CPU baseline: float32, one goroutine, a
//     fixed summation order that GPU kernels compiled with --fmad=false
//     reproduce bit for bit.
//   - "cpu-fast": every core, a separable path for rank-1 filters, borders
//     apart from the interior, and AVX or AVX-512 row sums on amd64 with
//     the same results as the portable loops ([NewFast], [FastPath]).
//   - "cpu-fft": float64 FFT convolution by overlap-save, held to the
//     FFT64 error model; it declares FiniteInput.
//
// All four read outside pixels through convolve.Border.Index and
// correlate with the oriented weights. The first three follow IEEE
// arithmetic over every tap, so NaN and infinities give the reference's
// classes of result. Every plan keeps its own copy of the filter, refuses
// overlapping output, wraps convolve.ErrClosed after Close, and checks the
// host's memory before allocating.
package refimpl
