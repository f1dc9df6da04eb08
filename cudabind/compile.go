package cudabind

import "github.com/convbench/convbench/cudabind/nvrtc"

// The compiler lives in package nvrtc; these names keep its API reachable
// from package cudabind.

type (
	// Source is a CUDA C++ translation unit to compile.
	Source = nvrtc.Source
	// CompileOptions are the NVRTC options of a compilation.
	CompileOptions = nvrtc.CompileOptions
	// Compiled is the output of an NVRTC compilation.
	Compiled = nvrtc.Compiled
	// CompileError is a failed NVRTC compilation with its log.
	CompileError = nvrtc.CompileError
	// CacheStats counts compile-cache events since the process started.
	CacheStats = nvrtc.CacheStats
)

// Image kinds.
const (
	ImageCUBIN = nvrtc.ImageCUBIN // machine code for one architecture
	ImagePTX   = nvrtc.ImagePTX   // PTX text, JIT-compiled at load
)

// CompileOnly compiles src with NVRTC through the compile caches, without
// the driver (nvrtc.Compile).
func CompileOnly(src Source, opts CompileOptions) (*Compiled, error) { return nvrtc.Compile(src, opts) }

// NVRTCVersion loads NVRTC if needed and returns its version.
func NVRTCVersion() (major, minor int, err error) { return nvrtc.Version() }

// ReadCacheStats returns the compile-cache counters.
func ReadCacheStats() CacheStats { return nvrtc.ReadCacheStats() }

// BypassCompileCache turns the memory and disk compile caches off for the
// whole process until restore is called, so that every compilation runs
// NVRTC and stores nothing (nvrtc.BypassCache): for timing cold compiles,
// as the benchmarks' plan-cold cases do.
func BypassCompileCache() (restore func()) { return nvrtc.BypassCache() }
