// Package refimpl holds the pure-Go CPU implementations of the convolve
// operations (Filter2D, SobelMagnitude, RGBToYUV). Importing it registers
// four variants with convolve:
//
//   - "reference": the ground truth in float64. [Expect] returns the
//     reference output and the per-element tolerance a correct float32
//     implementation must meet, [ExpectModel] that of any
//     convolve.ErrorModel, [ExpectCrop] the same for a crop of a larger
//     input; package verify is how the suites use them.
//   - "cpu-naive": the reports' CPU baseline: float32, one goroutine, a
//     fixed summation order that GPU kernels compiled with --fmad=false
//     reproduce bit for bit.
//   - "cpu-fast": every core, a separable path for rank-1 filters, borders
//     apart from the interior, and AVX row sums and row conversions on
//     amd64, the row sums in AVX-512 where the CPU has AVX-512F (portable
//     Go elsewhere, with the same results; [NewFast] makes it on one
//     [FastPath]: portable, vector or vector512). Its plans count the
//     operations each Run executed (RunFLOPs).
//   - "cpu-fft": float64 FFT convolution by overlap-save over power-of-two
//     tiles of the bordered image, held to the FFT64 error model; it
//     declares FiniteInput.
//
// All four read pixels outside the image through convolve.Border.Index and
// correlate with the oriented weights (Filter.Oriented). The first three
// follow IEEE arithmetic over every tap, so NaN and infinities give the
// reference's classes of result. Every plan keeps its own copy of the
// filter, refuses overlapping output, returns an error wrapping
// convolve.ErrClosed after Close, and checks the host's memory before
// allocating.
package refimpl
