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
//     rank-1 filters, and borders handled apart from the interior.
//
// All three read pixels outside the image through convolve.Border.Index,
// the one index-mapping function of the project, and apply the filter by
// correlation with the oriented weights (Filter.Oriented), so correlate and
// convolve share every loop. The float32 variants refuse to run in place
// (output data sharing the input's array).
package refimpl
