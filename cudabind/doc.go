// Package cudabind is the framework's CUDA runtime in pure Go.
//
// It provides devices, the executor thread, contexts, memory, streams,
// events, modules, launches, textures and CUDA graphs, over the driver API
// (libcuda.so.1) opened at run time with purego, so the module builds with
// CGO_ENABLED=0 and no CUDA toolkit, and its tests pass on machines
// without a GPU.
//
// # Packages
//
// The CUDA layer is split by job:
//
//   - cudabind/dl opens shared libraries and binds their C functions to
//     typed Go function values from a table, versioned names first,
//     optional symbols allowed; the driver, NVRTC, NVML and NPP bindings
//     all use it.
//   - cudabind/driver is the typed binding of the driver API: the
//     driver.Driver interface this package calls, and driver.Load for the
//     real library. cudabind/driver/fakedriver implements the interface in
//     Go memory, with injected failures, for tests without a GPU
//     ([OpenDriver] opens a device on it).
//   - cudabind/nvrtc compiles CUDA C++ with NVRTC and caches the results
//     in memory and on disk; this package re-exports its API ([Source],
//     [CompileOptions], [CompileOnly], [Compiled], [CompileError], ...).
//   - cudabind/nvml reads SM clocks, power, temperature and the energy
//     counter (Volta and later, an optional symbol) through NVML;
//     re-exported here ([OpenNVML], [NVMLDevice]).
//   - cudabind/cudaerr holds [Error] and [UnavailableError], re-exported
//     here.
//   - cudabind/devfacts measures what only benchmarks need: copy
//     bandwidth, FP32 peak, L2 flush.
//
// # Loading
//
// Nothing is loaded in init. The driver is opened on the first call that
// needs it (Default, Open, Devices, DriverVersion): libcuda.so.1, or the
// path in CONVBENCH_LIBCUDA. NVRTC is opened on the first compilation:
// the path in CONVBENCH_NVRTC, then libnvrtc.so, libnvrtc.so.13, .12,
// .11.2 and .11 ([NVRTCSearchList]). A missing library, a missing symbol
// or a driver without devices is an [*UnavailableError] whose one-line
// message GPU tests use to skip. The first result is cached per process.
// NVML (libnvidia-ml.so.1, or CONVBENCH_LIBNVML) is opened the same way by
// [OpenNVML], for the SM clock, power, temperature and energy counter of
// a device.
//
// # Threads
//
// A CUDA context is current per OS thread and Go moves goroutines between
// threads. A [Device] therefore owns one executor goroutine, locked with
// runtime.LockOSThread, on which the device's retained primary context is
// current. [Device.Do] hands it a function that receives an [*Exec]: the
// raw operations (allocation, copies, memsets, streams, events, launches,
// textures, stream capture into CUDA graphs and their replay) with no
// further hand-off. A timed section (record, launch b.N times, record,
// elapsed) belongs in one Do so that no goroutine switch lands inside the
// measurement; where one host launch takes longer than the kernel, replay
// launches captured once ([Exec.Capture], [Exec.LaunchGraph]) instead. Do
// is re-entrant: called from inside a Do function (directly or through
// Module.Function, Function.Attributes and the like) it runs inline. An
// Exec used after its Do returned refuses to work. A panic inside a Do
// function becomes its error.
//
// # Memory and leaks
//
// Every allocation made through an Exec (device and pinned host buffers,
// modules, textures, streams, events, graphs) is counted until released;
// [Device.LiveAllocations] lets tests prove that nothing leaks, also when
// a call fails halfway (the fake driver's tests check both counts). Kernel
// arguments are packed by exact size ([PackArgs]): DevPtr, TexObject,
// int64, uint64 and float64 take 8 bytes, int32, uint32 and float32 4,
// int16 and uint16 2, int8 and uint8 1; a Go int is refused because its
// size does not say whether the kernel takes an int or a long. The packed
// block is pinned with runtime.Pinner for the cuLaunchKernel call.
//
// # Launch checks
//
// When a kernel is looked up ([Module.Function]) its parameters are read
// once with cuFuncGetParamInfo ([Function.Params]). Every launch then
// compares its packed arguments with them before calling cuLaunchKernel:
// a different count, or an argument whose size differs from its
// parameter's, is an [*ArgumentError] naming the kernel, the index and
// both sizes, and nothing is launched. cuFuncGetParamInfo appeared in
// CUDA 12.4: with an older driver, or when the driver cannot report a
// kernel's parameters, Params returns false and that kernel's launches
// are not checked.
//
// # Compilation and caches
//
// [CompileOnly] compiles a [Source] under [CompileOptions] through the
// memory and disk caches of package nvrtc (see its documentation for the
// options rendered and the cache layout). [Device.Compile] fills the
// architecture from the device and loads the result. [ReadCacheStats]
// counts hits, misses, writes and rejected files; [BypassCompileCache]
// turns both caches off until its restore function runs, so that a
// benchmark can time a cold compile (the benchmarks' plan-cold cases).
//
// # Errors
//
// Every failed CUresult and nvrtcResult becomes an [*Error] with the API,
// the code, the library's name for it and its description, as in
// "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; names come from a
// built-in table when the driver is absent or cannot name a code.
// [Error.Sticky] reports the errors that poison the context (illegal
// address, launch failure and the other faults the driver documents as
// unrecoverable): once one is reported, every later call on the device
// returns it too. They are returned, never retried, and the device cannot
// be used again in the process. Invalid arguments (nil or null pointers,
// non-positive sizes, misaligned texture pitches) are errors, never
// panics.
//
// # Textures
//
// [Exec.NewTexture2D] builds a texture object over pitched linear memory
// (allocate it with [Exec.AllocPitch], whose pitch meets the device's
// texture pitch alignment); [Exec.NewTexture1D] one over linear memory,
// e.g. a filter. The hardware supports the wrap and mirror address modes
// only with normalized coordinates, so those combinations are refused.
//
// # Device description
//
// [DeviceInfo] has the name, UUID, compute capability, SM count, clocks,
// bus width and theoretical bandwidth, L2 size, shared memory limits,
// constant memory, total memory, texture alignments and the driver and
// NVRTC versions. Measured facts (copy bandwidth, FP32 peak, L2 flush)
// are in package devfacts.
//
// # Environment
//
//	CONVBENCH_LIBCUDA    driver library to open instead of libcuda.so.1
//	CONVBENCH_NVRTC      NVRTC library tried first
//	CONVBENCH_CACHE_DIR  on-disk compile cache directory
//	CONVBENCH_LIBNVML    NVML library to open instead of libnvidia-ml.so.1
package cudabind
