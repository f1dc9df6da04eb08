package cudabind

import "unsafe"

// Alloc allocates device memory on the executor (see Exec.Alloc).
func (d *Device) Alloc(bytes int64) (DevPtr, error) {
	var p DevPtr
	err := d.Do(func(x *Exec) (err error) { p, err = x.Alloc(bytes); return })
	return p, err
}

// Free releases device memory on the executor.
func (d *Device) Free(p DevPtr) error { return d.Do(func(x *Exec) error { return x.Free(p) }) }

// CopyHtoD copies host to device on the executor.
func (d *Device) CopyHtoD(dst DevPtr, src unsafe.Pointer, bytes int64) error {
	return d.Do(func(x *Exec) error { return x.CopyHtoD(dst, src, bytes) })
}

// CopyDtoH copies device to host on the executor.
func (d *Device) CopyDtoH(dst unsafe.Pointer, src DevPtr, bytes int64) error {
	return d.Do(func(x *Exec) error { return x.CopyDtoH(dst, src, bytes) })
}

// Sync waits for all work on the device.
func (d *Device) Sync() error { return d.Do(func(x *Exec) error { return x.Sync() }) }
