// Package benchmarks holds the framework's benchmark sweeps.
//
// The experiments of the five source reports are presets of benchmark
// cases, each case a sub-benchmark of BenchmarkConv whose name carries
// every sweep key (variant, size, filter, k, block, border, type, ch,
// layout, cache, timing, mem, opts, tune where a case sets a variant's
// tunable, and gpus where it names its devices), so that benchstat can
// compare along any of them. A GPU case that sets no tunable runs with its
// GPU's tuning table (tables/tuning), or its family's defaults where the
// table has no entry; tune=untuned asks for the defaults (preset
// tuned-vs-default times both). The first progress note of such a case
// names the block and tunables and where they came from ("config:
// block=64x4 rx=4,ry=8, tuned (...)"), and the run's configuration line
// "tuning:" names the table (and the CONVBENCH_TUNING that chose it) or
// says the defaults were used. The line "crossover:" names, the same way,
// the crossover table the auto variant's cases choose their paths from
// (tables/crossover, CONVBENCH_CROSSOVER), or says auto took its
// heuristic.
//
// Every case is gated: the plan's output is checked against the float64
// reference once before any timing, and a wrong variant fails instead of
// being timed. A case its variant refuses as unsupported when it is
// planned (a *convolve.CapabilityError from convolve.PlanFor, such as a
// stream variant's image whose rows do not fit under its cap) is skipped
// with the reason, in a "# unsupported <case>: <reason>" line of the
// output (runfile.UnsupportedLine); any other plan error fails it. In sweeps over compile options (002-exactness) the gate
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
// the device's measured copy bandwidth and FP32 peak and, where NVML's
// energy counter measured them (see Energy below), the energy of one run
// (mJ/op) and the work per joule (GFLOP/J). CPU cases report
// their percentage of the CPU's measured copy bandwidth (%copy-bw) and,
// for plans that count the operations they execute (FLOPCounter, as
// cpu-fast does), that rate (exec-GFLOP/s) and its percentage of the
// cores' measured FMA peak (%peak-fma; MeasureCPU).
//
// Multi-device cases (the gpu-slab variants of package gpu/gpuslab,
// preset 004-multigpu) name their devices with the gpus axis (-gpus:
// "0", "0,0" for two logical devices of GPU 0, "all") and cap their slab
// buffers with -mem-cap. Their kernel time is resident filtering (the
// slabs' kernels and halo exchange); their total-time lines carry the
// host-copy bound of the run (copy-bound-ns/op, %copy-bound; hostCopyBound,
// from the pinned gpu-h2d-gbps, gpu-d2h-gbps and gpu-bidir-gbps the run
// measures at its start) and, after their gpus=0 counterpart, the scaling efficiency
// T1 / (N x TN) (scaling-eff). The run's output starts with the timeline
// of one overlapped run (timelineCase, WriteTimeline).
//
// Before the results of a case whose plan says how it was set up (a
// convolve.TunedPlan: the GPU families, the peers, auto), the output has a
// "# setting <case>: config: <block and tunables>, <where they came
// from>" line (Runner.Settings), auto's chosen path among them.
//
// # Plan cost: cold and warm plans
//
// The framework's own cost is measured by plan-timing cases
// (planTiming, timing=plan; -timing plan,plan-cold): each sample makes
// plans of the case's variant, problem and configuration with
// convolve.PlanFor and times them, Close excluded (each plan is closed
// after its time is taken). For them the cache key names the compile
// cache. A cold case (cache=cold, -timing plan-cold) makes every plan with
// the memory and disk compile caches bypassed
// (cudabind.BypassCompileCache, which nothing else uses), so that NVRTC
// compiles the plan's kernels each time, one plan a sample; a warm case
// (cache=hot, -timing plan) makes plans whose kernels the caches hold,
// in batches like kernel samples. The compile cache's counters
// (cudabind.ReadCacheStats) around every plan prove which it was: a cold
// plan that hits a cache, or a warm one that compiles, fails the case,
// and a cold case whose plan compiles nothing with NVRTC (the cuDNN
// peers) is skipped with that reason. A line reports the plan's median
// time as ns/op, compiles/op and cache-hits/op, its spread and samples;
// the clock guard does not watch it (a plan is the host's work, and the
// idle GPU's clock drops). Preset plan times a cold and a warm plan of
// every GPU family that compiles with NVRTC; the default preset times
// gpu-regtile's, two cases. The report's
// section "Plan cost" sets the cold medians against the goal, a cold plan
// of any variant within 200 ms.
//
// # Sampling: stop by noise
//
// Each result line is one sample set of its case, in standard Go
// benchmark format (its iteration count is 1: the binary runs with
// -test.benchtime=1x, and replaces any other benchtime given). A sample
// times a batch of runs that lasts at least -sample-time (1ms; the batch
// size is found once per case), or, for cold cases, one run after an L2
// flush. Samples are taken until the spread of their median is at most
// -noise percent (default 1) or -max-time (default 2s) has passed. The
// spread is the relative half-width of the median's 95% confidence
// interval, 100 * max(hi/m - 1, 1 - lo/m), with [lo, hi] from order
// statistics (benchmath.AssumeNothing, the "± x%" of benchstat); it is
// tested from -min-samples (10) samples on and exists from 6, and the
// time limit never ends a line with fewer than 6. The 1% target holds for
// medians of -noise-floor (50us) or more; below it the target is the same
// absolute width, 1% of 50us = 0.5us, so a 5us kernel stops at 10%
// (event timer resolution is about 0.5us). A line whose median is below
// the floor samples for at least -min-time (100ms) before its spread may
// stop it, and every case's first line follows -warm-up (200ms) of its
// runs, timed and discarded: ten samples of such a case would span only
// about 12ms, one state of the host's launch rate and clock, so that
// lines taken apart would disagree beyond their intervals (see Noise).
// The line's values are medians
// of its samples: ns/op the host's time per run, gpu-ns/op or
// total-ns/op the case's; median-ci95-% is the spread reached and
// samples the count. Progress on stderr has a note per line: samples,
// median, spread and target, what stopped it.
//
// # Throttle guard
//
// On a GPU host the SM clock is read through NVML (cudabind.OpenNVML,
// libnvidia-ml.so.1 loaded at run time) before and after every sample of a
// GPU case. A sample whose lower reading is under 90% of the maximum
// (boost) SM clock is discarded and taken again, at most -max-retakes
// (100) times per line; later throttled samples are kept. Each GPU line
// reports throttled-samples (discarded), throttled-kept, and the SM clock
// (sm-mhz-start, sm-mhz-end), power (power-w-*) and temperature
// (temp-c-*) before its first and after its last sample, where NVML
// reports them, and gpu-other-procs, the most processes other than its
// own that held a compute context on the GPU then, where there were any;
// a measured line gives gpu-max-sm-mhz, a configuration line the rule.
// Without a GPU or NVML the guard is off, one clock-guard configuration
// line says why, and no clock is reported.
//
// # Energy
//
// On a GPU whose driver has NVML's energy counter (Volta and later;
// cudabind.NVMLDevice.EnergyMJ, millijoules since the driver loaded),
// the energy meter (EnergyMeter) reads it just before and just after the
// timed runs of every sample of a GPU case on device 0, outside the
// clock guard's readings and a cold case's L2 flush. A line's energy is
// the counter's advance over its metered runs divided by their number:
// mJ/op, the mean energy the whole board drew per run while the runs
// were timed, idle time between launches included; GFLOP/J is the line's
// 2·KW·KH FLOP an output over it (not for RGB->YUV, which has no
// GFLOP/s).
//
// The counter steps at the driver's updates, every ten milliseconds or so,
// so a short span is mostly rounding: a line's energy is measured over at
// least 100 ms of timed runs (MinSpan: defaultEnergyMinSpan, or ten update
// periods where the counter updates more slowly, measured when the meter
// opens). Where the line's kept samples (throttled ones discarded by the
// guard left out) span that much, the metered runs are theirs. Where they
// span less, as ten samples of about a millisecond of a fast kernel do,
// the runner times an energy phase after them (EnergyMeter.Phase): more of
// the line's runs, timed as its samples were (kernel launches, graph
// replays or whole runs) in batches of the case's batch size, as many as
// the line's ns/op (its median wall time of a run, the time the counter's
// span measures) puts at a tenth past MinSpan, 110 ms, and more batches
// where those ran faster and span less than MinSpan, with one reading of
// the counter before and one after; the line's energy is the phase's, its
// runs counted exactly. The phase stops early, after the batch then
// running, once it has lasted twice MinSpan (runs much slower than the
// samples' median: the energy is then that of the runs done, over more
// than MinSpan), and never times more than 2^24 runs (which binds only on
// a ns/op under 7 ns; the phase then reports no energy if its runs span
// less than MinSpan).
//
// Where the meter measured the counter's update period when it opened
// (EnergyMeter.Period; NVML on Hopper updates about every 100 ms, so
// MinSpan is about a second there), the phase is aligned to the updates
// instead: a goroutine reads the counter every 100 us beside the runs
// and dates each advance, while the runs go on in batches of about a
// tenth of a period until it has seen one advance and another at least
// three periods later (rounded up to 50 ms, at least 100 ms). The line's
// energy is the power between those two updates times the wall time of
// one of the runs timed wholly between them. A reading at an arbitrary
// moment lags by up to a period, and one taken between batches would
// leave the GPU idle while NVML answers; a reader beside the runs does
// neither. Such a phase takes three to five periods, about 0.45 s on
// Hopper, where the unaligned one takes over a second.
//
// The samples alone give the line's times, spread and stop, and the clock
// guard watches them alone. The aligned phase's length depends on the
// period the binary measures when its meter opens, which the sweep's first
// estimate does not know: it assumes a counter that updates every 100 ms,
// as Hopper's does (NominalEnergyMeter: lines whose samples span under a
// second add about 0.4 s), and its running ETA, scaled by the cases done,
// takes in the real one. A cold case's energy
// is its samples' (the flushes left out, and no phase, which would have to
// flush too), so its lines carry energy only where their runs alone span
// MinSpan; plan-timing lines (the host's work) and lines of cases on other
// GPUs (whose energy device 0's counter does not see) carry none. A line
// whose metered runs span too little, over which the counter did not
// advance or whose reading failed carries no energy either; a progress
// note names each such rule the first time, with the line's numbers. The
// configuration line gpu-energy, written where the run has a GPU, says
// how energy is measured and which lines carry it, or why none does (no
// NVML, no counter); the
// first GPU line's progress note gives the counter's measured update
// period, and each line's note the energy a run and what it was measured
// over.
//
// # Presets and axis flags
//
// A preset is a named set of sweeps, each the cross product of its axes
// (Axes): variants, sizes, filters, types, channels, layouts, borders,
// modes, blocks, timing, mem, and an input image. The axis flags
// (AxisFlags: -variants, -sizes, -filters, -types, -channels, -layouts,
// -borders, -modes, -blocks, -timing, -mem, -image) replace the axes of
// the -sweep preset given beside them, or, without -sweep, make the sweep
// alone, with unset axes at their defaults (BuildSweep). Filters include
// dense<K> (convolve.Dense) and weights files (readWeights); a library
// filter's cases carry its canonical name (convolve.FilterSpec) however
// -filters spells it. -image runs every case on a user's image
// (loadImage). A bad value is an error that lists the valid ones. -list prints a table of the variants of each family with
// their capabilities, and every preset with its axes (WriteList). Case names keep their keys: a
// convolve-mode case has filter=<filter>@convolve, a case on an image
// size=WxH@<image name>.
//
// # User kernels
//
// -kernel FILE (repeatable; RegisterKernelFlag, loadKernel) adds a user's
// CUDA source with its description (package gpu/userkernel) as a GPU
// variant, applied before the other flags (ParseKernelFlags) so that
// -variants can name it. Before any case is timed, the binary runs the
// property suite on every user kernel that has cases, in a child run of
// itself (ProveKernels: the test TestUserKernels, which calls
// convtest.TestVariant); a kernel the suite does not pass is refused: a
// comment line says why, with the failed properties, and each of its
// cases fails with that reason instead of being timed. Each kernel is
// proved in a child run of its own, stopped at its first failed
// property, so that a kernel that faults (a sticky CUDA error: refused
// as a crash) or hangs (killed after -prove-timeout, default
// DefaultProveTimeout: refused as a hang) fails alone. The output names
// each kernel's file and the SHA-256 of its source.
//
// # A variant of another module
//
// BenchmarkVariant times one variant, such as one written in a module of
// its own, on a small sweep of two sizes, three filters and two element
// types within its capabilities, in that module's own go test -bench run:
// each case is gated as the sweeps' are and named as they are (a
// benchmark function named BenchmarkConv, run with -cpu 1, writes lines
// named as a sweep's), and b.N is the testing package's. Such a module's
// test binary takes testing's flags and those of package convtest
// (-convtest.seed, -convtest.n, -convtest.case, -convtest.time,
// -convtest.shrink-time); the flags named in this documentation
// (-sweep, the axis flags, -noise, -max-time and the others of the
// sampling) are those of this package's own test binary, as the commands
// below give them, and of benchmarks/cmd/sweep.
//
// Run a preset, or a sweep of your own, with
//
//	go test ./benchmarks -run '^$' -bench . -cpu 1 -count 6 -args -sweep=000-image-size
//	go test ./benchmarks -run '^$' -bench . -cpu 1 -args -variants gpu-regtile -timing plan,plan-cold
//	go test ./benchmarks -run '^$' -bench . -cpu 1 -args -variants cpu-fast -sizes 640x480 -filters gauss9,dense9
//	go test ./benchmarks -run '^$' -bench . -cpu 1 -args -kernel $PWD/my.cu -variants 'user-.*|gpu-tiled'
//
// or through benchmarks/cmd/sweep, which also stores the output under
// results/local/data (or results/data with -publish). Progress goes to
// stderr. A -bench or -test.skip pattern that names some of the sweep's
// cases (-bench 'Conv/variant=gpu-fft/size=4096x4096/') runs those alone:
// the progress counts them, and only their kernels are compiled ahead.
// Runs pair across ages and hosts through runfile.PairingName
// (benchmarks/cmd/compare, make compare).
package benchmarks
