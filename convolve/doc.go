// Package convolve is the problem model of the framework: images, filters,
// border modes, the operations a variant can compute, the Variant interface
// with its registry, error metrics and throughput arithmetic.
//
// Data flows one way. A [Problem] describes what to compute (operation,
// input geometry, filter, border, correlate or convolve). A [Variant] turns a
// problem and a [Config] into a [Plan]: compile, allocate and upload the
// filter once. Running the plan many times is cheap. A [Compare] of the plan's
// output with the reference yields [Metrics]; a [Throughput] turns a measured
// time into MPix/s, GB/s, GFLOP/s and percent of device peaks.
//
// The package imports nothing GPU-related. CPU implementations live in
// refimpl, CUDA ones in cudabind; both register themselves here.
package convolve
