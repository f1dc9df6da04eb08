// Package cudabind is the framework's CUDA runtime in pure Go: devices, the
// executor thread, contexts, memory, streams, events, modules, launches,
// textures and CUDA graphs over the driver API (libcuda.so.1), opened at run
// time with purego, so the module builds with CGO_ENABLED=0 and its tests
// pass without a GPU. The sibling packages split the bindings by job (see
// docs/architecture.md): dl binds C functions, driver is the driver API
// behind the driver.Driver interface (fakedriver implements it in memory),
// nvrtc compiles and caches, nvml reads clocks and energy, cudaerr holds the
// error types, devfacts measures what benchmarks need.
//
// Nothing is loaded in init. The driver is opened on first need
// (libcuda.so.1, or CONVBENCH_LIBCUDA), NVRTC on the first compilation
// ([dl.NVRTC]), NVML by [OpenNVML]; a missing library, symbol or
// device is an [*UnavailableError] whose one-line message GPU tests skip
// with.
//
// A [Device] owns one executor goroutine locked to its OS thread, on which
// its primary context is current; [Device.Do] runs a function there with an
// [*Exec], the raw operations. A timed section belongs in one Do, so that
// no goroutine switch lands inside it. Do is re-entrant, an Exec used after
// its Do returned refuses to work, and a panic inside Do becomes its error.
//
// Every allocation made through an Exec is counted until released
// ([Device.LiveAllocations]). Kernel arguments are packed by exact size
// ([PackArgs]; a Go int is refused) and checked against the kernel's
// parameters where the driver reports them (CUDA 12.4 and later): a
// mismatch is an [*ArgumentError] and nothing is launched.
//
// Every failed CUresult and nvrtcResult becomes an [*Error] naming the API
// and the code, as "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
// [Error.Sticky] reports errors that poison the context: they are returned,
// never retried, and the device is not used again in the process.
//
// Environment:
//
//	CONVBENCH_LIBCUDA    driver library to open instead of libcuda.so.1
//	CONVBENCH_NVRTC      NVRTC library tried first
//	CONVBENCH_CACHE_DIR  on-disk compile cache directory
//	CONVBENCH_LIBNVML    NVML library to open instead of libnvidia-ml.so.1
package cudabind
