package convolve

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

// MemoryError reports that a plan needs more memory than is available:
// host memory for CPU plans and the host buffers of GPU plans, device
// memory for GPU plans. Plans check before they allocate.
type MemoryError struct {
	Variant   string
	Memory    string // "host" or "device"
	What      string // what the bytes are for
	Needed    int64  // bytes
	Available int64  // bytes
}

func (e *MemoryError) Error() string {
	v := e.Variant
	if v == "" {
		v = "plan"
	}
	return fmt.Sprintf("convolve: %s: %s needs %d bytes of %s memory, %d available", v, e.What, e.Needed, e.Memory, e.Available)
}

// meminfoPath is the file HostMemoryAvailable reads on Linux.
var meminfoPath = "/proc/meminfo"

// HostMemoryAvailable returns how many bytes of host memory new
// allocations can take, and whether that is known. On Linux it is
// MemAvailable of /proc/meminfo (the kernel's estimate of memory available
// without swapping). Where a Go memory limit is set (GOMEMLIMIT or
// debug.SetMemoryLimit), the limit minus the memory the runtime already
// holds caps the figure. Elsewhere, and when /proc/meminfo cannot be read,
// the memory limit alone is used; with none set the figure is unknown
// (ok false), and CheckHostMemory then refuses only sizes no allocation
// can have.
func HostMemoryAvailable() (bytes int64, ok bool) {
	bytes = math.MaxInt64
	if runtime.GOOS == "linux" {
		if v, err := memAvailable(meminfoPath); err == nil {
			bytes, ok = v, true
		}
	}
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		left := max(limit-int64(ms.Sys-ms.HeapReleased), 0)
		bytes, ok = min(bytes, left), true
	}
	if !ok {
		return 0, false
	}
	return bytes, true
}

// memAvailable parses the MemAvailable line ("MemAvailable: 123 kB") of a
// meminfo file.
func memAvailable(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
			n, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("convolve: %s: MemAvailable %q is not a byte count", path, f[1])
			}
			if len(f) >= 3 && string(f[2]) == "kB" {
				if n > math.MaxInt64/1024 {
					return math.MaxInt64, nil
				}
				n *= 1024
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("convolve: %s has no MemAvailable line", path)
}

// maxAllocBytes is the largest allocation CheckHostMemory lets through
// when the available memory is unknown: half the address space of a
// 64-bit host (2^47 bytes).
const maxAllocBytes = 1 << 47

// CheckHostMemory returns a *MemoryError (What says what for) when needed
// bytes of host memory exceed HostMemoryAvailable, or when the available
// memory is unknown and needed exceeds 2^47 bytes; nil otherwise. A
// negative need (an overflowed size) is refused too.
func CheckHostMemory(what string, needed int64) error {
	avail, ok := HostMemoryAvailable()
	if !ok {
		avail = maxAllocBytes
	}
	if needed < 0 || needed > avail {
		return &MemoryError{Memory: "host", What: what, Needed: needed, Available: avail}
	}
	return nil
}

// MulBytes returns the product of the factors, saturating at
// math.MaxInt64 instead of overflowing (factors must not be negative).
// Plans size their buffers with it.
func MulBytes(factors ...int64) int64 {
	p := int64(1)
	for _, f := range factors {
		if f == 0 {
			return 0
		}
		if p > math.MaxInt64/f {
			p = math.MaxInt64
			continue
		}
		p *= f
	}
	return p
}
