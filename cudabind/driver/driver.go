// Package driver is the typed binding of the CUDA driver API (libcuda):
// the [Driver] interface that the cudabind runtime calls, and [Load], which
// binds each entry point of the real library (package dl), versioned names
// first. Package driver/fakedriver implements the interface for tests.
//
// Every method returns the call's [Result] (a CUresult; 0 is success), with
// C's out-parameters as Go results. No Go pointer is kept by C after a
// call, except LaunchKernel's parameter array, which the caller pins. The
// entry points called inside timed loops are bound by address and called
// with dl.Call, without reflection. Optional entry points (graphs, the
// parameter queries, peer access) may be missing: [Driver.Has] says which
// are there, and calling a missing one returns [ErrorNotFound].
package driver

import "unsafe"

// Result is a CUresult: 0 is success, anything else an error code.
type Result int32

// CUresult values the runtime tests for.
const (
	Success             Result = 0
	ErrorInvalidValue   Result = 1
	ErrorOutOfMemory    Result = 2
	ErrorNoDevice       Result = 100
	ErrorInvalidHandle  Result = 400
	ErrorNotFound       Result = 500
	ErrorIllegalAddress Result = 700
	// ErrorPeerAccessAlreadyEnabled is cuCtxEnablePeerAccess's answer
	// when the access is enabled already.
	ErrorPeerAccessAlreadyEnabled Result = 704
)

// Handles of driver objects.
type (
	Device    int32   // CUdevice: an ordinal's handle
	Context   uintptr // CUcontext
	Module    uintptr // CUmodule
	Function  uintptr // CUfunction
	Stream    uintptr // CUstream; 0 is the legacy default stream
	Event     uintptr // CUevent
	Graph     uintptr // CUgraph
	GraphExec uintptr // CUgraphExec
	DevPtr    uint64  // CUdeviceptr
	TexObject uint64  // CUtexObject
)

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int32

// FuncAttribute is a CUfunction_attribute.
type FuncAttribute int32

// Feature names a group of optional entry points.
type Feature int

const (
	// Graphs is stream capture and CUDA graphs: cuStreamBeginCapture_v2,
	// cuStreamEndCapture, cuGraphInstantiateWithFlags, cuGraphUpload,
	// cuGraphLaunch, cuGraphExecDestroy and cuGraphDestroy (CUDA 11.4).
	Graphs Feature = iota
	// ParamInfo is cuFuncGetParamInfo (CUDA 12.4), the offset and size of
	// each kernel parameter.
	ParamInfo
	// ParamCount is cuFuncGetParamCount, the number of a kernel's
	// parameters, so that ParamInfo is asked only of parameters that
	// exist.
	ParamCount
	// Peer is access between devices: cuDeviceCanAccessPeer,
	// cuCtxEnablePeerAccess and cuMemcpyPeerAsync.
	Peer
)

func (f Feature) String() string {
	switch f {
	case Graphs:
		return "stream capture and graphs"
	case ParamInfo:
		return "cuFuncGetParamInfo"
	case ParamCount:
		return "cuFuncGetParamCount"
	case Peer:
		return "peer access"
	}
	return "unknown feature"
}

// Memcpy2D mirrors CUDA_MEMCPY2D (128 bytes on 64-bit platforms).
type Memcpy2D struct {
	SrcXInBytes, SrcY uintptr
	SrcMemoryType     uint32
	_                 uint32
	SrcHost           unsafe.Pointer
	SrcDevice         DevPtr
	SrcArray          uintptr
	SrcPitch          uintptr

	DstXInBytes, DstY uintptr
	DstMemoryType     uint32
	_                 uint32
	DstHost           unsafe.Pointer
	DstDevice         DevPtr
	DstArray          uintptr
	DstPitch          uintptr

	WidthInBytes, Height uintptr
}

// Memory types of Memcpy2D.
const (
	MemoryTypeHost   = 1
	MemoryTypeDevice = 2
)

// ResourceDesc mirrors CUDA_RESOURCE_DESC (144 bytes): a 4-byte type, a
// 128-byte union at offset 8 (see Pitch2D and Linear), 4-byte flags.
type ResourceDesc struct {
	ResType uint32
	_       uint32
	Res     [16]uint64
	Flags   uint32
	_       uint32
}

// Resource types (CUresourcetype).
const (
	resourceTypeLinear  = 2
	resourceTypePitch2D = 3
)

// Pitch2D is the pitch2D member of ResourceDesc's union (40 bytes).
type Pitch2D struct {
	DevPtr       DevPtr
	Format       uint32
	NumChannels  uint32
	Width        uintptr
	Height       uintptr
	PitchInBytes uintptr
}

// Linear is the linear member of ResourceDesc's union (24 bytes).
type Linear struct {
	DevPtr      DevPtr
	Format      uint32
	NumChannels uint32
	SizeInBytes uintptr
}

// SetPitch2D stores p in the union.
func (r *ResourceDesc) SetPitch2D(p Pitch2D) {
	r.ResType = resourceTypePitch2D
	*(*Pitch2D)(unsafe.Pointer(&r.Res)) = p
}

// SetLinear stores l in the union.
func (r *ResourceDesc) SetLinear(l Linear) {
	r.ResType = resourceTypeLinear
	*(*Linear)(unsafe.Pointer(&r.Res)) = l
}

// Pitch2D returns the union read as its pitch2D member.
func (r *ResourceDesc) Pitch2D() Pitch2D { return *(*Pitch2D)(unsafe.Pointer(&r.Res)) }

// Linear returns the union read as its linear member.
func (r *ResourceDesc) Linear() Linear { return *(*Linear)(unsafe.Pointer(&r.Res)) }

// TextureDesc mirrors CUDA_TEXTURE_DESC (104 bytes).
type TextureDesc struct {
	AddressMode         [3]uint32
	FilterMode          uint32
	Flags               uint32
	MaxAnisotropy       uint32
	MipmapFilterMode    uint32
	MipmapLevelBias     float32
	MinMipmapLevelClamp float32
	MaxMipmapLevelClamp float32
	BorderColor         [4]float32
	Reserved            [12]int32
}

// Driver is the CUDA driver API as the runtime uses it. Each method is one
// driver call, named as the C function without its cu prefix and version
// suffix.
type Driver interface {
	// Name is the library the driver was loaded from.
	Name() string
	// Has reports whether the optional entry points of f are present.
	Has(f Feature) bool

	Init(flags uint32) Result
	DriverGetVersion() (int32, Result)
	GetErrorName(r Result) (string, Result)
	GetErrorString(r Result) (string, Result)

	DeviceGetCount() (int32, Result)
	DeviceGet(ordinal int32) (Device, Result)
	DeviceGetName(d Device) (string, Result)
	DeviceGetUuid(d Device) ([16]byte, Result)
	DeviceGetAttribute(a DeviceAttribute, d Device) (int32, Result)
	DeviceTotalMem(d Device) (uint64, Result)
	DevicePrimaryCtxRetain(d Device) (Context, Result)
	DevicePrimaryCtxRelease(d Device) Result
	// DevicePrimaryCtxReset destroys every allocation and all state of
	// the primary context of d in this process, whatever its retain
	// count; it may be called on a context a sticky error poisoned.
	DevicePrimaryCtxReset(d Device) Result
	CtxSetCurrent(c Context) Result
	CtxSynchronize() Result
	// DeviceCanAccessPeer reports whether device d can access the memory
	// of device peer (1) or not (0).
	DeviceCanAccessPeer(d, peer Device) (int32, Result)
	// CtxEnablePeerAccess lets the current context access the memory of
	// the context peer.
	CtxEnablePeerAccess(peer Context, flags uint32) Result

	MemAlloc(bytes uint64) (DevPtr, Result)
	MemAllocPitch(widthBytes, height uint64, elemSize uint32) (DevPtr, uint64, Result)
	MemFree(p DevPtr) Result
	MemGetInfo() (free, total uint64, r Result)
	MemHostAlloc(bytes uint64, flags uint32) (unsafe.Pointer, Result)
	MemFreeHost(p unsafe.Pointer) Result
	MemsetD8(p DevPtr, v uint8, n uint64) Result
	MemsetD32(p DevPtr, v uint32, n uint64) Result
	MemsetD8Async(p DevPtr, v uint8, n uint64, s Stream) Result
	MemsetD32Async(p DevPtr, v uint32, n uint64, s Stream) Result
	MemcpyHtoD(dst DevPtr, src unsafe.Pointer, bytes uint64) Result
	MemcpyDtoH(dst unsafe.Pointer, src DevPtr, bytes uint64) Result
	MemcpyDtoD(dst, src DevPtr, bytes uint64) Result
	MemcpyHtoDAsync(dst DevPtr, src unsafe.Pointer, bytes uint64, s Stream) Result
	MemcpyDtoHAsync(dst unsafe.Pointer, src DevPtr, bytes uint64, s Stream) Result
	MemcpyDtoDAsync(dst, src DevPtr, bytes uint64, s Stream) Result
	// MemcpyPeerAsync copies bytes from src in context srcCtx to dst in
	// context dstCtx, ordered on stream s.
	MemcpyPeerAsync(dst DevPtr, dstCtx Context, src DevPtr, srcCtx Context, bytes uint64, s Stream) Result
	Memcpy2D(c *Memcpy2D) Result
	Memcpy2DAsync(c *Memcpy2D, s Stream) Result

	StreamCreate(flags uint32) (Stream, Result)
	StreamDestroy(s Stream) Result
	StreamSynchronize(s Stream) Result
	EventCreate(flags uint32) (Event, Result)
	EventDestroy(e Event) Result
	EventRecord(e Event, s Stream) Result
	// StreamWaitEvent makes later work on s wait until the work e last
	// recorded has completed (cuStreamWaitEvent; flags 0). e may belong
	// to another context or device than s.
	StreamWaitEvent(s Stream, e Event, flags uint32) Result
	EventSynchronize(e Event) Result
	EventElapsedTime(start, stop Event) (float32, Result)

	ModuleLoadData(image unsafe.Pointer) (Module, Result)
	ModuleUnload(m Module) Result
	ModuleGetFunction(m Module, name string) (Function, Result)
	ModuleGetGlobal(m Module, name string) (DevPtr, uint64, Result)
	FuncGetAttribute(a FuncAttribute, f Function) (int32, Result)
	FuncSetAttribute(f Function, a FuncAttribute, v int32) Result
	// FuncGetParamInfo returns the offset and size in bytes of parameter
	// index of f; an index past the last parameter is ErrorInvalidValue.
	FuncGetParamInfo(f Function, index uint64) (offset, size uint64, r Result)
	// FuncGetParamCount returns the number of f's parameters.
	FuncGetParamCount(f Function) (n uint64, r Result)
	// LaunchKernel launches f; params points to an array of pointers, one
	// per kernel parameter, that the caller keeps pinned for the call.
	LaunchKernel(f Function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes uint32, s Stream, params *unsafe.Pointer) Result

	TexObjectCreate(res *ResourceDesc, tex *TextureDesc) (TexObject, Result)
	TexObjectDestroy(t TexObject) Result

	StreamBeginCapture(s Stream, mode uint32) Result
	StreamEndCapture(s Stream) (Graph, Result)
	GraphInstantiate(g Graph, flags uint64) (GraphExec, Result)
	GraphUpload(e GraphExec, s Stream) Result
	GraphLaunch(e GraphExec, s Stream) Result
	GraphExecDestroy(e GraphExec) Result
	GraphDestroy(g Graph) Result
}
