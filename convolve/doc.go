// Package convolve defines the framework's convolution problems and the Variant contract.
//
// A [Problem] describes what to compute: operation, input geometry,
// filter, border, correlate or convolve. A [Variant] turns a problem and a
// [Config] into a [Plan] that runs many times. [Compare] of its output
// with the reference yields [Metrics]; a [Throughput] turns a time into
// rates.
//
// Filters and images may hold NaN and infinities: a variant computes with
// them in IEEE arithmetic over every tap, as the reference does, or
// declares [Capabilities].FiniteInput and is refused them with a
// [NonFiniteError]. A plan refuses an output overlapping its input
// ([ErrOverlap]), fails after Close ([ErrClosed]) and checks its memory
// before allocating ([MemoryError]).
//
// Every variant declares the [ErrorModel] its Filter2D outputs obey in
// [Capabilities].Accuracy, and a tunable family its [TuningSpace] in
// [Capabilities].Space.
//
// The package imports nothing GPU-related. CPU implementations live in
// refimpl, CUDA ones under gpu; both register themselves here.
package convolve
