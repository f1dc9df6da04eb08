// Package fakedriver is an in-memory implementation of driver.Driver for
// tests without a GPU. Device memory is Go memory, so copies and memsets
// behave as on a device; kernels are declared by name with their
// parameter sizes and do nothing when launched but record the launch and
// the bytes of its arguments.
//
// Failures are injected by configuration: a call that always fails with a
// given result ([Driver.Fail]), a memory size that allocations exhaust
// ([Driver.MemBytes]), a kernel whose launch faults the context with a
// sticky error ([Driver.Faults]), an Init result, missing optional entry
// points. As in the real driver, once a sticky error (illegal address,
// launch failure, ...) is reported every later call returns it.
package fakedriver

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/convbench/convbench/cudabind/driver"
)

// Driver is a fake CUDA driver. Set its exported fields before the first
// call; the zero value is one device with 1 GiB of memory and no kernels.
type Driver struct {
	// Devices is the number of devices (default 1; set NoDevices for none).
	Devices   int
	NoDevices bool
	// InitResult is what Init returns (Success by default).
	InitResult driver.Result
	// MemBytes is the device memory size; allocations beyond it fail
	// with CUDA_ERROR_OUT_OF_MEMORY (default 1 GiB).
	MemBytes uint64
	// Kernels maps each kernel name that modules contain to its
	// parameters' sizes in bytes.
	Kernels map[string][]int
	// Fail maps a C API name ("cuMemAlloc", "cuLaunchKernel") to the
	// result every call of it returns instead of running.
	Fail map[string]driver.Result
	// Faults maps a kernel name to the error its launch leaves in the
	// context: the launch itself succeeds, and every later call returns
	// the error, as an asynchronous fault does.
	Faults map[string]driver.Result
	// NoParamInfo, NoParamCount, NoGraphs and NoPeer remove the optional
	// entry points.
	NoParamInfo, NoParamCount, NoGraphs, NoPeer bool
	// PeerDenied makes cuDeviceCanAccessPeer answer 0 for every pair of
	// distinct devices (as between GPUs without a peer link); by default
	// every pair can access each other. All devices share one memory.
	PeerDenied bool

	mu      sync.Mutex
	next    uint64 // next handle or address
	used    uint64 // device bytes allocated
	sticky  driver.Result
	calls   []string
	mem     map[driver.DevPtr][]byte
	host    map[unsafe.Pointer][]byte
	modules map[driver.Module]bool
	funcs   map[driver.Function]string
	// paramErrors counts cuFuncGetParamInfo calls past the last parameter.
	paramErrors int
	streams     map[driver.Stream]*stream
	events      map[driver.Event]bool
	textures    map[driver.TexObject]bool
	graphs      map[driver.Graph][]Launch
	execs       map[driver.GraphExec][]Launch
	launches    []Launch
	copies      []Copy
	peers       map[driver.Context]bool
	retained    int
}

// Copy is a recorded memory copy: the API name, the destination and
// source addresses (device addresses, or host addresses as integers), the
// bytes and the stream (0 for the synchronous copies).
type Copy struct {
	API      string
	Dst, Src uint64
	Bytes    uint64
	Stream   driver.Stream
}

type stream struct {
	capturing bool
	captured  []Launch
}

// Launch is a recorded kernel launch.
type Launch struct {
	Kernel       string
	Grid, Block  [3]uint32
	SharedBytes  uint32
	Stream       driver.Stream
	Args         [][]byte // each argument's bytes, as many as the kernel declares
	FromGraph    bool     // replayed from a graph
	CapturedInto bool     // recorded into a graph being captured, not run
}

// Name is "fakedriver".
func (d *Driver) Name() string { return "fakedriver" }

// Has reports the optional entry points not removed by configuration.
func (d *Driver) Has(f driver.Feature) bool {
	switch f {
	case driver.Graphs:
		return !d.NoGraphs
	case driver.ParamInfo:
		return !d.NoParamInfo
	case driver.ParamCount:
		return !d.NoParamCount
	case driver.Peer:
		return !d.NoPeer
	}
	return false
}

// enter starts a call: it returns the sticky error, or the injected
// failure of api, or Success; it holds d.mu when it returns Success.
func (d *Driver) enter(api string) driver.Result {
	d.mu.Lock()
	if d.mem == nil {
		d.init()
	}
	d.calls = append(d.calls, api)
	r := d.sticky
	if r == driver.Success {
		r = d.Fail[api]
	}
	if r != driver.Success {
		d.mu.Unlock()
	}
	return r
}

func (d *Driver) init() {
	d.next = 0x7f0000000000
	d.mem = map[driver.DevPtr][]byte{}
	d.host = map[unsafe.Pointer][]byte{}
	d.modules = map[driver.Module]bool{}
	d.funcs = map[driver.Function]string{}
	d.streams = map[driver.Stream]*stream{}
	d.events = map[driver.Event]bool{}
	d.textures = map[driver.TexObject]bool{}
	d.graphs = map[driver.Graph][]Launch{}
	d.execs = map[driver.GraphExec][]Launch{}
	if d.MemBytes == 0 {
		d.MemBytes = 1 << 30
	}
}

// handle returns a fresh, 256-byte aligned, never reused address.
func (d *Driver) handle(size uint64) uint64 {
	h := d.next
	d.next += (size + 511) &^ 255
	return h
}

// Calls returns the API names called so far, in order.
func (d *Driver) Calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.calls...)
}

// Launches returns the launches run so far (graph replays included).
func (d *Driver) Launches() []Launch {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Launch(nil), d.launches...)
}

// Copies returns the memory copies run so far, in order.
func (d *Driver) Copies() []Copy {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Copy(nil), d.copies...)
}

// Live counts the objects created and not destroyed, per kind, leaving
// out kinds with none: "device buffers", "host buffers", "modules",
// "streams", "events", "textures", "graphs", "graph execs", "contexts".
func (d *Driver) Live() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := map[string]int{}
	add := func(k string, n int) {
		if n != 0 {
			m[k] = n
		}
	}
	add("device buffers", len(d.mem))
	add("host buffers", len(d.host))
	add("modules", len(d.modules))
	add("streams", len(d.streams))
	add("events", len(d.events))
	add("textures", len(d.textures))
	add("graphs", len(d.graphs))
	add("graph execs", len(d.execs))
	add("contexts", d.retained)
	return m
}

// Sticky returns the error the context is poisoned with, or Success.
func (d *Driver) Sticky() driver.Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sticky
}

func (d *Driver) Init(flags uint32) driver.Result {
	return run(d, "cuInit", func() driver.Result { return d.InitResult })
}

func (d *Driver) DriverGetVersion() (int32, driver.Result) {
	return call(d, "cuDriverGetVersion", func() (int32, driver.Result) { return 12080, driver.Success })
}

// GetErrorName and GetErrorString leave naming to the caller's table.
func (d *Driver) GetErrorName(r driver.Result) (string, driver.Result) {
	return "", driver.ErrorInvalidValue
}

func (d *Driver) GetErrorString(r driver.Result) (string, driver.Result) {
	return "", driver.ErrorInvalidValue
}

func (d *Driver) devices() int32 {
	if d.NoDevices {
		return 0
	}
	if d.Devices == 0 {
		return 1
	}
	return int32(d.Devices)
}

func (d *Driver) DeviceGetCount() (int32, driver.Result) {
	return call(d, "cuDeviceGetCount", func() (int32, driver.Result) { return d.devices(), driver.Success })
}

func (d *Driver) DeviceGet(ordinal int32) (driver.Device, driver.Result) {
	return call(d, "cuDeviceGet", func() (driver.Device, driver.Result) {
		if ordinal < 0 || ordinal >= d.devices() {
			return 0, driver.Result(101) // CUDA_ERROR_INVALID_DEVICE
		}
		return driver.Device(ordinal), driver.Success
	})
}

func (d *Driver) DeviceGetName(dev driver.Device) (string, driver.Result) {
	return call(d, "cuDeviceGetName", func() (string, driver.Result) { return fmt.Sprintf("Fake GPU %d", dev), driver.Success })
}

func (d *Driver) DeviceGetUuid(dev driver.Device) ([16]byte, driver.Result) {
	return call(d, "cuDeviceGetUuid", func() ([16]byte, driver.Result) { return [16]byte{0xfa, 0xce, 15: byte(dev)}, driver.Success })
}

// Attributes of the fake device: compute capability 9.0, 132 SMs, 4 MiB
// of L2, the common limits; others are 0.
var attributes = map[driver.DeviceAttribute]int32{
	1: 1024, 2: 1024, 5: 2147483647, 8: 48 << 10, 9: 64 << 10, 10: 32, 12: 65536,
	13: 1980000, 14: 512, 16: 132, 36: 2619000, 37: 5120, 38: 4 << 20, 39: 2048,
	51: 32, 69: 1 << 27, 70: 1 << 17, 71: 1 << 16, 72: 1 << 21, 75: 9, 76: 0,
	81: 228 << 10, 97: 227 << 10,
}

func (d *Driver) DeviceGetAttribute(a driver.DeviceAttribute, dev driver.Device) (int32, driver.Result) {
	return call(d, "cuDeviceGetAttribute", func() (int32, driver.Result) { return attributes[a], driver.Success })
}

func (d *Driver) DeviceTotalMem(dev driver.Device) (uint64, driver.Result) {
	return call(d, "cuDeviceTotalMem", func() (uint64, driver.Result) { return d.MemBytes, driver.Success })
}

func (d *Driver) DevicePrimaryCtxRetain(dev driver.Device) (driver.Context, driver.Result) {
	return call(d, "cuDevicePrimaryCtxRetain", func() (driver.Context, driver.Result) {
		d.retained++
		return driver.Context(0xc0de00 + uintptr(dev)), driver.Success
	})
}

func (d *Driver) DevicePrimaryCtxRelease(dev driver.Device) driver.Result {
	return run(d, "cuDevicePrimaryCtxRelease", func() driver.Result {
		if d.retained == 0 {
			return driver.ErrorInvalidValue
		}
		d.retained--
		return driver.Success
	})
}

// DevicePrimaryCtxReset clears the sticky error and frees everything the
// context held (memory, modules, streams, events, textures, graphs), as
// the real driver destroys the context's state; the retain count stays.
// It runs whatever error the context holds.
func (d *Driver) DevicePrimaryCtxReset(dev driver.Device) driver.Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.mem == nil {
		d.init()
	}
	d.calls = append(d.calls, "cuDevicePrimaryCtxReset")
	if r := d.Fail["cuDevicePrimaryCtxReset"]; r != driver.Success {
		return r
	}
	retained, next := d.retained, d.next
	d.init()
	d.retained, d.next, d.used = retained, next, 0
	d.sticky = driver.Success
	return driver.Success
}

func (d *Driver) CtxSetCurrent(c driver.Context) driver.Result {
	return run(d, "cuCtxSetCurrent", func() driver.Result { return driver.Success })
}

func (d *Driver) CtxSynchronize() driver.Result { return d.simple("cuCtxSynchronize") }

// simple runs a call that has no effect in the fake.
func (d *Driver) simple(api string) driver.Result {
	return run(d, api, func() driver.Result { return driver.Success })
}

func (d *Driver) alloc(bytes uint64) (driver.DevPtr, driver.Result) {
	if bytes == 0 {
		return 0, driver.ErrorInvalidValue
	}
	if bytes > d.MemBytes-d.used {
		return 0, driver.ErrorOutOfMemory
	}
	p := driver.DevPtr(d.handle(bytes))
	d.mem[p] = make([]byte, bytes)
	d.used += bytes
	return p, driver.Success
}

func (d *Driver) MemAlloc(bytes uint64) (driver.DevPtr, driver.Result) {
	return call(d, "cuMemAlloc", func() (driver.DevPtr, driver.Result) { return d.alloc(bytes) })
}

func (d *Driver) MemAllocPitch(widthBytes, height uint64, elemSize uint32) (driver.DevPtr, uint64, driver.Result) {
	if r := d.enter("cuMemAllocPitch"); r != driver.Success {
		return 0, 0, r
	}
	defer d.mu.Unlock()
	pitch := (widthBytes + 511) &^ 511
	p, r := d.alloc(pitch * height)
	if r != driver.Success {
		return 0, 0, r
	}
	return p, pitch, driver.Success
}

func (d *Driver) MemFree(p driver.DevPtr) driver.Result {
	return run(d, "cuMemFree", func() driver.Result {
		b, ok := d.mem[p]
		if !ok {
			return driver.ErrorInvalidValue
		}
		d.used -= uint64(len(b))
		delete(d.mem, p)
		return driver.Success
	})
}

func (d *Driver) MemGetInfo() (free, total uint64, r driver.Result) {
	if r := d.enter("cuMemGetInfo"); r != driver.Success {
		return 0, 0, r
	}
	defer d.mu.Unlock()
	return d.MemBytes - d.used, d.MemBytes, driver.Success
}

func (d *Driver) MemHostAlloc(bytes uint64, flags uint32) (unsafe.Pointer, driver.Result) {
	return call(d, "cuMemHostAlloc", func() (unsafe.Pointer, driver.Result) {
		if bytes == 0 {
			return nil, driver.ErrorInvalidValue
		}
		b := make([]byte, bytes)
		p := unsafe.Pointer(&b[0])
		d.host[p] = b
		return p, driver.Success
	})
}

func (d *Driver) MemFreeHost(p unsafe.Pointer) driver.Result {
	return run(d, "cuMemFreeHost", func() driver.Result { return drop(d.host, p, driver.ErrorInvalidValue) })
}

// span returns the n device bytes at p, or false when they are not inside
// one allocation.
func (d *Driver) span(p driver.DevPtr, n uint64) ([]byte, bool) {
	for base, b := range d.mem {
		if p >= base && uint64(p-base)+n <= uint64(len(b)) {
			return b[p-base : uint64(p-base)+n], true
		}
	}
	return nil, false
}

func (d *Driver) memset(api string, p driver.DevPtr, v uint32, width, n uint64) driver.Result {
	if r := d.enter(api); r != driver.Success {
		return r
	}
	defer d.mu.Unlock()
	b, ok := d.span(p, n*width)
	if !ok {
		return driver.ErrorInvalidValue
	}
	for i := uint64(0); i < n; i++ {
		for k := uint64(0); k < width; k++ {
			b[i*width+k] = byte(v >> (8 * k))
		}
	}
	return driver.Success
}

func (d *Driver) MemsetD8(p driver.DevPtr, v uint8, n uint64) driver.Result {
	return d.memset("cuMemsetD8", p, uint32(v), 1, n)
}

func (d *Driver) MemsetD32(p driver.DevPtr, v uint32, n uint64) driver.Result {
	return d.memset("cuMemsetD32", p, v, 4, n)
}

func (d *Driver) MemsetD8Async(p driver.DevPtr, v uint8, n uint64, s driver.Stream) driver.Result {
	return d.memset("cuMemsetD8Async", p, uint32(v), 1, n)
}

func (d *Driver) MemsetD32Async(p driver.DevPtr, v uint32, n uint64, s driver.Stream) driver.Result {
	return d.memset("cuMemsetD32Async", p, v, 4, n)
}

func hostBytes(p unsafe.Pointer, n uint64) []byte { return unsafe.Slice((*byte)(p), n) }

func (d *Driver) htod(api string, dst driver.DevPtr, src unsafe.Pointer, n uint64, s driver.Stream) driver.Result {
	if r := d.enter(api); r != driver.Success {
		return r
	}
	defer d.mu.Unlock()
	d.copies = append(d.copies, Copy{API: api, Dst: uint64(dst), Src: uint64(uintptr(src)), Bytes: n, Stream: s})
	b, ok := d.span(dst, n)
	if !ok || src == nil {
		return driver.ErrorInvalidValue
	}
	copy(b, hostBytes(src, n))
	return driver.Success
}

func (d *Driver) dtoh(api string, dst unsafe.Pointer, src driver.DevPtr, n uint64, s driver.Stream) driver.Result {
	if r := d.enter(api); r != driver.Success {
		return r
	}
	defer d.mu.Unlock()
	d.copies = append(d.copies, Copy{API: api, Dst: uint64(uintptr(dst)), Src: uint64(src), Bytes: n, Stream: s})
	b, ok := d.span(src, n)
	if !ok || dst == nil {
		return driver.ErrorInvalidValue
	}
	copy(hostBytes(dst, n), b)
	return driver.Success
}

func (d *Driver) dtod(api string, dst, src driver.DevPtr, n uint64, stream driver.Stream) driver.Result {
	if r := d.enter(api); r != driver.Success {
		return r
	}
	defer d.mu.Unlock()
	d.copies = append(d.copies, Copy{API: api, Dst: uint64(dst), Src: uint64(src), Bytes: n, Stream: stream})
	s, ok1 := d.span(src, n)
	t, ok2 := d.span(dst, n)
	if !ok1 || !ok2 {
		return driver.ErrorInvalidValue
	}
	copy(t, s)
	return driver.Success
}

func (d *Driver) MemcpyHtoD(dst driver.DevPtr, src unsafe.Pointer, n uint64) driver.Result {
	return d.htod("cuMemcpyHtoD", dst, src, n, 0)
}

func (d *Driver) MemcpyDtoH(dst unsafe.Pointer, src driver.DevPtr, n uint64) driver.Result {
	return d.dtoh("cuMemcpyDtoH", dst, src, n, 0)
}

func (d *Driver) MemcpyDtoD(dst, src driver.DevPtr, n uint64) driver.Result {
	return d.dtod("cuMemcpyDtoD", dst, src, n, 0)
}

func (d *Driver) MemcpyHtoDAsync(dst driver.DevPtr, src unsafe.Pointer, n uint64, s driver.Stream) driver.Result {
	return d.htod("cuMemcpyHtoDAsync", dst, src, n, s)
}

func (d *Driver) MemcpyDtoHAsync(dst unsafe.Pointer, src driver.DevPtr, n uint64, s driver.Stream) driver.Result {
	return d.dtoh("cuMemcpyDtoHAsync", dst, src, n, s)
}

func (d *Driver) MemcpyDtoDAsync(dst, src driver.DevPtr, n uint64, s driver.Stream) driver.Result {
	return d.dtod("cuMemcpyDtoDAsync", dst, src, n, s)
}

// MemcpyPeerAsync copies as MemcpyDtoDAsync does (all devices share one
// memory), after checking that the destination context was given access
// to the source's (CtxEnablePeerAccess) or is the source context.
func (d *Driver) MemcpyPeerAsync(dst driver.DevPtr, dstCtx driver.Context, src driver.DevPtr, srcCtx driver.Context, n uint64, s driver.Stream) driver.Result {
	if d.NoPeer {
		return driver.ErrorNotFound
	}
	d.mu.Lock()
	ok := dstCtx == srcCtx || d.peers[dstCtx] || d.peers[srcCtx]
	d.mu.Unlock()
	if !ok {
		return driver.ErrorInvalidValue
	}
	return d.dtod("cuMemcpyPeerAsync", dst, src, n, s)
}

// DeviceCanAccessPeer answers 1 unless PeerDenied is set and the devices
// differ.
func (d *Driver) DeviceCanAccessPeer(dev, peer driver.Device) (int32, driver.Result) {
	if d.NoPeer {
		return 0, driver.ErrorNotFound
	}
	return call(d, "cuDeviceCanAccessPeer", func() (int32, driver.Result) {
		if d.PeerDenied && dev != peer {
			return 0, driver.Success
		}
		return 1, driver.Success
	})
}

// CtxEnablePeerAccess records that peer's memory may be accessed from
// the other contexts (the fake does not track which context is current);
// a second call for the same peer is
// CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, as in the real driver for the
// same pair.
func (d *Driver) CtxEnablePeerAccess(peer driver.Context, flags uint32) driver.Result {
	if d.NoPeer {
		return driver.ErrorNotFound
	}
	return run(d, "cuCtxEnablePeerAccess", func() driver.Result {
		if d.PeerDenied {
			return driver.Result(217) // CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
		}
		if d.peers == nil {
			d.peers = map[driver.Context]bool{}
		}
		if d.peers[peer] {
			return driver.ErrorPeerAccessAlreadyEnabled
		}
		d.peers[peer] = true
		return driver.Success
	})
}

func (d *Driver) memcpy2D(api string, c *driver.Memcpy2D) driver.Result {
	if r := d.enter(api); r != driver.Success {
		return r
	}
	defer d.mu.Unlock()
	if c == nil || c.WidthInBytes > c.SrcPitch || c.WidthInBytes > c.DstPitch {
		return driver.ErrorInvalidValue
	}
	row := func(typ uint32, host unsafe.Pointer, dev driver.DevPtr, pitch, y uintptr) ([]byte, bool) {
		off := y * pitch
		if typ == driver.MemoryTypeHost {
			if host == nil {
				return nil, false
			}
			return hostBytes(unsafe.Add(host, off), uint64(c.WidthInBytes)), true
		}
		return d.span(dev+driver.DevPtr(off), uint64(c.WidthInBytes))
	}
	for y := uintptr(0); y < c.Height; y++ {
		s, ok1 := row(c.SrcMemoryType, c.SrcHost, c.SrcDevice, c.SrcPitch, y)
		t, ok2 := row(c.DstMemoryType, c.DstHost, c.DstDevice, c.DstPitch, y)
		if !ok1 || !ok2 {
			return driver.ErrorInvalidValue
		}
		copy(t, s)
	}
	return driver.Success
}

func (d *Driver) Memcpy2D(c *driver.Memcpy2D) driver.Result { return d.memcpy2D("cuMemcpy2D", c) }

func (d *Driver) Memcpy2DAsync(c *driver.Memcpy2D, s driver.Stream) driver.Result {
	return d.memcpy2D("cuMemcpy2DAsync", c)
}

func (d *Driver) StreamCreate(flags uint32) (driver.Stream, driver.Result) {
	return call(d, "cuStreamCreate", func() (driver.Stream, driver.Result) {
		s := driver.Stream(d.handle(1))
		d.streams[s] = &stream{}
		return s, driver.Success
	})
}

func (d *Driver) StreamDestroy(s driver.Stream) driver.Result {
	return run(d, "cuStreamDestroy", func() driver.Result { return drop(d.streams, s, driver.ErrorInvalidHandle) })
}

func (d *Driver) StreamSynchronize(s driver.Stream) driver.Result {
	return d.simple("cuStreamSynchronize")
}

func (d *Driver) EventCreate(flags uint32) (driver.Event, driver.Result) {
	return call(d, "cuEventCreate", func() (driver.Event, driver.Result) {
		e := driver.Event(d.handle(1))
		d.events[e] = true
		return e, driver.Success
	})
}

func (d *Driver) EventDestroy(e driver.Event) driver.Result {
	return run(d, "cuEventDestroy", func() driver.Result { return drop(d.events, e, driver.ErrorInvalidHandle) })
}

func (d *Driver) EventRecord(e driver.Event, s driver.Stream) driver.Result {
	return d.simple("cuEventRecord")
}

// StreamWaitEvent checks that the stream (0: the legacy stream) and the
// event exist; work runs at once here, so there is nothing to wait for.
func (d *Driver) StreamWaitEvent(s driver.Stream, e driver.Event, flags uint32) driver.Result {
	return run(d, "cuStreamWaitEvent", func() driver.Result {
		if !d.events[e] || s != 0 && d.streams[s] == nil || flags != 0 {
			return driver.ErrorInvalidHandle
		}
		return driver.Success
	})
}

func (d *Driver) EventSynchronize(e driver.Event) driver.Result {
	return d.simple("cuEventSynchronize")
}

// EventElapsedTime reports one microsecond per call recorded since the
// driver was created, so that elapsed times are positive and distinct.
func (d *Driver) EventElapsedTime(start, stop driver.Event) (float32, driver.Result) {
	return call(d, "cuEventElapsedTime", func() (float32, driver.Result) {
		if !d.events[start] || !d.events[stop] {
			return 0, driver.ErrorInvalidHandle
		}
		return float32(len(d.calls)) / 1000, driver.Success
	})
}

func (d *Driver) ModuleLoadData(image unsafe.Pointer) (driver.Module, driver.Result) {
	return call(d, "cuModuleLoadData", func() (driver.Module, driver.Result) {
		if image == nil {
			return 0, driver.ErrorInvalidValue
		}
		m := driver.Module(d.handle(1))
		d.modules[m] = true
		return m, driver.Success
	})
}

func (d *Driver) ModuleUnload(m driver.Module) driver.Result {
	return run(d, "cuModuleUnload", func() driver.Result { return drop(d.modules, m, driver.ErrorInvalidHandle) })
}

func (d *Driver) ModuleGetFunction(m driver.Module, name string) (driver.Function, driver.Result) {
	return call(d, "cuModuleGetFunction", func() (driver.Function, driver.Result) {
		if !d.modules[m] {
			return 0, driver.ErrorInvalidHandle
		}
		if _, ok := d.Kernels[name]; !ok {
			return 0, driver.ErrorNotFound
		}
		f := driver.Function(d.handle(1))
		d.funcs[f] = name
		return f, driver.Success
	})
}

// ModuleGetGlobal finds no globals: modules of the fake have none.
func (d *Driver) ModuleGetGlobal(m driver.Module, name string) (driver.DevPtr, uint64, driver.Result) {
	if r := d.enter("cuModuleGetGlobal"); r != driver.Success {
		return 0, 0, r
	}
	defer d.mu.Unlock()
	return 0, 0, driver.ErrorNotFound
}

func (d *Driver) FuncGetAttribute(a driver.FuncAttribute, f driver.Function) (int32, driver.Result) {
	return call(d, "cuFuncGetAttribute", func() (int32, driver.Result) {
		if d.funcs[f] == "" {
			return 0, driver.ErrorInvalidHandle
		}
		if a == 0 { // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
			return 1024, driver.Success
		}
		return 0, driver.Success
	})
}

func (d *Driver) FuncSetAttribute(f driver.Function, a driver.FuncAttribute, v int32) driver.Result {
	return d.simple("cuFuncSetAttribute")
}

// layout returns the offsets of parameters of the given sizes, each at
// its natural alignment.
func layout(sizes []int) []int {
	offs := make([]int, len(sizes))
	off := 0
	for i, s := range sizes {
		if s > 0 {
			off = (off + s - 1) / s * s
		}
		offs[i] = off
		off += s
	}
	return offs
}

func (d *Driver) FuncGetParamInfo(f driver.Function, index uint64) (offset, size uint64, r driver.Result) {
	if d.NoParamInfo {
		return 0, 0, driver.ErrorNotFound
	}
	if r := d.enter("cuFuncGetParamInfo"); r != driver.Success {
		return 0, 0, r
	}
	defer d.mu.Unlock()
	name := d.funcs[f]
	if name == "" {
		return 0, 0, driver.ErrorInvalidHandle
	}
	sizes := d.Kernels[name]
	if index >= uint64(len(sizes)) {
		d.paramErrors++
		return 0, 0, driver.ErrorInvalidValue
	}
	return uint64(layout(sizes)[index]), uint64(sizes[index]), driver.Success
}

func (d *Driver) FuncGetParamCount(f driver.Function) (n uint64, r driver.Result) {
	if d.NoParamCount {
		return 0, driver.ErrorNotFound
	}
	if r := d.enter("cuFuncGetParamCount"); r != driver.Success {
		return 0, r
	}
	defer d.mu.Unlock()
	name := d.funcs[f]
	if name == "" {
		return 0, driver.ErrorInvalidHandle
	}
	return uint64(len(d.Kernels[name])), driver.Success
}

// ParamInfoErrors returns how many cuFuncGetParamInfo calls asked for a
// parameter past the kernel's last: the API errors compute-sanitizer
// reports.
func (d *Driver) ParamInfoErrors() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paramErrors
}

func (d *Driver) LaunchKernel(f driver.Function, gx, gy, gz, bx, by, bz, shared uint32, s driver.Stream, params *unsafe.Pointer) driver.Result {
	return run(d, "cuLaunchKernel", func() driver.Result {
		name := d.funcs[f]
		if name == "" {
			return driver.ErrorInvalidHandle
		}
		if gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || bx*by*bz > 1024 {
			return driver.ErrorInvalidValue
		}
		sizes := d.Kernels[name]
		if len(sizes) > 0 && params == nil {
			return driver.ErrorInvalidValue
		}
		l := Launch{Kernel: name, Grid: [3]uint32{gx, gy, gz}, Block: [3]uint32{bx, by, bz}, SharedBytes: shared, Stream: s}
		if len(sizes) > 0 {
			ptrs := unsafe.Slice(params, len(sizes))
			for i, n := range sizes {
				l.Args = append(l.Args, append([]byte(nil), unsafe.Slice((*byte)(ptrs[i]), n)...))
			}
		}
		if st := d.streams[s]; st != nil && st.capturing {
			l.CapturedInto = true
			st.captured = append(st.captured, l)
			return driver.Success
		}
		d.launches = append(d.launches, l)
		if fault := d.Faults[name]; fault != driver.Success {
			d.sticky = fault
		}
		return driver.Success
	})
}

func (d *Driver) TexObjectCreate(res *driver.ResourceDesc, tex *driver.TextureDesc) (driver.TexObject, driver.Result) {
	return call(d, "cuTexObjectCreate", func() (driver.TexObject, driver.Result) {
		if res == nil || tex == nil {
			return 0, driver.ErrorInvalidValue
		}
		t := driver.TexObject(d.handle(1))
		d.textures[t] = true
		return t, driver.Success
	})
}

func (d *Driver) TexObjectDestroy(t driver.TexObject) driver.Result {
	return run(d, "cuTexObjectDestroy", func() driver.Result { return drop(d.textures, t, driver.ErrorInvalidHandle) })
}

func (d *Driver) StreamBeginCapture(s driver.Stream, mode uint32) driver.Result {
	if d.NoGraphs {
		return driver.ErrorNotFound
	}
	return run(d, "cuStreamBeginCapture", func() driver.Result {
		st := d.streams[s]
		if st == nil || st.capturing {
			return driver.ErrorInvalidValue
		}
		st.capturing, st.captured = true, nil
		return driver.Success
	})
}

func (d *Driver) StreamEndCapture(s driver.Stream) (driver.Graph, driver.Result) {
	if d.NoGraphs {
		return 0, driver.ErrorNotFound
	}
	return call(d, "cuStreamEndCapture", func() (driver.Graph, driver.Result) {
		st := d.streams[s]
		if st == nil || !st.capturing {
			return 0, driver.ErrorInvalidValue
		}
		g := driver.Graph(d.handle(1))
		d.graphs[g] = st.captured
		st.capturing, st.captured = false, nil
		return g, driver.Success
	})
}

func (d *Driver) GraphInstantiate(g driver.Graph, flags uint64) (driver.GraphExec, driver.Result) {
	if d.NoGraphs {
		return 0, driver.ErrorNotFound
	}
	return call(d, "cuGraphInstantiateWithFlags", func() (driver.GraphExec, driver.Result) {
		ls, ok := d.graphs[g]
		if !ok {
			return 0, driver.ErrorInvalidHandle
		}
		e := driver.GraphExec(d.handle(1))
		d.execs[e] = ls
		return e, driver.Success
	})
}

func (d *Driver) GraphUpload(e driver.GraphExec, s driver.Stream) driver.Result {
	if d.NoGraphs {
		return driver.ErrorNotFound
	}
	return d.simple("cuGraphUpload")
}

func (d *Driver) GraphLaunch(e driver.GraphExec, s driver.Stream) driver.Result {
	if d.NoGraphs {
		return driver.ErrorNotFound
	}
	return run(d, "cuGraphLaunch", func() driver.Result {
		ls, ok := d.execs[e]
		if !ok {
			return driver.ErrorInvalidHandle
		}
		for _, l := range ls {
			l.CapturedInto, l.FromGraph, l.Stream = false, true, s
			d.launches = append(d.launches, l)
			if fault := d.Faults[l.Kernel]; fault != driver.Success {
				d.sticky = fault
			}
		}
		return driver.Success
	})
}

func (d *Driver) GraphExecDestroy(e driver.GraphExec) driver.Result {
	if d.NoGraphs {
		return driver.ErrorNotFound
	}
	return run(d, "cuGraphExecDestroy", func() driver.Result { return drop(d.execs, e, driver.ErrorInvalidHandle) })
}

func (d *Driver) GraphDestroy(g driver.Graph) driver.Result {
	if d.NoGraphs {
		return driver.ErrorNotFound
	}
	return run(d, "cuGraphDestroy", func() driver.Result { return drop(d.graphs, g, driver.ErrorInvalidHandle) })
}

var _ driver.Driver = (*Driver)(nil)

// call runs f for the C API api under the driver's lock, unless the
// context holds a sticky error or api is set to fail.
func call[T any](d *Driver, api string, f func() (T, driver.Result)) (T, driver.Result) {
	if r := d.enter(api); r != driver.Success {
		var zero T
		return zero, r
	}
	defer d.mu.Unlock()
	return f()
}

// run is call for the entry points that return a result only.
func run(d *Driver, api string, f func() driver.Result) driver.Result {
	_, r := call(d, api, func() (struct{}, driver.Result) { return struct{}{}, f() })
	return r
}

// drop deletes k from m, or returns bad when m does not hold it.
func drop[K comparable, V any](m map[K]V, k K, bad driver.Result) driver.Result {
	if _, ok := m[k]; !ok {
		return bad
	}
	delete(m, k)
	return driver.Success
}
