// Package cudabind is the framework's bridge to CUDA, in pure Go: the
// driver API (libcuda.so.1) and the run-time compiler NVRTC are opened at
// run time with purego, so the module builds with CGO_ENABLED=0 and no CUDA
// toolkit, and its tests pass on machines without a GPU.
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
// [OpenNVML], for the SM clock, power and temperature of a device.
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
// launches captured once ([Exec.Capture], [Exec.LaunchGraph]) instead. Do is re-entrant: called from inside a Do
// function (directly or through Module.Function, Function.Attributes and
// the like) it runs inline. An Exec used after its Do returned refuses to
// work. A panic inside a Do function becomes its error.
//
// # Memory and leaks
//
// Every allocation made through an Exec (device and pinned host buffers,
// modules, textures, streams, events, graphs) is counted until released;
// [Device.LiveAllocations] lets tests prove that nothing leaks. Kernel
// arguments are packed by exact size ([PackArgs]): DevPtr, TexObject,
// int64, uint64 and float64 take 8 bytes, int32, uint32 and float32 4,
// int16 and uint16 2, int8 and uint8 1; a Go int is refused because its
// size does not say whether the kernel takes an int or a long. The packed
// block is pinned with runtime.Pinner for the cuLaunchKernel call.
//
// # Compilation and caches
//
// [CompileOnly] compiles a [Source] (with in-memory headers for #include)
// under [CompileOptions]: --gpu-architecture, --std=c++17, an explicit
// --fmad, optional --use_fast_math and -lineinfo, sorted -D defines;
// never an -ftz of its own. sm_XY targets produce a cubin, compute_XY
// targets PTX. Failures return a [*CompileError] with the full log.
// [Device.Compile] fills the architecture from the device and loads the
// result. Results are cached in memory and on disk, under
// CONVBENCH_CACHE_DIR or <user cache dir>/convbench/cubin, keyed by the
// SHA-256 of a format version, the source and headers, the rendered
// options, the NVRTC version and the architecture. Files are written to a
// temporary name and renamed; each payload carries a magic header and a
// SHA-256 checksum, and a damaged file is a miss that gets rewritten. An
// unwritable directory leaves the memory cache alone in service.
// [ReadCacheStats] counts hits, misses, writes and rejected files.
//
// # Errors
//
// Every failed CUresult and nvrtcResult becomes an [*Error] with the API,
// the code, the library's name for it and its description, as in
// "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; names come from a
// built-in table when the driver is absent. [Error.Sticky] reports the
// errors that poison the context (illegal address, launch failure and the
// other faults the driver documents as unrecoverable); they are returned,
// never retried. Invalid arguments (nil or null pointers, non-positive
// sizes, misaligned texture pitches) are errors, never panics.
//
// # Textures
//
// [Exec.NewTexture2D] builds a texture object over pitched linear memory
// (allocate it with [Exec.AllocPitch], whose pitch meets the device's
// texture pitch alignment); [Exec.NewTexture1D] one over linear memory,
// e.g. a filter. The hardware supports the wrap and mirror address modes
// only with normalized coordinates, so those combinations are refused.
//
// # Device facts
//
// [DeviceInfo] has the name, UUID, compute capability, SM count, clocks,
// bus width and theoretical bandwidth, L2 size, shared memory limits,
// constant memory, total memory, texture alignments and the driver and
// NVRTC versions. [Device.FlushL2] overwrites a buffer twice the L2 size
// before cold runs; [Device.CopyBandwidth] measures (once) the
// device-to-device copy bandwidth counting bytes read and written;
// [Device.PeakFP32GFLOPs] is the FMA peak from the SM count and clock.
//
// # Environment
//
//	CONVBENCH_LIBCUDA    driver library to open instead of libcuda.so.1
//	CONVBENCH_NVRTC      NVRTC library tried first
//	CONVBENCH_CACHE_DIR  on-disk compile cache directory
//	CONVBENCH_LIBNVML    NVML library to open instead of libnvidia-ml.so.1
package cudabind
