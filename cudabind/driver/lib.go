package driver

import (
	"unsafe"

	"github.com/convbench/convbench/cudabind/dl"
)

// Lib is the real driver: libcuda's entry points bound as typed Go
// function values. It implements Driver.
type Lib struct {
	name string

	cuInit             func(flags uint32) Result
	cuDriverGetVersion func(v *int32) Result
	cuGetErrorName     func(r Result, s **byte) Result
	cuGetErrorString   func(r Result, s **byte) Result

	cuDeviceGetCount          func(n *int32) Result
	cuDeviceGet               func(d *Device, ordinal int32) Result
	cuDeviceGetName           func(name *byte, n int32, d Device) Result
	cuDeviceGetUuid           func(uuid *[16]byte, d Device) Result
	cuDeviceGetAttribute      func(v *int32, a DeviceAttribute, d Device) Result
	cuDeviceTotalMem          func(n *uint64, d Device) Result
	cuDevicePrimaryCtxRetain  func(c *Context, d Device) Result
	cuDevicePrimaryCtxRelease func(d Device) Result
	cuDevicePrimaryCtxReset   func(d Device) Result
	cuCtxSetCurrent           func(c Context) Result
	cuCtxSynchronize          uintptr // hot: called with dl.Call

	cuMemAlloc      func(p *DevPtr, bytes uint64) Result
	cuMemAllocPitch func(p *DevPtr, pitch *uint64, widthBytes, height uint64, elemSize uint32) Result
	cuMemFree       func(p DevPtr) Result
	cuMemGetInfo    func(free, total *uint64) Result
	cuMemHostAlloc  func(p *unsafe.Pointer, bytes uint64, flags uint32) Result
	cuMemFreeHost   func(p unsafe.Pointer) Result
	// The data path, called in timed loops, is bound by address and
	// called with dl.Call (see package dl): no reflection per call.
	cuMemsetD8, cuMemsetD32, cuMemsetD8Async, cuMemsetD32Async             uintptr
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD                               uintptr
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync                uintptr
	cuMemcpy2D, cuMemcpy2DAsync                                            uintptr
	cuStreamSynchronize, cuEventRecord, cuEventSynchronize, cuLaunchKernel uintptr
	cuStreamWaitEvent                                                      uintptr
	cuGraphLaunch                                                          uintptr // optional
	cuMemcpyPeerAsync                                                      uintptr // optional

	cuDeviceCanAccessPeer func(can *int32, d, peer Device) Result
	cuCtxEnablePeerAccess func(peer Context, flags uint32) Result

	cuStreamCreate     func(s *Stream, flags uint32) Result
	cuStreamDestroy    func(s Stream) Result
	cuEventCreate      func(e *Event, flags uint32) Result
	cuEventDestroy     func(e Event) Result
	cuEventElapsedTime func(ms *float32, start, stop Event) Result

	cuModuleLoadData    func(m *Module, image unsafe.Pointer) Result
	cuModuleUnload      func(m Module) Result
	cuModuleGetFunction func(f *Function, m Module, name string) Result
	cuModuleGetGlobal   func(p *DevPtr, size *uint64, m Module, name string) Result
	cuFuncGetAttribute  func(v *int32, a FuncAttribute, f Function) Result
	cuFuncSetAttribute  func(f Function, a FuncAttribute, v int32) Result
	cuFuncGetParamInfo  func(f Function, index uint64, offset, size *uint64) Result
	cuFuncGetParamCount func(f Function, count *uint64) Result

	cuTexObjectCreate  func(t *TexObject, res *ResourceDesc, tex *TextureDesc, view unsafe.Pointer) Result
	cuTexObjectDestroy func(t TexObject) Result

	cuStreamBeginCapture func(s Stream, mode uint32) Result
	cuStreamEndCapture   func(s Stream, g *Graph) Result
	cuGraphInstantiate   func(e *GraphExec, g Graph, flags uint64) Result
	cuGraphUpload        func(e GraphExec, s Stream) Result
	cuGraphExecDestroy   func(e GraphExec) Result
	cuGraphDestroy       func(g Graph) Result
}

// table lists every entry point with the C names to try, versioned names
// (the ones cuda.h maps the plain names to) first.
func (l *Lib) table() []dl.Symbol {
	f, opt, a, opta := dl.Func, dl.OptionalFunc, dl.Address, dl.OptionalAddress
	return []dl.Symbol{
		f(&l.cuInit, "cuInit"),
		f(&l.cuDriverGetVersion, "cuDriverGetVersion"),
		f(&l.cuGetErrorName, "cuGetErrorName"),
		f(&l.cuGetErrorString, "cuGetErrorString"),
		f(&l.cuDeviceGetCount, "cuDeviceGetCount"),
		f(&l.cuDeviceGet, "cuDeviceGet"),
		f(&l.cuDeviceGetName, "cuDeviceGetName"),
		f(&l.cuDeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid"),
		f(&l.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
		f(&l.cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
		f(&l.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
		f(&l.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
		f(&l.cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset"),
		f(&l.cuCtxSetCurrent, "cuCtxSetCurrent"),
		a(&l.cuCtxSynchronize, "cuCtxSynchronize"),
		f(&l.cuMemAlloc, "cuMemAlloc_v2"),
		f(&l.cuMemAllocPitch, "cuMemAllocPitch_v2"),
		f(&l.cuMemFree, "cuMemFree_v2"),
		f(&l.cuMemGetInfo, "cuMemGetInfo_v2"),
		f(&l.cuMemHostAlloc, "cuMemHostAlloc"),
		f(&l.cuMemFreeHost, "cuMemFreeHost"),
		a(&l.cuMemsetD8, "cuMemsetD8_v2"),
		a(&l.cuMemsetD32, "cuMemsetD32_v2"),
		a(&l.cuMemsetD8Async, "cuMemsetD8Async"),
		a(&l.cuMemsetD32Async, "cuMemsetD32Async"),
		a(&l.cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
		a(&l.cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
		a(&l.cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
		a(&l.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
		a(&l.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
		a(&l.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
		a(&l.cuMemcpy2D, "cuMemcpy2D_v2"),
		a(&l.cuMemcpy2DAsync, "cuMemcpy2DAsync_v2"),
		f(&l.cuStreamCreate, "cuStreamCreate"),
		f(&l.cuStreamDestroy, "cuStreamDestroy_v2"),
		a(&l.cuStreamSynchronize, "cuStreamSynchronize"),
		f(&l.cuEventCreate, "cuEventCreate"),
		f(&l.cuEventDestroy, "cuEventDestroy_v2"),
		a(&l.cuEventRecord, "cuEventRecord"),
		a(&l.cuStreamWaitEvent, "cuStreamWaitEvent"),
		a(&l.cuEventSynchronize, "cuEventSynchronize"),
		f(&l.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
		f(&l.cuModuleLoadData, "cuModuleLoadData"),
		f(&l.cuModuleUnload, "cuModuleUnload"),
		f(&l.cuModuleGetFunction, "cuModuleGetFunction"),
		f(&l.cuModuleGetGlobal, "cuModuleGetGlobal_v2"),
		f(&l.cuFuncGetAttribute, "cuFuncGetAttribute"),
		f(&l.cuFuncSetAttribute, "cuFuncSetAttribute"),
		a(&l.cuLaunchKernel, "cuLaunchKernel"),
		f(&l.cuTexObjectCreate, "cuTexObjectCreate"),
		f(&l.cuTexObjectDestroy, "cuTexObjectDestroy"),
		opt(&l.cuFuncGetParamInfo, "cuFuncGetParamInfo"),
		opt(&l.cuFuncGetParamCount, "cuFuncGetParamCount"),
		opt(&l.cuStreamBeginCapture, "cuStreamBeginCapture_v2"),
		opt(&l.cuStreamEndCapture, "cuStreamEndCapture"),
		opt(&l.cuGraphInstantiate, "cuGraphInstantiateWithFlags"),
		opt(&l.cuGraphUpload, "cuGraphUpload"),
		opta(&l.cuGraphLaunch, "cuGraphLaunch"),
		opt(&l.cuGraphExecDestroy, "cuGraphExecDestroy"),
		opt(&l.cuGraphDestroy, "cuGraphDestroy"),
		opt(&l.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer"),
		opt(&l.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess"),
		opta(&l.cuMemcpyPeerAsync, "cuMemcpyPeerAsync"),
	}
}

// Load opens the first of names that loads and binds the driver's entry
// points. It does not call cuInit. A library that cannot be opened is a
// *dl.OpenError, one without a required symbol a *dl.MissingSymbolError.
func Load(names []string) (*Lib, error) {
	lib, err := dl.Open(names)
	if err != nil {
		return nil, err
	}
	l := &Lib{name: lib.Name}
	if err := lib.Bind(l.table()); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Lib) Name() string { return l.name }

func (l *Lib) Has(f Feature) bool {
	switch f {
	case Graphs:
		return l.cuStreamBeginCapture != nil && l.cuStreamEndCapture != nil && l.cuGraphInstantiate != nil &&
			l.cuGraphUpload != nil && l.cuGraphLaunch != 0 && l.cuGraphExecDestroy != nil && l.cuGraphDestroy != nil
	case ParamInfo:
		return l.cuFuncGetParamInfo != nil
	case ParamCount:
		return l.cuFuncGetParamCount != nil
	case Peer:
		return l.cuDeviceCanAccessPeer != nil && l.cuCtxEnablePeerAccess != nil && l.cuMemcpyPeerAsync != 0
	}
	return false
}

func (l *Lib) Init(flags uint32) Result { return l.cuInit(flags) }

func (l *Lib) DriverGetVersion() (int32, Result) {
	return out(func(v *int32) Result { return l.cuDriverGetVersion(v) })
}

func (l *Lib) GetErrorName(code Result) (string, Result) {
	var p *byte
	r := l.cuGetErrorName(code, &p)
	return dl.GoString(p), r
}

func (l *Lib) GetErrorString(code Result) (string, Result) {
	var p *byte
	r := l.cuGetErrorString(code, &p)
	return dl.GoString(p), r
}

func (l *Lib) DeviceGetCount() (int32, Result) {
	return out(func(n *int32) Result { return l.cuDeviceGetCount(n) })
}

func (l *Lib) DeviceGet(ordinal int32) (Device, Result) {
	return out(func(d *Device) Result { return l.cuDeviceGet(d, ordinal) })
}

func (l *Lib) DeviceGetName(d Device) (string, Result) {
	var name [256]byte
	r := l.cuDeviceGetName(&name[0], int32(len(name)), d)
	name[len(name)-1] = 0
	return dl.GoString(&name[0]), r
}

func (l *Lib) DeviceGetUuid(d Device) ([16]byte, Result) {
	var u [16]byte
	r := l.cuDeviceGetUuid(&u, d)
	return u, r
}

func (l *Lib) DeviceGetAttribute(a DeviceAttribute, d Device) (int32, Result) {
	return out(func(v *int32) Result { return l.cuDeviceGetAttribute(v, a, d) })
}

func (l *Lib) DeviceTotalMem(d Device) (uint64, Result) {
	return out(func(n *uint64) Result { return l.cuDeviceTotalMem(n, d) })
}

func (l *Lib) DevicePrimaryCtxRetain(d Device) (Context, Result) {
	return out(func(c *Context) Result { return l.cuDevicePrimaryCtxRetain(c, d) })
}

func (l *Lib) DevicePrimaryCtxRelease(d Device) Result { return l.cuDevicePrimaryCtxRelease(d) }
func (l *Lib) DevicePrimaryCtxReset(d Device) Result   { return l.cuDevicePrimaryCtxReset(d) }
func (l *Lib) CtxSetCurrent(c Context) Result          { return l.cuCtxSetCurrent(c) }
func (l *Lib) CtxSynchronize() Result                  { return Result(dl.Call(l.cuCtxSynchronize)) }

func (l *Lib) DeviceCanAccessPeer(d, peer Device) (int32, Result) {
	return boundOut(l.cuDeviceCanAccessPeer != nil, func(can *int32) Result { return l.cuDeviceCanAccessPeer(can, d, peer) })
}

func (l *Lib) CtxEnablePeerAccess(peer Context, flags uint32) Result {
	return bound(l.cuCtxEnablePeerAccess != nil, func() Result { return l.cuCtxEnablePeerAccess(peer, flags) })
}

func (l *Lib) MemAlloc(bytes uint64) (DevPtr, Result) {
	return out(func(p *DevPtr) Result { return l.cuMemAlloc(p, bytes) })
}

func (l *Lib) MemAllocPitch(widthBytes, height uint64, elemSize uint32) (DevPtr, uint64, Result) {
	var p DevPtr
	var pitch uint64
	r := l.cuMemAllocPitch(&p, &pitch, widthBytes, height, elemSize)
	return p, pitch, r
}

func (l *Lib) MemFree(p DevPtr) Result { return l.cuMemFree(p) }

func (l *Lib) MemGetInfo() (free, total uint64, r Result) {
	r = l.cuMemGetInfo(&free, &total)
	return free, total, r
}

func (l *Lib) MemHostAlloc(bytes uint64, flags uint32) (unsafe.Pointer, Result) {
	var p unsafe.Pointer
	r := l.cuMemHostAlloc(&p, bytes, flags)
	return p, r
}

func (l *Lib) MemFreeHost(p unsafe.Pointer) Result { return l.cuMemFreeHost(p) }
func (l *Lib) MemsetD8(p DevPtr, v uint8, n uint64) Result {
	return Result(dl.Call(l.cuMemsetD8, uintptr(p), uintptr(v), uintptr(n)))
}

func (l *Lib) MemsetD32(p DevPtr, v uint32, n uint64) Result {
	return Result(dl.Call(l.cuMemsetD32, uintptr(p), uintptr(v), uintptr(n)))
}

func (l *Lib) MemsetD8Async(p DevPtr, v uint8, n uint64, s Stream) Result {
	return Result(dl.Call(l.cuMemsetD8Async, uintptr(p), uintptr(v), uintptr(n), uintptr(s)))
}

func (l *Lib) MemsetD32Async(p DevPtr, v uint32, n uint64, s Stream) Result {
	return Result(dl.Call(l.cuMemsetD32Async, uintptr(p), uintptr(v), uintptr(n), uintptr(s)))
}

func (l *Lib) MemcpyHtoD(dst DevPtr, src unsafe.Pointer, n uint64) Result {
	return Result(dl.Call(l.cuMemcpyHtoD, uintptr(dst), uintptr(src), uintptr(n)))
}

func (l *Lib) MemcpyDtoH(dst unsafe.Pointer, src DevPtr, n uint64) Result {
	return Result(dl.Call(l.cuMemcpyDtoH, uintptr(dst), uintptr(src), uintptr(n)))
}

func (l *Lib) MemcpyDtoD(dst, src DevPtr, n uint64) Result {
	return Result(dl.Call(l.cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(n)))
}

func (l *Lib) MemcpyHtoDAsync(dst DevPtr, src unsafe.Pointer, n uint64, s Stream) Result {
	return Result(dl.Call(l.cuMemcpyHtoDAsync, uintptr(dst), uintptr(src), uintptr(n), uintptr(s)))
}

func (l *Lib) MemcpyDtoHAsync(dst unsafe.Pointer, src DevPtr, n uint64, s Stream) Result {
	return Result(dl.Call(l.cuMemcpyDtoHAsync, uintptr(dst), uintptr(src), uintptr(n), uintptr(s)))
}

func (l *Lib) MemcpyDtoDAsync(dst, src DevPtr, n uint64, s Stream) Result {
	return Result(dl.Call(l.cuMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(n), uintptr(s)))
}

func (l *Lib) MemcpyPeerAsync(dst DevPtr, dstCtx Context, src DevPtr, srcCtx Context, n uint64, s Stream) Result {
	if l.cuMemcpyPeerAsync == 0 {
		return ErrorNotFound
	}
	return Result(dl.Call(l.cuMemcpyPeerAsync, uintptr(dst), uintptr(dstCtx), uintptr(src), uintptr(srcCtx), uintptr(n), uintptr(s)))
}

func (l *Lib) Memcpy2D(c *Memcpy2D) Result {
	return Result(dl.Call(l.cuMemcpy2D, uintptr(unsafe.Pointer(c))))
}

func (l *Lib) Memcpy2DAsync(c *Memcpy2D, s Stream) Result {
	return Result(dl.Call(l.cuMemcpy2DAsync, uintptr(unsafe.Pointer(c)), uintptr(s)))
}

func (l *Lib) StreamCreate(flags uint32) (Stream, Result) {
	return out(func(s *Stream) Result { return l.cuStreamCreate(s, flags) })
}

func (l *Lib) StreamDestroy(s Stream) Result { return l.cuStreamDestroy(s) }
func (l *Lib) StreamSynchronize(s Stream) Result {
	return Result(dl.Call(l.cuStreamSynchronize, uintptr(s)))
}

func (l *Lib) EventCreate(flags uint32) (Event, Result) {
	return out(func(e *Event) Result { return l.cuEventCreate(e, flags) })
}

func (l *Lib) EventDestroy(e Event) Result { return l.cuEventDestroy(e) }

func (l *Lib) EventRecord(e Event, s Stream) Result {
	return Result(dl.Call(l.cuEventRecord, uintptr(e), uintptr(s)))
}

func (l *Lib) StreamWaitEvent(s Stream, e Event, flags uint32) Result {
	return Result(dl.Call(l.cuStreamWaitEvent, uintptr(s), uintptr(e), uintptr(flags)))
}

func (l *Lib) EventSynchronize(e Event) Result {
	return Result(dl.Call(l.cuEventSynchronize, uintptr(e)))
}

func (l *Lib) EventElapsedTime(start, stop Event) (float32, Result) {
	return out(func(ms *float32) Result { return l.cuEventElapsedTime(ms, start, stop) })
}

func (l *Lib) ModuleLoadData(image unsafe.Pointer) (Module, Result) {
	return out(func(m *Module) Result { return l.cuModuleLoadData(m, image) })
}

func (l *Lib) ModuleUnload(m Module) Result { return l.cuModuleUnload(m) }

func (l *Lib) ModuleGetFunction(m Module, name string) (Function, Result) {
	return out(func(f *Function) Result { return l.cuModuleGetFunction(f, m, name) })
}

func (l *Lib) ModuleGetGlobal(m Module, name string) (DevPtr, uint64, Result) {
	var p DevPtr
	var size uint64
	r := l.cuModuleGetGlobal(&p, &size, m, name)
	return p, size, r
}

func (l *Lib) FuncGetAttribute(a FuncAttribute, f Function) (int32, Result) {
	return out(func(v *int32) Result { return l.cuFuncGetAttribute(v, a, f) })
}

func (l *Lib) FuncSetAttribute(f Function, a FuncAttribute, v int32) Result {
	return l.cuFuncSetAttribute(f, a, v)
}

func (l *Lib) FuncGetParamInfo(f Function, index uint64) (offset, size uint64, r Result) {
	r = bound(l.cuFuncGetParamInfo != nil, func() Result { return l.cuFuncGetParamInfo(f, index, &offset, &size) })
	return offset, size, r
}

func (l *Lib) FuncGetParamCount(f Function) (uint64, Result) {
	return boundOut(l.cuFuncGetParamCount != nil, func(n *uint64) Result { return l.cuFuncGetParamCount(f, n) })
}

func (l *Lib) LaunchKernel(f Function, gx, gy, gz, bx, by, bz, shared uint32, s Stream, params *unsafe.Pointer) Result {
	return Result(dl.Call(l.cuLaunchKernel, uintptr(f), uintptr(gx), uintptr(gy), uintptr(gz),
		uintptr(bx), uintptr(by), uintptr(bz), uintptr(shared), uintptr(s), uintptr(unsafe.Pointer(params)), 0))
}

func (l *Lib) TexObjectCreate(res *ResourceDesc, tex *TextureDesc) (TexObject, Result) {
	return out(func(t *TexObject) Result { return l.cuTexObjectCreate(t, res, tex, nil) })
}

func (l *Lib) TexObjectDestroy(t TexObject) Result { return l.cuTexObjectDestroy(t) }

func (l *Lib) StreamBeginCapture(s Stream, mode uint32) Result {
	return bound(l.cuStreamBeginCapture != nil, func() Result { return l.cuStreamBeginCapture(s, mode) })
}

func (l *Lib) StreamEndCapture(s Stream) (Graph, Result) {
	return boundOut(l.cuStreamEndCapture != nil, func(g *Graph) Result { return l.cuStreamEndCapture(s, g) })
}

func (l *Lib) GraphInstantiate(g Graph, flags uint64) (GraphExec, Result) {
	return boundOut(l.cuGraphInstantiate != nil, func(e *GraphExec) Result { return l.cuGraphInstantiate(e, g, flags) })
}

func (l *Lib) GraphUpload(e GraphExec, s Stream) Result {
	return bound(l.cuGraphUpload != nil, func() Result { return l.cuGraphUpload(e, s) })
}

func (l *Lib) GraphLaunch(e GraphExec, s Stream) Result {
	if l.cuGraphLaunch == 0 {
		return ErrorNotFound
	}
	return Result(dl.Call(l.cuGraphLaunch, uintptr(e), uintptr(s)))
}

func (l *Lib) GraphExecDestroy(e GraphExec) Result {
	return bound(l.cuGraphExecDestroy != nil, func() Result { return l.cuGraphExecDestroy(e) })
}

func (l *Lib) GraphDestroy(g Graph) Result {
	return bound(l.cuGraphDestroy != nil, func() Result { return l.cuGraphDestroy(g) })
}

// out calls a C function that writes one value through a pointer, and
// returns the value with the call's result.
func out[T any](call func(*T) Result) (T, Result) {
	var v T
	r := call(&v)
	return v, r
}

// bound calls an optional entry point through call when the library has
// it (ok), and returns ErrorNotFound without calling anything when not.
func bound(ok bool, call func() Result) Result {
	if !ok {
		return ErrorNotFound
	}
	return call()
}

// boundOut is out for an optional entry point: the zero value and
// ErrorNotFound when the library lacks it (ok false).
func boundOut[T any](ok bool, call func(*T) Result) (T, Result) {
	if !ok {
		var zero T
		return zero, ErrorNotFound
	}
	return out(call)
}

var _ Driver = (*Lib)(nil)
