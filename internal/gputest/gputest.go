// Package gputest opens CUDA devices and libraries for tests, skipping
// a test where CUDA or a library is unavailable.
package gputest

import (
	"errors"
	"testing"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver"
)

// Device returns the default device, or skips t when CUDA is unavailable
// and fails it on any other error (Need). At cleanup it checks that t
// released what it allocated (LeakCheck).
func Device(t testing.TB) *cudabind.Device {
	t.Helper()
	return device(t, cudabind.Default, true)
}

// DeviceNoLeakCheck is Device without the check at cleanup.
func DeviceNoLeakCheck(t testing.TB) *cudabind.Device {
	t.Helper()
	return device(t, cudabind.Default, false)
}

// device opens a device with open for Device and DeviceNoLeakCheck.
func device(t testing.TB, open func() (*cudabind.Device, error), leakCheck bool) *cudabind.Device {
	t.Helper()
	d, err := open()
	Need(t, "CUDA device", err)
	if leakCheck {
		t.Cleanup(LeakCheck(t, d))
	}
	return d
}

// LeakCheck records how many allocations are live on d and returns a
// function that reports an error on t when that number has changed.
func LeakCheck(t testing.TB, d *cudabind.Device) (check func()) {
	start := d.LiveAllocations()
	return func() {
		t.Helper()
		if n := d.LiveAllocations(); n != start {
			t.Errorf("live allocations: %d at start, %d at end (%v)", start, n, d.LiveByKind())
		}
	}
}

// Need skips t with "no <what>: <err>" when err is, or wraps, a
// *cudabind.UnavailableError, fails t with err when it is another error,
// and does nothing when err is nil.
func Need(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ue *cudabind.UnavailableError
	if errors.As(err, &ue) {
		t.Skipf("no %s: %v", what, err)
	}
	t.Fatalf("%s: %v", what, err)
}

// NVRTC skips t when NVRTC cannot be loaded, saying why (Need).
func NVRTC(t testing.TB) {
	t.Helper()
	_, _, err := cudabind.NVRTCVersion()
	Need(t, "NVRTC", err)
}

// OpenDriver opens device 0 of drv, closing it at cleanup; it fails t
// when the device cannot be opened.
func OpenDriver(t testing.TB, drv driver.Driver) *cudabind.Device {
	t.Helper()
	d, err := cudabind.OpenDriver(drv, 0)
	if err != nil {
		t.Fatalf("OpenDriver: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
