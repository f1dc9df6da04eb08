// Package refimpl holds the pure-Go CPU implementations of the convolve
// operations (Filter2D, SobelMagnitude, RGBToYUV). Importing it registers
// four variants with convolve:
//
//   - "reference": the ground truth. [Expect] accumulates every output in
//     float64 and returns, beside the reference output, a per-element
//     tolerance that a correct float32 implementation must meet;
//     [ExpectModel] returns the tolerance of any convolve.ErrorModel, the
//     one a variant declares in Capabilities.Accuracy, and [ExpectCrop]
//     the same for a crop of a larger input. Package verify is how the
//     property suite, the benchmarks and the tuner use them.
//   - "cpu-naive": the reports' CPU baseline (report 000): float32, one
//     goroutine, four nested loops per channel in a fixed summation order
//     that GPU kernels compiled with --fmad=false reproduce bit for bit.
//   - "cpu-fast": report 004's "CPU fast": every core, a separable path for
//     rank-1 filters, borders handled apart from the interior, and the
//     row sums and the conversion of uint8 and int16 rows to float32 in
//     AVX assembly on amd64 where the CPU has it, the row sums in AVX-512
//     where it has AVX-512F (chosen at start-up; the portable Go loops
//     elsewhere, with the same results). [NewFast] makes cpu-fast on one
//     [FastPath], portable, vector or vector512, whatever the CPU prefers:
//     the package's tests run convtest's property suite on each. Its plans
//     count the floating-point operations each Run executed (RunFLOPs: a
//     separable filter's two passes, not 2*KW*KH an output), which the
//     benchmarks report as exec-GFLOP/s.
//   - "cpu-fft": Filter2D through float64 FFTs on every core, by
//     overlap-save over power-of-two tiles of about four filter sides: the
//     bordered image (the image extended by the filter's reach, each
//     outside pixel read through the border mapping, zeros for Zero) is
//     cut into tiles, each transformed, multiplied by the filter's
//     spectrum (computed once per plan) and transformed back, so its time
//     barely grows with K. It declares the FFT64 error model
//     (convolve.FFTTolerance) and FiniteInput. BenchmarkFFTCrossover times
//     it beside cpu-fast on dense filters.
//
// A GPU FFT variant (cuFFT, loaded at run time through cudabind/dl like
// the driver) reuses both halves of cpu-fft's design: it fills the padding
// of each transform from the border mapping exactly as cpu-fft builds its
// bordered image, so every border mode is one fill rule, and it declares
// FFT32 (the same bound with float32's u = 2^-24), so that ExpectModel,
// the property suite and the benchmarks' gate check it without new code.
//
// All four read pixels outside the image through convolve.Border.Index,
// the one index-mapping function of the project, and apply the filter by
// correlation with the oriented weights (Filter.Oriented), so correlate and
// convolve share every loop.
//
// The first three follow IEEE arithmetic over every tap, zero weights and the
// Zero border's outside taps (terms w*0) included, so NaN and infinite
// pixels and weights give the same class of result in each (see Expect);
// none of them declares convolve.Capabilities.FiniteInput. cpu-fft does: a
// transform spreads a NaN or infinity over its whole tile.
//
// Every plan keeps its own copy of the filter, refuses an output whose
// data overlaps the input's (convolve.CheckNoOverlap), returns an error
// wrapping convolve.ErrClosed when used or closed again after Close, and
// checks before allocating that the host has the memory its buffers need
// (convolve.CheckHostMemory).
package refimpl
