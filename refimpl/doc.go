// Package refimpl holds the pure-Go CPU implementations of the convolve
// operations (Filter2D, SobelMagnitude, RGBToYUV). Importing it registers
// three variants with convolve:
//
//   - "reference": the ground truth. [Expect] accumulates every output in
//     float64 and returns, beside the reference output, a per-element
//     tolerance that a correct float32 implementation must meet.
//   - "cpu-naive": the reports' CPU baseline (report 000): float32, one
//     goroutine, four nested loops per channel in a fixed summation order
//     that GPU kernels compiled with --fmad=false reproduce bit for bit.
//   - "cpu-fast": report 004's "CPU fast": every core, a separable path for
//     rank-1 filters, borders handled apart from the interior, and the
//     row sums and the conversion of uint8 and int16 rows to float32 in
//     AVX assembly on amd64 where the CPU has it (the portable Go loops
//     elsewhere, with the same results). [NewFast] makes cpu-fast
//     on one [FastPath], portable or vector, whatever the CPU prefers: the
//     package's tests run convtest's property suite on each. Its plans
//     count the floating-point operations each Run executed (RunFLOPs: a
//     separable filter's two passes, not 2*KW*KH an output), which the
//     benchmarks report as exec-GFLOP/s.
//
// All three read pixels outside the image through convolve.Border.Index,
// the one index-mapping function of the project, and apply the filter by
// correlation with the oriented weights (Filter.Oriented), so correlate and
// convolve share every loop.
//
// All three follow IEEE arithmetic over every tap, zero weights and the
// Zero border's outside taps (terms w*0) included, so NaN and infinite
// pixels and weights give the same class of result in each (see Expect);
// none declares convolve.Capabilities.FiniteInput.
//
// Every plan keeps its own copy of the filter, refuses an output whose
// data overlaps the input's (convolve.CheckNoOverlap), returns an error
// wrapping convolve.ErrClosed when used or closed again after Close, and
// checks before allocating that the host has the memory its buffers need
// (convolve.CheckHostMemory).
package refimpl
