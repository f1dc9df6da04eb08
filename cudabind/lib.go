package cudabind

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Environment variables read by the package.
const (
	// EnvNVRTC names an NVRTC shared library (a path or a soname) tried
	// before the built-in names.
	EnvNVRTC = "CONVBENCH_NVRTC"
	// EnvLibCUDA names the driver library tried instead of libcuda.so.1.
	EnvLibCUDA = "CONVBENCH_LIBCUDA"
	// EnvCacheDir overrides the on-disk compile cache directory.
	EnvCacheDir = "CONVBENCH_CACHE_DIR"
)

// defaultNVRTCNames is the built-in NVRTC search order, newest first after
// the unversioned development link.
var defaultNVRTCNames = []string{
	"libnvrtc.so",
	"libnvrtc.so.13",
	"libnvrtc.so.12",
	"libnvrtc.so.11.2",
	"libnvrtc.so.11",
}

// NVRTCSearchList returns the names tried, in order, when NVRTC is first
// needed: the value of CONVBENCH_NVRTC when set, then the built-in names.
func NVRTCSearchList() []string {
	var names []string
	if p := strings.TrimSpace(os.Getenv(EnvNVRTC)); p != "" {
		names = append(names, p)
	}
	return append(names, defaultNVRTCNames...)
}

// DriverSearchList returns the names tried for the driver library: the
// value of CONVBENCH_LIBCUDA when set, otherwise libcuda.so.1.
func DriverSearchList() []string {
	if p := strings.TrimSpace(os.Getenv(EnvLibCUDA)); p != "" {
		return []string{p}
	}
	return []string{"libcuda.so.1"}
}

// symbol is one entry of a library's symbol table: the address is written
// to *dst; names are tried in order (versioned names first).
type symbol struct {
	dst      *uintptr
	names    []string
	optional bool
}

// openFirst dlopens the first loadable name and returns its handle, the
// name that worked and, when none did, the reasons joined.
func openFirst(names []string) (uintptr, string, error) {
	var reasons []string
	for _, n := range names {
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, n, nil
		}
		reasons = append(reasons, fmt.Sprintf("%s: %v", n, err))
	}
	return 0, "", fmt.Errorf("%s", strings.Join(reasons, "; "))
}

// resolve fills every symbol's address from handle h.
func resolve(h uintptr, syms []symbol) error {
	for _, s := range syms {
		for _, n := range s.names {
			if p, err := purego.Dlsym(h, n); err == nil && p != 0 {
				*s.dst = p
				break
			}
		}
		if *s.dst == 0 && !s.optional {
			return fmt.Errorf("missing symbol %s", strings.Join(s.names, " or "))
		}
	}
	return nil
}

// ccall calls the C function at fn with integer or pointer arguments and
// returns the low 32 bits of the result (CUresult and nvrtcResult are C
// enums). The pointers converted to uintptr in the caller's argument list
// stay alive and in place for the call.
//
//go:uintptrescapes
func ccall(fn uintptr, args ...uintptr) int {
	r1, _, _ := purego.SyscallN(fn, args...)
	return int(int32(uint32(r1)))
}

// cRet calls fn and returns the full pointer-sized result.
//
//go:uintptrescapes
func cRet(fn uintptr, args ...uintptr) uintptr {
	r1, _, _ := purego.SyscallN(fn, args...)
	return r1
}

// cstr returns s as a NUL-terminated byte slice for C.
func cstr(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// ptrOf converts an address returned by C into an unsafe.Pointer without a
// uintptr-to-pointer conversion in Go source (the memory is C-owned).
func ptrOf(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}

// goString copies the NUL-terminated C string at addr.
func goString(addr uintptr) string {
	if addr == 0 {
		return ""
	}
	p := ptrOf(addr)
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// onceValue caches the first result of a loader, success or failure.
type onceValue[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (o *onceValue[T]) get(load func() (T, error)) (T, error) {
	o.once.Do(func() { o.v, o.err = load() })
	return o.v, o.err
}
