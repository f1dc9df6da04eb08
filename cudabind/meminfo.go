package cudabind

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// memGetInfo is the address of cuMemGetInfo_v2, resolved on first use from
// the driver library that loadDriver opened (a second dlopen of the same
// name returns the same handle).
var memGetInfo onceValue[uintptr]

func resolveMemGetInfo(l *driverLib) (uintptr, error) {
	return memGetInfo.get(func() (uintptr, error) {
		h, err := purego.Dlopen(l.name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			return 0, &UnavailableError{Lib: l.name, Reason: "cannot be opened again for cuMemGetInfo (" + err.Error() + ")"}
		}
		var fn uintptr
		if err := resolve(h, []symbol{{dst: &fn, names: []string{"cuMemGetInfo_v2", "cuMemGetInfo"}}}); err != nil {
			return 0, &UnavailableError{Lib: l.name, Reason: err.Error()}
		}
		return fn, nil
	})
}

// MemInfo returns the free and total device memory in bytes of the
// current context's device, as the driver reports them (cuMemGetInfo).
// Free memory is what allocations can still take; plans compare their
// needs with it before allocating.
func (x *Exec) MemInfo() (free, total int64, err error) {
	if err := x.ok("MemInfo"); err != nil {
		return 0, 0, err
	}
	fn, err := resolveMemGetInfo(x.lib())
	if err != nil {
		return 0, 0, err
	}
	var f, t uint64 // size_t
	if err := check("cuMemGetInfo", ccall(fn, uintptr(unsafe.Pointer(&f)), uintptr(unsafe.Pointer(&t)))); err != nil {
		return 0, 0, err
	}
	if f > 1<<62 || t > 1<<62 {
		return 0, 0, fmt.Errorf("cudabind: cuMemGetInfo reported %d free of %d bytes", f, t)
	}
	return int64(f), int64(t), nil
}
