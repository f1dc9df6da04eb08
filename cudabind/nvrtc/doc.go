// Package nvrtc compiles CUDA C++ at run time with NVRTC, loaded with
// purego (package dl), and caches the results in memory and on disk.
//
// # Loading
//
// NVRTC is opened on the first compilation: the path in CONVBENCH_NVRTC,
// then libnvrtc.so, libnvrtc.so.13, .12, .11.2 and .11 ([dl.NVRTC]).
// A missing library or symbol is a *cudaerr.UnavailableError; the first
// result is cached per process ([Default]). [Load] opens a given list of
// names without caching.
//
// # Compilation
//
// [Compile] compiles a [Source] (with in-memory headers for #include)
// under [CompileOptions]: --gpu-architecture, --std=c++17, an explicit
// --fmad, optional --use_fast_math and -lineinfo, sorted -D defines;
// never an -ftz of its own. sm_XY targets produce a cubin, compute_XY
// targets PTX. Failures return a [*CompileError] with the full log; a
// failed NVRTC call is a *cudaerr.Error with Library "nvrtc".
//
// # Caches
//
// Results are cached in memory and on disk, under CONVBENCH_CACHE_DIR or
// <user cache dir>/convbench/cubin, keyed by the SHA-256 of a format
// version, the source and headers, the rendered options, the NVRTC
// version and the architecture. Files are written to a temporary name and
// renamed; each payload carries a magic header and a SHA-256 checksum,
// and a damaged file is a miss that gets rewritten. An unwritable
// directory leaves the memory cache alone in service. Several goroutines
// asking for one key at once wait for a single compilation, and so do
// processes sharing the directory: a compiling process holds a lock file
// on the key (<dir>/locks/<key>, flock where the system has it), and one
// that waited for it reads the result from disk.
// [ReadCacheStats] counts hits, misses, writes and rejected files.
//
// [BypassCache] turns both caches off for the process until its restore
// function is called: every compilation then runs NVRTC, is not stored,
// and counts as CacheStats.Bypassed. It is there to time cold compiles
// (the benchmarks' plan-cold cases, which check with ReadCacheStats that
// each timed plan compiled and hit no cache); nothing else uses it.
package nvrtc
