// Package benchmarks holds the testing.B sweeps of the framework: the
// experiments of the five source reports as presets of benchmark cases,
// each case a sub-benchmark of BenchmarkConv whose name carries every
// sweep key (variant, size, filter, k, block, border, type, ch, layout,
// cache, timing, mem, opts, and tune where a case sets a variant's
// tunable), so that benchstat can compare along any of them.
//
// Every case is gated: the plan's output is checked against the float64
// reference once before any timing, and a wrong variant fails instead of
// being timed. In sweeps over compile options (002-exactness) the gate
// also records, as the max-ulp metric, the largest distance in float32
// ULPs between the output and cpu-naive's; kernels that sum in
// cpu-naive's order and are compiled with --fmad=false (opts=nofma) must
// bring it to 0. GPU kernel time comes from CUDA events over b.N
// launches from the host (timing=kernel, gpu-ns/op), or over b.N runs
// replayed from CUDA graphs (timing=kernel-graph, gpu-ns/op), which keeps
// the host's launch rate out of the time of kernels shorter than one
// launch; preset launch-overhead measures both side by side. Pipeline
// cases time upload, kernel and download (total-ns/op); every case
// reports MPix/s, GB/s and GFLOP/s, and GPU cases their percentage of
// the device's measured copy bandwidth and FP32 peak.
//
// Run a preset with
//
//	go test ./benchmarks -run '^$' -bench . -cpu 1 -count 5 -args -sweep=000-image-size
//
// or through benchmarks/cmd/sweep, which also stores the output under
// results/data. Progress goes to stderr.
package benchmarks
