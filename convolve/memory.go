package convolve

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

// MemoryError reports that a plan needs more host or device memory than
// is available.
type MemoryError struct {
	Variant   string
	Memory    string // "host" or "device"
	What      string // what the bytes are for
	Needed    int64  // bytes
	Available int64  // bytes
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("convolve: %s: %s needs %d bytes of %s memory, %d available", cmp.Or(e.Variant, "plan"), e.What, e.Needed, e.Memory, e.Available)
}

// meminfoPath is the file HostMemoryAvailable reads on Linux.
var meminfoPath = "/proc/meminfo"

// HostMemoryAvailable returns how many bytes of host memory new
// allocations can take, and whether that is known: MemAvailable of
// /proc/meminfo on Linux, capped by a Go memory limit less what the
// runtime holds.
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

// memAvailable parses the MemAvailable line of a meminfo file.
func memAvailable(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(data) {
		f := bytes.Fields(line)
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
// when the available memory is unknown.
const maxAllocBytes = 1 << 47

// CheckHostMemory returns a *MemoryError when needed bytes of host memory
// (for what) are negative or exceed HostMemoryAvailable, or 2^47 bytes
// when that is unknown.
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

// MulBytes returns the product of the non-negative factors, saturating
// at math.MaxInt64.
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
