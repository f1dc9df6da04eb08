package cudabind

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/convbench/convbench/cudabind/driver"
)

// DevPtr is a device memory address (CUdeviceptr).
type DevPtr uint64

// Add returns p advanced by off bytes.
func (p DevPtr) Add(off int64) DevPtr { return DevPtr(int64(p) + off) }

// Stream is a CUDA stream; the zero Stream is the legacy default stream.
type Stream uintptr

// Event is a CUDA event.
type Event uintptr

// Exec performs driver calls on the device's executor thread. It is valid
// only inside the function given to Device.Do; its methods return an error
// when used anywhere else.
type Exec struct {
	d      *Device
	active atomic.Bool
}

// Device returns the device x belongs to.
func (x *Exec) Device() *Device { return x.d }

func (x *Exec) ok(op string) error {
	if x == nil || x.d == nil {
		return fmt.Errorf("cudabind: %s on a nil *Exec", op)
	}
	if !x.active.Load() {
		return fmt.Errorf("cudabind: %s called outside Device.Do", op)
	}
	return nil
}

func (x *Exec) lib() driver.Driver { return x.d.drv }

// check turns a CUresult into nil or an *Error naming api.
func (x *Exec) check(api string, r driver.Result) error { return checkWith(x.d.drv, api, r) }

func (x *Exec) count(kind int, delta int64) { x.d.live[kind].Add(delta) }

// create runs method on x: the driver call api through call, which
// returns the new handle, counted as one more live kind.
func create[H any](x *Exec, method, api string, kind int, call func() (H, driver.Result)) (H, error) {
	var h H
	if err := x.ok(method); err != nil {
		return h, err
	}
	h, r := call()
	if err := x.check(api, r); err != nil {
		var zero H
		return zero, err
	}
	x.count(kind, 1)
	return h, nil
}

// release runs method on x: it refuses a null handle (null true, what
// saying what the handle is), else makes the driver call api through
// call and counts one live kind fewer.
func (x *Exec) release(method, api string, kind int, null bool, what string, call func() driver.Result) error {
	if err := x.ok(method); err != nil {
		return err
	}
	if null {
		return fmt.Errorf("cudabind: %s of %s", method, what)
	}
	if err := x.check(api, call()); err != nil {
		return err
	}
	x.count(kind, -1)
	return nil
}

func checkBytes(op string, n int64) error {
	if n <= 0 {
		return fmt.Errorf("cudabind: %s of %d bytes: size must be positive", op, n)
	}
	return nil
}

// Alloc allocates bytes of device memory (cuMemAlloc).
func (x *Exec) Alloc(bytes int64) (DevPtr, error) {
	if err := x.ok("Alloc"); err != nil {
		return 0, err
	}
	if err := checkBytes("Alloc", bytes); err != nil {
		return 0, err
	}
	p, r := x.lib().MemAlloc(uint64(bytes))
	if err := x.check("cuMemAlloc", r); err != nil {
		return 0, fmt.Errorf("%w (requested %d bytes)", err, bytes)
	}
	x.count(kindDevice, 1)
	return DevPtr(p), nil
}

// AllocPitch allocates height rows of at least widthBytes each, with a
// row pitch that is a multiple of the device's texture pitch alignment,
// so the buffer can back a 2-D texture. It returns the pointer and pitch.
func (x *Exec) AllocPitch(widthBytes, height int64) (DevPtr, int64, error) {
	if err := x.ok("AllocPitch"); err != nil {
		return 0, 0, err
	}
	if widthBytes <= 0 || height <= 0 {
		return 0, 0, fmt.Errorf("cudabind: AllocPitch of %d x %d bytes: sizes must be positive", widthBytes, height)
	}
	// Element size 4 is the access granularity the driver optimizes for.
	p, pitch, r := x.lib().MemAllocPitch(uint64(widthBytes), uint64(height), 4)
	if err := x.check("cuMemAllocPitch", r); err != nil {
		return 0, 0, fmt.Errorf("%w (requested %d x %d bytes)", err, widthBytes, height)
	}
	x.count(kindDevice, 1)
	if a := int64(x.d.info.TexturePitchAlignment); a > 0 && int64(pitch)%a != 0 {
		// Not expected from the driver; fall back to an explicit layout.
		x.Free(DevPtr(p))
		pitch = uint64((widthBytes + a - 1) / a * a)
		q, err := x.Alloc(int64(pitch) * height)
		return q, int64(pitch), err
	}
	return DevPtr(p), int64(pitch), nil
}

// Free releases device memory from Alloc or AllocPitch.
func (x *Exec) Free(p DevPtr) error {
	return x.release("Free", "cuMemFree", kindDevice, p == 0, "a null device pointer", func() driver.Result { return x.lib().MemFree(driver.DevPtr(p)) })
}

// MemsetD8 sets count bytes at p to v.
func (x *Exec) MemsetD8(p DevPtr, v uint8, count int64) error {
	if err := x.memsetArgs("MemsetD8", p, count); err != nil {
		return err
	}
	return x.check("cuMemsetD8", x.lib().MemsetD8(driver.DevPtr(p), v, uint64(count)))
}

// MemsetD32 sets count 32-bit words at p (4-byte aligned) to v.
func (x *Exec) MemsetD32(p DevPtr, v uint32, count int64) error {
	if err := x.memsetArgs("MemsetD32", p, count); err != nil {
		return err
	}
	return x.check("cuMemsetD32", x.lib().MemsetD32(driver.DevPtr(p), v, uint64(count)))
}

// MemsetD8Async is MemsetD8 ordered on stream s.
func (x *Exec) MemsetD8Async(p DevPtr, v uint8, count int64, s Stream) error {
	if err := x.memsetArgs("MemsetD8Async", p, count); err != nil {
		return err
	}
	return x.check("cuMemsetD8Async", x.lib().MemsetD8Async(driver.DevPtr(p), v, uint64(count), driver.Stream(s)))
}

// MemsetD32Async is MemsetD32 ordered on stream s.
func (x *Exec) MemsetD32Async(p DevPtr, v uint32, count int64, s Stream) error {
	if err := x.memsetArgs("MemsetD32Async", p, count); err != nil {
		return err
	}
	return x.check("cuMemsetD32Async", x.lib().MemsetD32Async(driver.DevPtr(p), v, uint64(count), driver.Stream(s)))
}

func (x *Exec) memsetArgs(op string, p DevPtr, count int64) error {
	if err := x.ok(op); err != nil {
		return err
	}
	if p == 0 {
		return fmt.Errorf("cudabind: %s on a null device pointer", op)
	}
	if count <= 0 {
		return fmt.Errorf("cudabind: %s of %d elements: count must be positive", op, count)
	}
	return nil
}

func (x *Exec) copyArgs(op string, devNull, hostNull bool, bytes int64) error {
	if err := x.ok(op); err != nil {
		return err
	}
	if devNull {
		return fmt.Errorf("cudabind: %s with a null device pointer", op)
	}
	if hostNull {
		return fmt.Errorf("cudabind: %s with a nil host pointer", op)
	}
	return checkBytes(op, bytes)
}

// CopyHtoD copies bytes from host memory src to device memory dst.
func (x *Exec) CopyHtoD(dst DevPtr, src unsafe.Pointer, bytes int64) error {
	if err := x.copyArgs("CopyHtoD", dst == 0, src == nil, bytes); err != nil {
		return err
	}
	return x.check("cuMemcpyHtoD", x.lib().MemcpyHtoD(driver.DevPtr(dst), src, uint64(bytes)))
}

// CopyDtoH copies bytes from device memory src to host memory dst.
func (x *Exec) CopyDtoH(dst unsafe.Pointer, src DevPtr, bytes int64) error {
	if err := x.copyArgs("CopyDtoH", src == 0, dst == nil, bytes); err != nil {
		return err
	}
	return x.check("cuMemcpyDtoH", x.lib().MemcpyDtoH(dst, driver.DevPtr(src), uint64(bytes)))
}

// CopyDtoD copies bytes between device buffers.
func (x *Exec) CopyDtoD(dst, src DevPtr, bytes int64) error {
	if err := x.copyArgs("CopyDtoD", dst == 0 || src == 0, false, bytes); err != nil {
		return err
	}
	return x.check("cuMemcpyDtoD", x.lib().MemcpyDtoD(driver.DevPtr(dst), driver.DevPtr(src), uint64(bytes)))
}

// CopyHtoDAsync copies on stream s. src should be pinned (HostAlloc) for
// the copy to be asynchronous; it must stay valid until the stream passes.
func (x *Exec) CopyHtoDAsync(dst DevPtr, src unsafe.Pointer, bytes int64, s Stream) error {
	if err := x.copyArgs("CopyHtoDAsync", dst == 0, src == nil, bytes); err != nil {
		return err
	}
	return x.check("cuMemcpyHtoDAsync", x.lib().MemcpyHtoDAsync(driver.DevPtr(dst), src, uint64(bytes), driver.Stream(s)))
}

// CopyDtoHAsync copies on stream s into (preferably pinned) host memory.
func (x *Exec) CopyDtoHAsync(dst unsafe.Pointer, src DevPtr, bytes int64, s Stream) error {
	if err := x.copyArgs("CopyDtoHAsync", src == 0, dst == nil, bytes); err != nil {
		return err
	}
	return x.check("cuMemcpyDtoHAsync", x.lib().MemcpyDtoHAsync(dst, driver.DevPtr(src), uint64(bytes), driver.Stream(s)))
}

// CopyDtoDAsync copies between device buffers on stream s.
func (x *Exec) CopyDtoDAsync(dst, src DevPtr, bytes int64, s Stream) error {
	if err := x.copyArgs("CopyDtoDAsync", dst == 0 || src == 0, false, bytes); err != nil {
		return err
	}
	return x.check("cuMemcpyDtoDAsync", x.lib().MemcpyDtoDAsync(driver.DevPtr(dst), driver.DevPtr(src), uint64(bytes), driver.Stream(s)))
}

func check2D(op string, dstPitch, srcPitch, widthBytes, height int64) error {
	if widthBytes <= 0 || height <= 0 {
		return fmt.Errorf("cudabind: %s of %d x %d bytes: sizes must be positive", op, widthBytes, height)
	}
	if dstPitch < widthBytes || srcPitch < widthBytes {
		return fmt.Errorf("cudabind: %s: pitches (dst %d, src %d) must be at least the row width %d", op, dstPitch, srcPitch, widthBytes)
	}
	return nil
}

// CopyHtoD2D copies height rows of widthBytes from host rows srcPitch
// apart to device rows dstPitch apart (cuMemcpy2D).
func (x *Exec) CopyHtoD2D(dst DevPtr, dstPitch int64, src unsafe.Pointer, srcPitch, widthBytes, height int64) error {
	if err := x.copyArgs("CopyHtoD2D", dst == 0, src == nil, 1); err != nil {
		return err
	}
	if err := check2D("CopyHtoD2D", dstPitch, srcPitch, widthBytes, height); err != nil {
		return err
	}
	c := &driver.Memcpy2D{SrcMemoryType: driver.MemoryTypeHost, SrcHost: src, SrcPitch: uintptr(srcPitch),
		DstMemoryType: driver.MemoryTypeDevice, DstDevice: driver.DevPtr(dst), DstPitch: uintptr(dstPitch),
		WidthInBytes: uintptr(widthBytes), Height: uintptr(height)}
	return x.check("cuMemcpy2D", x.lib().Memcpy2D(c))
}

// CopyDtoH2D copies height rows of widthBytes from device rows srcPitch
// apart to host rows dstPitch apart.
func (x *Exec) CopyDtoH2D(dst unsafe.Pointer, dstPitch int64, src DevPtr, srcPitch, widthBytes, height int64) error {
	if err := x.copyArgs("CopyDtoH2D", src == 0, dst == nil, 1); err != nil {
		return err
	}
	if err := check2D("CopyDtoH2D", dstPitch, srcPitch, widthBytes, height); err != nil {
		return err
	}
	c := &driver.Memcpy2D{SrcMemoryType: driver.MemoryTypeDevice, SrcDevice: driver.DevPtr(src), SrcPitch: uintptr(srcPitch),
		DstMemoryType: driver.MemoryTypeHost, DstHost: dst, DstPitch: uintptr(dstPitch),
		WidthInBytes: uintptr(widthBytes), Height: uintptr(height)}
	return x.check("cuMemcpy2D", x.lib().Memcpy2D(c))
}

// CopyDtoD2DAsync copies height rows of widthBytes between pitched
// device buffers, ordered on stream s (cuMemcpy2DAsync).
func (x *Exec) CopyDtoD2DAsync(dst DevPtr, dstPitch int64, src DevPtr, srcPitch, widthBytes, height int64, s Stream) error {
	if err := x.copyArgs("CopyDtoD2DAsync", dst == 0 || src == 0, false, 1); err != nil {
		return err
	}
	if err := check2D("CopyDtoD2DAsync", dstPitch, srcPitch, widthBytes, height); err != nil {
		return err
	}
	c := &driver.Memcpy2D{SrcMemoryType: driver.MemoryTypeDevice, SrcDevice: driver.DevPtr(src), SrcPitch: uintptr(srcPitch),
		DstMemoryType: driver.MemoryTypeDevice, DstDevice: driver.DevPtr(dst), DstPitch: uintptr(dstPitch),
		WidthInBytes: uintptr(widthBytes), Height: uintptr(height)}
	var p runtime.Pinner
	p.Pin(c)
	defer p.Unpin()
	return x.check("cuMemcpy2DAsync", x.lib().Memcpy2DAsync(c, driver.Stream(s)))
}

// HostBuffer is page-locked (pinned) host memory from cuMemHostAlloc.
type HostBuffer struct {
	ptr   unsafe.Pointer
	bytes int64
}

// Ptr returns the buffer's address (nil after FreeHost).
func (h *HostBuffer) Ptr() unsafe.Pointer {
	if h == nil || h.ptr == nil {
		return nil
	}
	return h.ptr
}

// Len returns the buffer's size in bytes.
func (h *HostBuffer) Len() int64 {
	if h == nil {
		return 0
	}
	return h.bytes
}

// Bytes returns the buffer as a byte slice (nil after FreeHost). The slice
// must not be used after FreeHost.
func (h *HostBuffer) Bytes() []byte {
	if h == nil || h.ptr == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.Ptr()), h.bytes)
}

// HostSlice views a pinned buffer as a []T of as many whole elements as fit.
func HostSlice[T any](h *HostBuffer) []T {
	var zero T
	size := int64(unsafe.Sizeof(zero))
	if h == nil || h.ptr == nil || size == 0 {
		return nil
	}
	return unsafe.Slice((*T)(h.Ptr()), h.bytes/size)
}

// HostAlloc allocates bytes of pinned host memory.
func (x *Exec) HostAlloc(bytes int64) (*HostBuffer, error) {
	if err := x.ok("HostAlloc"); err != nil {
		return nil, err
	}
	if err := checkBytes("HostAlloc", bytes); err != nil {
		return nil, err
	}
	p, r := x.lib().MemHostAlloc(uint64(bytes), 0)
	if err := x.check("cuMemHostAlloc", r); err != nil {
		return nil, fmt.Errorf("%w (requested %d bytes)", err, bytes)
	}
	x.count(kindHost, 1)
	return &HostBuffer{ptr: p, bytes: bytes}, nil
}

// FreeHost releases a pinned buffer; freeing twice is an error.
func (x *Exec) FreeHost(h *HostBuffer) error {
	if err := x.ok("FreeHost"); err != nil {
		return err
	}
	if h == nil || h.ptr == nil {
		return fmt.Errorf("cudabind: FreeHost of a nil or already freed buffer")
	}
	if err := x.check("cuMemFreeHost", x.lib().MemFreeHost(h.ptr)); err != nil {
		return err
	}
	h.ptr = nil
	x.count(kindHost, -1)
	return nil
}

// NewStream creates a stream that synchronizes with the legacy default
// stream (flags 0), so work on stream 0 orders with it.
func (x *Exec) NewStream() (Stream, error) {
	s, err := create(x, "NewStream", "cuStreamCreate", kindStream, func() (driver.Stream, driver.Result) { return x.lib().StreamCreate(0) })
	return Stream(s), err
}

// DestroyStream destroys a stream from NewStream.
func (x *Exec) DestroyStream(s Stream) error {
	return x.release("DestroyStream", "cuStreamDestroy", kindStream, s == 0, "the default stream", func() driver.Result { return x.lib().StreamDestroy(driver.Stream(s)) })
}

// StreamSync waits for stream s (0: the legacy default stream).
func (x *Exec) StreamSync(s Stream) error {
	if err := x.ok("StreamSync"); err != nil {
		return err
	}
	return x.check("cuStreamSynchronize", x.lib().StreamSynchronize(driver.Stream(s)))
}

// Sync waits for all work in the context (cuCtxSynchronize); it reports
// asynchronous kernel faults, sticky ones included.
func (x *Exec) Sync() error {
	if err := x.ok("Sync"); err != nil {
		return err
	}
	return x.check("cuCtxSynchronize", x.lib().CtxSynchronize())
}

// NewEvent creates a timing event.
func (x *Exec) NewEvent() (Event, error) {
	e, err := create(x, "NewEvent", "cuEventCreate", kindEvent, func() (driver.Event, driver.Result) { return x.lib().EventCreate(0) })
	return Event(e), err
}

// DestroyEvent destroys an event from NewEvent.
func (x *Exec) DestroyEvent(e Event) error {
	return x.release("DestroyEvent", "cuEventDestroy", kindEvent, e == 0, "a null event", func() driver.Result { return x.lib().EventDestroy(driver.Event(e)) })
}

// Record records e on stream s.
func (x *Exec) Record(e Event, s Stream) error {
	if err := x.ok("Record"); err != nil {
		return err
	}
	if e == 0 {
		return fmt.Errorf("cudabind: Record of a null event")
	}
	return x.check("cuEventRecord", x.lib().EventRecord(driver.Event(e), driver.Stream(s)))
}

// WaitEvent makes the work enqueued on s after it wait until the work
// recorded in e (on any stream of any device) has completed; an event
// never recorded does not hold s back.
func (x *Exec) WaitEvent(s Stream, e Event) error {
	if err := x.ok("WaitEvent"); err != nil {
		return err
	}
	if e == 0 {
		return fmt.Errorf("cudabind: WaitEvent on a null event")
	}
	return x.check("cuStreamWaitEvent", x.lib().StreamWaitEvent(driver.Stream(s), driver.Event(e), 0))
}

// EventSync waits until e has completed.
func (x *Exec) EventSync(e Event) error {
	if err := x.ok("EventSync"); err != nil {
		return err
	}
	if e == 0 {
		return fmt.Errorf("cudabind: EventSync of a null event")
	}
	return x.check("cuEventSynchronize", x.lib().EventSynchronize(driver.Event(e)))
}

// Elapsed returns the device time between two completed events
// (cuEventElapsedTime, about 0.5 µs resolution).
func (x *Exec) Elapsed(start, stop Event) (time.Duration, error) {
	if err := x.ok("Elapsed"); err != nil {
		return 0, err
	}
	if start == 0 || stop == 0 {
		return 0, fmt.Errorf("cudabind: Elapsed with a null event")
	}
	ms, r := x.lib().EventElapsedTime(driver.Event(start), driver.Event(stop))
	if err := x.check("cuEventElapsedTime", r); err != nil {
		return 0, err
	}
	if math.IsNaN(float64(ms)) || ms < 0 {
		return 0, fmt.Errorf("cudabind: cuEventElapsedTime returned %v ms", ms)
	}
	return time.Duration(float64(ms) * 1e6), nil
}

// Ptr returns the address of s's first element, or nil for an empty s.
func Ptr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}
