package cudabind

import (
	"testing"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/driver"
)

func TestDriverErrorWithoutDriver(t *testing.T) {
	// Names come from the built-in table when no driver is loaded, and
	// from the driver (identical names) when it is.
	e := newDriverError("cuMemAlloc", CodeOutOfMemory)
	if e.Name != "CUDA_ERROR_OUT_OF_MEMORY" || e.Text == "" || e.Library != cudaerr.LibDriver {
		t.Errorf("newDriverError = %+v", e)
	}
	if got := e.Error(); got != "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" && loadedDriver() == nil {
		t.Errorf("Error() = %q", got)
	}
	name, text := DriverErrorName(123456)
	if name != "CUDA_ERROR_123456" || text == "" {
		t.Errorf("unknown code named %q (%q)", name, text)
	}
}

// newDriverError builds the error for a failed driver call, asking the
// loaded driver for the name and text when it can.
func newDriverError(api string, code int) *Error {
	var drv driver.Driver
	if l := loadedDriver(); l != nil {
		drv = l
	}
	return driverError(drv, api, driver.Result(code))
}
