package cudabind

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
	"github.com/convbench/convbench/cudabind/driver"
)

// cudaDriver is an initialized driver: the binding and its version.
type cudaDriver struct {
	driver.Driver
	version int // cuDriverGetVersion: 1000*major + 10*minor
}

var driverLoaded atomic.Pointer[cudaDriver]

// loadedDriver returns the process's driver if it was loaded, without
// loading it.
func loadedDriver() *cudaDriver { return driverLoaded.Load() }

// loadDriver opens the driver library once, binds its entry points and
// initializes it. Every failure is an *UnavailableError.
var loadDriver = sync.OnceValues(func() (*cudaDriver, error) {
	names := dl.CUDA.List()
	lib, err := driver.Load(names)
	if err != nil {
		var oe *dl.OpenError
		if errors.As(err, &oe) {
			return nil, &UnavailableError{Lib: names[0], Reason: "cannot be opened: " + oe.Why(names[0])}
		}
		return nil, &UnavailableError{Lib: names[0], Reason: err.Error()}
	}
	c, err := initDriver(lib)
	if err == nil {
		driverLoaded.Store(c)
	}
	return c, err
})

// initDriver calls cuInit, reads the version and checks that there is a
// device. Every failure is an *UnavailableError.
func initDriver(drv driver.Driver) (*cudaDriver, error) {
	if drv == nil {
		return nil, &UnavailableError{Lib: "driver", Reason: "nil driver.Driver"}
	}
	name := drv.Name()
	if r := drv.Init(0); r != driver.Success {
		e := driverError(drv, "cuInit", r)
		lib := name
		if r == driver.ErrorNoDevice {
			lib = "device"
		}
		return nil, &UnavailableError{Lib: lib, Reason: e.Error()}
	}
	v, r := drv.DriverGetVersion()
	if r != driver.Success {
		return nil, &UnavailableError{Lib: name, Reason: driverError(drv, "cuDriverGetVersion", r).Error()}
	}
	n, r := drv.DeviceGetCount()
	if r != driver.Success {
		return nil, &UnavailableError{Lib: "device", Reason: driverError(drv, "cuDeviceGetCount", r).Error()}
	}
	if n == 0 {
		return nil, &UnavailableError{Lib: "device", Reason: "the driver reports no CUDA device"}
	}
	return &cudaDriver{Driver: drv, version: int(v)}, nil
}

// driverError builds the *Error of a failed call, with the driver's own
// name and description of the code when it has them and the built-in
// table's otherwise.
func driverError(drv driver.Driver, api string, r driver.Result) *Error {
	code := int(r)
	name, text := DriverErrorName(code)
	if drv != nil {
		if n, rr := drv.GetErrorName(r); rr == driver.Success && n != "" {
			name = n
		}
		if t, rr := drv.GetErrorString(r); rr == driver.Success && t != "" {
			text = t
		}
	}
	return &Error{API: api, Code: code, Name: name, Text: text, Library: cudaerr.LibDriver}
}

// checkWith turns a CUresult into nil or an *Error naming api.
func checkWith(drv driver.Driver, api string, r driver.Result) error {
	if r == driver.Success {
		return nil
	}
	return driverError(drv, api, r)
}

// versionString renders 13020 as "13.2".
func versionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10) }
