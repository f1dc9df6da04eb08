package cudabind

import "fmt"

// MemInfo returns the free and total device memory in bytes of the
// current context's device, as the driver reports them (cuMemGetInfo).
// Free memory is what allocations can still take; plans compare their
// needs with it before allocating.
func (x *Exec) MemInfo() (free, total int64, err error) {
	if err := x.ok("MemInfo"); err != nil {
		return 0, 0, err
	}
	f, t, r := x.lib().MemGetInfo()
	if err := x.check("cuMemGetInfo", r); err != nil {
		return 0, 0, err
	}
	if f > 1<<62 || t > 1<<62 {
		return 0, 0, fmt.Errorf("cudabind: cuMemGetInfo reported %d free of %d bytes", f, t)
	}
	return int64(f), int64(t), nil
}
