// Package gputest opens CUDA devices and libraries for tests.
//
// A test that needs the GPU, or a library such as NVRTC or cuFFT, calls
// Device or Need first: where CUDA or the library is unavailable (a
// *cudabind.UnavailableError) the test skips with the one-line reason,
// and on any other error it fails. Device also checks, when the test
// ends, that it released every device allocation it made.
package gputest

import (
	"errors"
	"testing"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver"
)

// Device returns the default device (cudabind.Default), or skips t with
// the reason when CUDA is unavailable and fails it on any other error.
// At cleanup it checks that t left as many allocations live on the
// device as there were when Device was called (LeakCheck).
func Device(t testing.TB) *cudabind.Device {
	t.Helper()
	return device(t, cudabind.Default, true)
}

// DeviceNoLeakCheck is Device without the check at cleanup, for tests
// that leave device memory allocated on purpose (the caches of the
// shared device) or that check the allocations themselves (LeakCheck).
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
// function that reports an error on t, naming the live allocations by
// kind, when that number has changed. Device calls it at cleanup; call
// it where a test must have released everything before it ends.
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
// and does nothing when err is nil. what names what is missing: "NVRTC",
// "cuFFT", "NPP", "cuDNN", "CUDA device".
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

// NVRTC skips t when NVRTC cannot be loaded, saying why (Need), for the
// compile checks that need NVRTC but no device.
func NVRTC(t testing.TB) {
	t.Helper()
	_, _, err := cudabind.NVRTCVersion()
	Need(t, "NVRTC", err)
}

// OpenDriver opens device 0 of drv (cudabind.OpenDriver), for tests on
// the fake driver, and closes it at cleanup; it fails t when the device
// cannot be opened.
func OpenDriver(t testing.TB, drv driver.Driver) *cudabind.Device {
	t.Helper()
	d, err := cudabind.OpenDriver(drv, 0)
	if err != nil {
		t.Fatalf("OpenDriver: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
