package cudabind

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// driverLib holds the driver API entry points. Names with a _v2 (or later)
// suffix are the ones cuda.h maps the plain names to.
type driverLib struct {
	name    string
	version int // cuDriverGetVersion: 1000*major + 10*minor

	cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString             uintptr
	cuDeviceGetCount, cuDeviceGet, cuDeviceGetName, cuDeviceGetUuid          uintptr
	cuDeviceGetAttribute, cuDeviceTotalMem                                   uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent     uintptr
	cuCtxSynchronize                                                         uintptr
	cuMemAlloc, cuMemAllocPitch, cuMemFree, cuMemHostAlloc, cuMemFreeHost    uintptr
	cuMemGetInfo                                                             uintptr
	cuMemsetD8, cuMemsetD32, cuMemsetD8Async, cuMemsetD32Async               uintptr
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD                                 uintptr
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync                  uintptr
	cuMemcpy2D, cuMemcpy2DAsync                                              uintptr
	cuStreamCreate, cuStreamDestroy, cuStreamSynchronize                     uintptr
	cuEventCreate, cuEventDestroy, cuEventRecord, cuEventSynchronize         uintptr
	cuEventElapsedTime                                                       uintptr
	cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuModuleGetGlobal uintptr
	cuFuncGetAttribute, cuFuncSetAttribute, cuLaunchKernel                   uintptr
	cuTexObjectCreate, cuTexObjectDestroy                                    uintptr
	// Stream capture and graphs; optional, Capture says when they are missing.
	cuStreamBeginCapture, cuStreamEndCapture, cuGraphInstantiate     uintptr
	cuGraphUpload, cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy uintptr
}

var (
	driverOnce   onceValue[*driverLib]
	driverLoaded atomic.Pointer[driverLib]
)

// loadedDriver returns the driver if it was loaded, without loading it.
func loadedDriver() *driverLib { return driverLoaded.Load() }

// loadDriver opens the driver library once, resolves its symbols and calls
// cuInit. Every failure is an *UnavailableError.
func loadDriver() (*driverLib, error) {
	return driverOnce.get(func() (*driverLib, error) {
		names := DriverSearchList()
		h, name, err := openFirst(names)
		if err != nil {
			return nil, &UnavailableError{Lib: names[0], Reason: "cannot be opened (" + err.Error() + ")"}
		}
		l := &driverLib{name: name}
		s := func(dst *uintptr, names ...string) symbol { return symbol{dst: dst, names: names} }
		opt := func(dst *uintptr, names ...string) symbol { return symbol{dst: dst, names: names, optional: true} }
		syms := []symbol{
			s(&l.cuInit, "cuInit"),
			s(&l.cuDriverGetVersion, "cuDriverGetVersion"),
			s(&l.cuGetErrorName, "cuGetErrorName"),
			s(&l.cuGetErrorString, "cuGetErrorString"),
			s(&l.cuDeviceGetCount, "cuDeviceGetCount"),
			s(&l.cuDeviceGet, "cuDeviceGet"),
			s(&l.cuDeviceGetName, "cuDeviceGetName"),
			s(&l.cuDeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid"),
			s(&l.cuDeviceGetAttribute, "cuDeviceGetAttribute"),
			s(&l.cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
			s(&l.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
			s(&l.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
			s(&l.cuCtxSetCurrent, "cuCtxSetCurrent"),
			s(&l.cuCtxSynchronize, "cuCtxSynchronize"),
			s(&l.cuMemAlloc, "cuMemAlloc_v2"),
			s(&l.cuMemAllocPitch, "cuMemAllocPitch_v2"),
			s(&l.cuMemFree, "cuMemFree_v2"),
			s(&l.cuMemGetInfo, "cuMemGetInfo_v2"),
			s(&l.cuMemHostAlloc, "cuMemHostAlloc"),
			s(&l.cuMemFreeHost, "cuMemFreeHost"),
			s(&l.cuMemsetD8, "cuMemsetD8_v2"),
			s(&l.cuMemsetD32, "cuMemsetD32_v2"),
			s(&l.cuMemsetD8Async, "cuMemsetD8Async"),
			s(&l.cuMemsetD32Async, "cuMemsetD32Async"),
			s(&l.cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
			s(&l.cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
			s(&l.cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
			s(&l.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
			s(&l.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
			s(&l.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
			s(&l.cuMemcpy2D, "cuMemcpy2D_v2"),
			s(&l.cuMemcpy2DAsync, "cuMemcpy2DAsync_v2"),
			s(&l.cuStreamCreate, "cuStreamCreate"),
			s(&l.cuStreamDestroy, "cuStreamDestroy_v2"),
			s(&l.cuStreamSynchronize, "cuStreamSynchronize"),
			s(&l.cuEventCreate, "cuEventCreate"),
			s(&l.cuEventDestroy, "cuEventDestroy_v2"),
			s(&l.cuEventRecord, "cuEventRecord"),
			s(&l.cuEventSynchronize, "cuEventSynchronize"),
			s(&l.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
			s(&l.cuModuleLoadData, "cuModuleLoadData"),
			s(&l.cuModuleUnload, "cuModuleUnload"),
			s(&l.cuModuleGetFunction, "cuModuleGetFunction"),
			s(&l.cuModuleGetGlobal, "cuModuleGetGlobal_v2"),
			s(&l.cuFuncGetAttribute, "cuFuncGetAttribute"),
			s(&l.cuFuncSetAttribute, "cuFuncSetAttribute"),
			s(&l.cuLaunchKernel, "cuLaunchKernel"),
			s(&l.cuTexObjectCreate, "cuTexObjectCreate"),
			s(&l.cuTexObjectDestroy, "cuTexObjectDestroy"),
			opt(&l.cuStreamBeginCapture, "cuStreamBeginCapture_v2"),
			opt(&l.cuStreamEndCapture, "cuStreamEndCapture"),
			opt(&l.cuGraphInstantiate, "cuGraphInstantiateWithFlags"),
			opt(&l.cuGraphUpload, "cuGraphUpload"),
			opt(&l.cuGraphLaunch, "cuGraphLaunch"),
			opt(&l.cuGraphExecDestroy, "cuGraphExecDestroy"),
			opt(&l.cuGraphDestroy, "cuGraphDestroy"),
		}
		if err := resolve(h, syms); err != nil {
			return nil, &UnavailableError{Lib: name, Reason: err.Error()}
		}
		// Publish before the first call so that errors can be named.
		driverLoaded.Store(l)
		if r := ccall(l.cuInit, 0); r != 0 {
			e := newDriverError("cuInit", r)
			driverLoaded.Store(nil)
			lib := name
			if r == CodeNoDevice {
				lib = "device"
			}
			return nil, &UnavailableError{Lib: lib, Reason: e.Error()}
		}
		var v int32
		if r := ccall(l.cuDriverGetVersion, uintptr(unsafe.Pointer(&v))); r != 0 {
			return nil, &UnavailableError{Lib: name, Reason: newDriverError("cuDriverGetVersion", r).Error()}
		}
		l.version = int(v)
		var n int32
		if r := ccall(l.cuDeviceGetCount, uintptr(unsafe.Pointer(&n))); r != 0 {
			return nil, &UnavailableError{Lib: "device", Reason: newDriverError("cuDeviceGetCount", r).Error()}
		}
		if n == 0 {
			return nil, &UnavailableError{Lib: "device", Reason: "the driver reports no CUDA device"}
		}
		return l, nil
	})
}

func (l *driverLib) errorName(code int) string {
	var p uintptr
	if l == nil || ccall(l.cuGetErrorName, uintptr(code), uintptr(unsafe.Pointer(&p))) != 0 {
		return ""
	}
	return goString(p)
}

func (l *driverLib) errorString(code int) string {
	var p uintptr
	if l == nil || ccall(l.cuGetErrorString, uintptr(code), uintptr(unsafe.Pointer(&p))) != 0 {
		return ""
	}
	return goString(p)
}

// check turns a CUresult into nil or an *Error naming api.
func check(api string, r int) error {
	if r == 0 {
		return nil
	}
	return newDriverError(api, r)
}

// DriverVersion loads the driver if needed and returns its version as
// reported by cuDriverGetVersion (13000 for CUDA 13.0).
func DriverVersion() (int, error) {
	l, err := loadDriver()
	if err != nil {
		return 0, err
	}
	return l.version, nil
}

// versionString renders 13020 as "13.2".
func versionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10) }
