// Package convolve defines the framework's convolution problems and the Variant contract.
//
// It holds images, filters, border modes, the operations a variant can
// compute, the Variant interface with its registry, error metrics and
// throughput arithmetic.
//
// Data flows one way. A [Problem] describes what to compute (operation,
// input geometry, filter, border, correlate or convolve). A [Variant] turns a
// problem and a [Config] into a [Plan]: compile, allocate and upload the
// filter once. Running the plan many times is cheap. A [Compare] of the plan's
// output with the reference yields [Metrics]; a [Throughput] turns a measured
// time into MPix/s, GB/s, GFLOP/s and percent of device peaks.
//
// Non-finite values are part of the model: filters may hold NaN and
// infinite weights and images NaN and infinite pixels. A variant computes
// with them in IEEE arithmetic over every tap (0 x Inf = NaN; a Zero
// border tap outside the image is a term w*0), as the reference does, or
// declares [Capabilities].FiniteInput and is refused them with a
// [NonFiniteError]. [Compare] matches non-finite elements by class.
//
// A plan keeps its own copy of the filter; its Run refuses an output
// overlapping the input ([ErrOverlap]), and after Close every method and a
// second Close return errors wrapping [ErrClosed]. Plans check the host
// or device memory they need before allocating ([MemoryError]).
//
// Every variant declares the accuracy its Filter2D outputs obey as an
// [ErrorModel] in [Capabilities].Accuracy: [Direct] (float32 direct sums,
// [Tolerance]; the zero value), [TF32] and [BF16] (the same sums over
// operands rounded to those formats, [OperandTolerance]), and [FFT64] and
// [FFT32] (convolution through power-of-two FFTs, [FFTTolerance], whose
// bound grows with log2 of the transform's points and the 2-norms of the
// whole bordered image). Each bound is derived from the formats and the
// algorithm beside its code. The reference computes the tolerance of a
// model for every output, and the property suite and the benchmarks'
// gate hold each variant to its own model.
//
// A tunable kernel family declares its [TuningSpace] in
// [Capabilities].Space: block shapes, tunables with their values, the
// restriction of a point by the problem and the [DeviceLimits], and the
// heuristic [Setting] a plan falls back to. Package tune searches it;
// plans that report their setting implement [TunedPlan].
//
// The package imports nothing GPU-related. CPU implementations live in
// refimpl, CUDA ones under gpu; both register themselves here.
package convolve
