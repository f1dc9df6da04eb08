// Package nvml reads a GPU's clock, power, temperature and energy through NVML.
//
// The NVIDIA Management Library (libnvidia-ml.so.1, or the library in
// CONVBENCH_LIBNVML) is opened at run time and bound with package dl. The
// benchmarks' clock guard and energy meter use it; package cudabind
// re-exports it.
package nvml

import (
	"fmt"
	"sync"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

// nvmlLib holds the NVML entry points the package uses, bound as typed
// Go function values.
type nvmlLib struct {
	name string

	nvmlInit                  func() int32
	nvmlErrorString           func(r int32) string
	nvmlDeviceGetHandleByUUID func(uuid string, h *uintptr) int32
	nvmlDeviceGetClockInfo    func(h uintptr, clock uint32, v *uint32) int32
	nvmlDeviceGetMaxClockInfo func(h uintptr, clock uint32, v *uint32) int32
	nvmlDeviceGetPowerUsage   func(h uintptr, mw *uint32) int32
	nvmlDeviceGetTemperature  func(h uintptr, sensor uint32, v *uint32) int32
	// nvmlDeviceGetTotalEnergyConsumption is optional: drivers before
	// the energy counter (Volta) do not export it, and it is nil then.
	nvmlDeviceGetTotalEnergyConsumption func(h uintptr, mj *uint64) int32
	// nvmlDeviceGetComputeRunningProcesses is optional too (the _v3 or
	// _v2 entry point, whose process records are processInfo).
	nvmlDeviceGetComputeRunningProcesses func(h uintptr, count *uint32, infos *processInfo) int32
}

// processInfo is the room of one nvmlProcessInfo_t (nvmlProcessInfo_v2_t):
// a process's PID, GPU memory and instance IDs, 24 bytes with padding.
// OtherProcesses reads only how many there are.
type processInfo [24]byte

// nvmlClockSM is NVML_CLOCK_SM of nvmlClockType_t; nvmlTemperatureGPU is
// NVML_TEMPERATURE_GPU of nvmlTemperatureSensors_t.
const (
	nvmlClockSM        = 1
	nvmlTemperatureGPU = 0
)

// loadNVML opens NVML from dl.NVML once, binds its symbols and calls
// nvmlInit_v2. Every failure is an *UnavailableError.
var loadNVML = sync.OnceValues(func() (*nvmlLib, error) { return openNVMLFrom(dl.NVML.List()) })

// openNVMLFrom opens the first of names that loads, binds it and calls
// nvmlInit_v2; tests open stand-in libraries with it.
func openNVMLFrom(names []string) (*nvmlLib, error) {
	lib, err := dl.Open(names)
	if err != nil {
		why := err.Error()
		if oe, ok := err.(*dl.OpenError); ok {
			why = oe.Why(names[0])
		}
		return nil, &cudaerr.UnavailableError{Lib: names[0], Reason: "cannot be opened: " + why}
	}
	l := &nvmlLib{name: lib.Name}
	f, opt := dl.Func, dl.OptionalFunc
	if err := lib.Bind([]dl.Symbol{
		f(&l.nvmlInit, "nvmlInit_v2"),
		f(&l.nvmlErrorString, "nvmlErrorString"),
		f(&l.nvmlDeviceGetHandleByUUID, "nvmlDeviceGetHandleByUUID"),
		f(&l.nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo"),
		f(&l.nvmlDeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo"),
		f(&l.nvmlDeviceGetPowerUsage, "nvmlDeviceGetPowerUsage"),
		f(&l.nvmlDeviceGetTemperature, "nvmlDeviceGetTemperature"),
		opt(&l.nvmlDeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption"),
		opt(&l.nvmlDeviceGetComputeRunningProcesses, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"),
	}); err != nil {
		return nil, &cudaerr.UnavailableError{Lib: lib.Name, Reason: err.Error()}
	}
	if err := l.check("nvmlInit_v2", l.nvmlInit()); err != nil {
		return nil, &cudaerr.UnavailableError{Lib: lib.Name, Reason: err.Error()}
	}
	return l, nil
}

// nvmlErrorNames are the names of nvmlReturn_t values (nvml.h).
var nvmlErrorNames = map[int]string{
	0: "NVML_SUCCESS", 1: "NVML_ERROR_UNINITIALIZED", 2: "NVML_ERROR_INVALID_ARGUMENT",
	3: "NVML_ERROR_NOT_SUPPORTED", 4: "NVML_ERROR_NO_PERMISSION", 5: "NVML_ERROR_ALREADY_INITIALIZED",
	6: "NVML_ERROR_NOT_FOUND", 7: "NVML_ERROR_INSUFFICIENT_SIZE", 8: "NVML_ERROR_INSUFFICIENT_POWER",
	9: "NVML_ERROR_DRIVER_NOT_LOADED", 10: "NVML_ERROR_TIMEOUT", 11: "NVML_ERROR_IRQ_ISSUE",
	12: "NVML_ERROR_LIBRARY_NOT_FOUND", 13: "NVML_ERROR_FUNCTION_NOT_FOUND", 14: "NVML_ERROR_CORRUPTED_INFOROM",
	15: "NVML_ERROR_GPU_IS_LOST", 16: "NVML_ERROR_RESET_REQUIRED", 17: "NVML_ERROR_OPERATING_SYSTEM",
	18: "NVML_ERROR_LIB_RM_VERSION_MISMATCH", 19: "NVML_ERROR_IN_USE", 20: "NVML_ERROR_MEMORY",
	21: "NVML_ERROR_NO_DATA", 999: "NVML_ERROR_UNKNOWN",
}

// NVML result codes that callers test for with errors.Is(err, &cudaerr.Error{Library: cudaerr.LibNVML, Code: ...}).
const (
	CodeNotSupported     = 3
	CodeNotFound         = 6
	CodeFunctionNotFound = 13
)

// errorName returns the symbolic name of an nvmlReturn_t value, or
// "NVML_ERROR_<code>" for one the table lacks.
func errorName(code int) string { return dl.Name(nvmlErrorNames, code, "NVML_ERROR_%d") }

// newNVMLError builds the *Error of a failed NVML call; text is the
// library's description when it is loaded.
func newNVMLError(l *nvmlLib, api string, code int) *cudaerr.Error {
	e := &cudaerr.Error{API: api, Code: code, Name: errorName(code), Library: cudaerr.LibNVML}
	if l != nil && l.nvmlErrorString != nil {
		e.Text = l.nvmlErrorString(int32(code))
	}
	return e
}

func (l *nvmlLib) check(api string, r int32) error {
	if r == 0 {
		return nil
	}
	return newNVMLError(l, api, int(r))
}

// Device is a GPU as NVML sees it: clocks, power, temperature and energy
// readings for the device a benchmark runs on. Its methods are safe for
// concurrent use and need no CUDA context.
type Device struct {
	lib    *nvmlLib
	handle uintptr
	uuid   string
}

// Open loads NVML (libnvidia-ml.so.1, or the library in
// CONVBENCH_LIBNVML) on first use and returns the device whose UUID is
// uuid, as DeviceInfo.UUID gives it ("GPU-..."). Without the library it
// returns an *UnavailableError; a UUID NVML does not know is an *Error
// with NVML_ERROR_NOT_FOUND.
func Open(uuid string) (*Device, error) {
	l, err := loadNVML()
	if err != nil {
		return nil, err
	}
	return l.open(uuid)
}

// open returns the device of l whose UUID is uuid.
func (l *nvmlLib) open(uuid string) (*Device, error) {
	if uuid == "" {
		return nil, fmt.Errorf("nvml: Open with an empty UUID")
	}
	var h uintptr
	if err := l.check("nvmlDeviceGetHandleByUUID", l.nvmlDeviceGetHandleByUUID(uuid, &h)); err != nil {
		return nil, fmt.Errorf("nvml: device %s: %w", uuid, err)
	}
	return &Device{lib: l, handle: h, uuid: uuid}, nil
}

// UUID is the device's UUID.
func (d *Device) UUID() string { return d.uuid }

// usable reports a nil device.
func (d *Device) usable(method string) error {
	if d == nil || d.lib == nil {
		return fmt.Errorf("nvml: %s on a nil *Device", method)
	}
	return nil
}

// read calls the NVML getter api through get, which passes on the
// pointer the value is written to, once d is usable; method names the
// caller in the error of a nil device.
func (d *Device) read(method, api string, get func(v *uint32) int32) (uint32, error) {
	if err := d.usable(method); err != nil {
		return 0, err
	}
	var v uint32
	err := d.lib.check(api, get(&v))
	return v, err
}

// SMClockMHz returns the SM clock now, in MHz.
func (d *Device) SMClockMHz() (int, error) {
	v, err := d.read("SMClockMHz", "nvmlDeviceGetClockInfo", func(v *uint32) int32 {
		return d.lib.nvmlDeviceGetClockInfo(d.handle, nvmlClockSM, v)
	})
	return int(v), err
}

// MaxSMClockMHz returns the maximum (boost) SM clock, in MHz.
func (d *Device) MaxSMClockMHz() (int, error) {
	v, err := d.read("MaxSMClockMHz", "nvmlDeviceGetMaxClockInfo", func(v *uint32) int32 {
		return d.lib.nvmlDeviceGetMaxClockInfo(d.handle, nvmlClockSM, v)
	})
	return int(v), err
}

// PowerW returns the board's power draw in watts. Devices without a
// power sensor return an *Error with NVML_ERROR_NOT_SUPPORTED.
func (d *Device) PowerW() (float64, error) {
	mw, err := d.read("PowerW", "nvmlDeviceGetPowerUsage", func(v *uint32) int32 { return d.lib.nvmlDeviceGetPowerUsage(d.handle, v) })
	return float64(mw) / 1000, err
}

// TemperatureC returns the GPU die temperature in degrees Celsius.
func (d *Device) TemperatureC() (int, error) {
	v, err := d.read("TemperatureC", "nvmlDeviceGetTemperature", func(v *uint32) int32 {
		return d.lib.nvmlDeviceGetTemperature(d.handle, nvmlTemperatureGPU, v)
	})
	return int(v), err
}

// EnergyMJ returns the energy the GPU has drawn since the driver was
// last loaded, in millijoules (nvmlDeviceGetTotalEnergyConsumption). The
// driver updates the counter every few to some tens of milliseconds, so
// the difference of two readings means something only over a span many
// updates long. GPUs before Volta return an *Error with
// NVML_ERROR_NOT_SUPPORTED; a library that does not export the function
// (a driver older than the counter), one with
// NVML_ERROR_FUNCTION_NOT_FOUND that names the library.
func (d *Device) EnergyMJ() (uint64, error) {
	if err := d.usable("EnergyMJ"); err != nil {
		return 0, err
	}
	const api = "nvmlDeviceGetTotalEnergyConsumption"
	var err error
	var mj uint64
	if d.lib.nvmlDeviceGetTotalEnergyConsumption == nil {
		err = &cudaerr.Error{API: api, Code: CodeFunctionNotFound, Name: errorName(CodeFunctionNotFound),
			Text: d.lib.name + " does not export it (a driver older than the energy counter)", Library: cudaerr.LibNVML}
	} else {
		err = d.lib.check(api, d.lib.nvmlDeviceGetTotalEnergyConsumption(d.handle, &mj))
	}
	if err != nil {
		return 0, fmt.Errorf("nvml: energy counter of %s: %w", d.uuid, err)
	}
	return mj, nil
}

// OtherProcesses returns how many processes other than the caller hold a
// compute context on the GPU (nvmlDeviceGetComputeRunningProcesses): the
// processes NVML lists less one, the caller, which must hold a context
// on it. It counts rather than matches PIDs, as NVML lists them in the
// host's PID namespace, which a container's process does not see. A
// library that does not export the function returns an *Error with
// NVML_ERROR_FUNCTION_NOT_FOUND.
func (d *Device) OtherProcesses() (int, error) {
	if err := d.usable("OtherProcesses"); err != nil {
		return 0, err
	}
	const api = "nvmlDeviceGetComputeRunningProcesses"
	if d.lib.nvmlDeviceGetComputeRunningProcesses == nil {
		return 0, &cudaerr.Error{API: api, Code: CodeFunctionNotFound, Name: errorName(CodeFunctionNotFound),
			Text: d.lib.name + " does not export it", Library: cudaerr.LibNVML}
	}
	var infos [maxProcesses]processInfo
	n := uint32(len(infos))
	// NVML_ERROR_INSUFFICIENT_SIZE: more processes than the records
	// hold; n is their count all the same.
	if r := d.lib.nvmlDeviceGetComputeRunningProcesses(d.handle, &n, &infos[0]); r != codeInsufficientSize {
		if err := d.lib.check(api, r); err != nil {
			return 0, fmt.Errorf("nvml: processes on %s: %w", d.uuid, err)
		}
	}
	return max(int(n)-1, 0), nil
}

// maxProcesses is how many process records OtherProcesses reads.
const maxProcesses = 64

// codeInsufficientSize is NVML_ERROR_INSUFFICIENT_SIZE.
const codeInsufficientSize = 7
