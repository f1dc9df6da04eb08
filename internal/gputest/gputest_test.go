package gputest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
)

// recorder is a testing.TB that records what a helper reports. Skip and
// Fatal end the goroutine they are called on, as in package testing, so
// a helper is run on a goroutine of its own (run).
type recorder struct {
	testing.TB // nil: a method not defined below panics
	skipped    bool
	failed     bool
	messages   []string
	cleanups   []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.messages = append(r.messages, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = true
	r.messages = append(r.messages, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// run calls f with a recorder on a goroutine of its own, as package
// testing runs a test, then the cleanups f registered, last first.
func run(f func(t testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r
}

// outcome describes what a recorder saw, for test messages.
func (r *recorder) outcome() string {
	return fmt.Sprintf("skipped %v, failed %v, messages %q", r.skipped, r.failed, r.messages)
}

// alloc allocates n bytes on d, failing t on error.
func alloc(t testing.TB, d *cudabind.Device, n int64) cudabind.DevPtr {
	var p cudabind.DevPtr
	if err := d.Do(func(x *cudabind.Exec) (err error) {
		p, err = x.Alloc(n)
		return err
	}); err != nil {
		t.Fatalf("Alloc: %v", err)
	}
	return p
}

// free frees p on d, failing t on error.
func free(t testing.TB, d *cudabind.Device, p cudabind.DevPtr) {
	if err := d.Do(func(x *cudabind.Exec) error { return x.Free(p) }); err != nil {
		t.Fatalf("Free: %v", err)
	}
}

// TestDevice opens a device on the fake driver as Device and
// DeviceNoLeakCheck do, runs a test body on it, and checks what the
// helper reported: a skip naming the reason when CUDA is unavailable, a
// failure on another error, a leak naming its kind, nothing when the body
// freed what it allocated or when the check is off.
func TestDevice(t *testing.T) {
	for _, tt := range []struct {
		name      string
		drv       driver.Driver
		ordinal   int
		leakCheck bool
		body      func(t testing.TB, d *cudabind.Device)
		skipped   bool
		failed    bool
		message   string // in the one message reported, or "" for none
	}{
		{name: "no device", drv: &fakedriver.Driver{NoDevices: true}, leakCheck: true,
			skipped: true, message: "no CUDA device: cudabind: device unavailable: the driver reports no CUDA device"},
		{name: "no device at init", drv: &fakedriver.Driver{InitResult: driver.ErrorNoDevice}, leakCheck: true,
			skipped: true, message: "CUDA_ERROR_NO_DEVICE"},
		{name: "other error", drv: &fakedriver.Driver{}, ordinal: 1, leakCheck: true,
			failed: true, message: "ordinal 1 out of range"},
		{name: "nothing allocated", drv: &fakedriver.Driver{}, leakCheck: true},
		{name: "freed", drv: &fakedriver.Driver{}, leakCheck: true,
			body: func(t testing.TB, d *cudabind.Device) { free(t, d, alloc(t, d, 1<<10)) }},
		{name: "leaked", drv: &fakedriver.Driver{}, leakCheck: true,
			body:   func(t testing.TB, d *cudabind.Device) { alloc(t, d, 1<<10) },
			failed: true, message: "live allocations: 0 at start, 1 at end (map[device buffers:1])"},
		{name: "leaked without the check", drv: &fakedriver.Driver{},
			body: func(t testing.TB, d *cudabind.Device) { alloc(t, d, 1<<10) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var opened *cudabind.Device
			t.Cleanup(func() { opened.Close() })
			open := func() (*cudabind.Device, error) {
				d, err := cudabind.OpenDriver(tt.drv, tt.ordinal)
				opened = d
				return d, err
			}
			r := run(func(rt testing.TB) {
				d := device(rt, open, tt.leakCheck)
				if d == nil {
					t.Errorf("device returned nil without a skip or failure")
					return
				}
				if tt.body != nil {
					tt.body(rt, d)
				}
			})
			if r.skipped != tt.skipped || r.failed != tt.failed {
				t.Fatalf("%s; want skipped %v, failed %v", r.outcome(), tt.skipped, tt.failed)
			}
			switch {
			case tt.message == "" && len(r.messages) != 0:
				t.Errorf("%s; want no message", r.outcome())
			case tt.message != "" && (len(r.messages) != 1 || !strings.Contains(r.messages[0], tt.message)):
				t.Errorf("%s; want one message with %q", r.outcome(), tt.message)
			}
		})
	}
}

// TestDeviceHere: Device on this host either skips saying there is no
// CUDA device, or returns the default device with no leak reported.
func TestDeviceHere(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func(testing.TB) *cudabind.Device
	}{
		{"Device", Device},
		{"DeviceNoLeakCheck", DeviceNoLeakCheck},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var d *cudabind.Device
			r := run(func(rt testing.TB) { d = tt.open(rt) })
			switch {
			case r.failed:
				t.Errorf("%s: %s", tt.name, r.outcome())
			case r.skipped:
				if len(r.messages) != 1 || !strings.HasPrefix(r.messages[0], "no CUDA device: ") {
					t.Errorf("%s: %s; want a skip with the reason there is no CUDA device", tt.name, r.outcome())
				}
			case d == nil:
				t.Errorf("%s returned nil without a skip", tt.name)
			}
		})
	}
}

// TestLeakCheck: the check reports a change of the number of live
// allocations in either direction, naming the kinds live, and nothing
// when the number is the same at the end as at the start.
func TestLeakCheck(t *testing.T) {
	for _, tt := range []struct {
		name    string
		held    int // allocations live before the check starts
		body    func(t testing.TB, d *cudabind.Device, held []cudabind.DevPtr)
		message string
	}{
		{"unchanged", 1, func(testing.TB, *cudabind.Device, []cudabind.DevPtr) {}, ""},
		{"allocated and freed", 0, func(t testing.TB, d *cudabind.Device, _ []cudabind.DevPtr) { free(t, d, alloc(t, d, 64)) }, ""},
		{"one freed, one allocated", 1, func(t testing.TB, d *cudabind.Device, held []cudabind.DevPtr) {
			free(t, d, held[0])
			alloc(t, d, 64)
		}, ""},
		{"one more", 1, func(t testing.TB, d *cudabind.Device, _ []cudabind.DevPtr) { alloc(t, d, 64) },
			"live allocations: 1 at start, 2 at end (map[device buffers:2])"},
		{"one fewer", 2, func(t testing.TB, d *cudabind.Device, held []cudabind.DevPtr) { free(t, d, held[0]) },
			"live allocations: 2 at start, 1 at end (map[device buffers:1])"},
		{"none left", 1, func(t testing.TB, d *cudabind.Device, held []cudabind.DevPtr) { free(t, d, held[0]) },
			"live allocations: 1 at start, 0 at end (map[])"},
	} {
		d := OpenDriver(t, &fakedriver.Driver{})
		var held []cudabind.DevPtr
		for range tt.held {
			held = append(held, alloc(t, d, 1<<10))
		}
		r := run(func(rt testing.TB) {
			check := LeakCheck(rt, d)
			tt.body(rt, d, held)
			check()
		})
		switch {
		case r.skipped:
			t.Errorf("%s: %s; want no skip", tt.name, r.outcome())
		case tt.message == "" && r.failed:
			t.Errorf("%s: %s; want no failure", tt.name, r.outcome())
		case tt.message != "" && (!r.failed || len(r.messages) != 1 || r.messages[0] != tt.message):
			t.Errorf("%s: %s; want the one message %q", tt.name, r.outcome(), tt.message)
		}
	}
}

// TestNeed: nil passes, an UnavailableError, bare or wrapped, skips with
// what is missing and the reason, and any other error fails.
func TestNeed(t *testing.T) {
	missing := &cudabind.UnavailableError{Lib: "libcufft.so", Reason: "not found"}
	for _, tt := range []struct {
		name            string
		err             error
		skipped, failed bool
		message         string
	}{
		{"nil", nil, false, false, ""},
		{"unavailable", missing, true, false, "no cuFFT: cudabind: libcufft.so unavailable: not found"},
		{"wrapped", fmt.Errorf("loading: %w", missing), true, false, "no cuFFT: loading: cudabind: libcufft.so unavailable: not found"},
		{"joined", errors.Join(errors.New("first"), missing), true, false, "no cuFFT: first\ncudabind: libcufft.so unavailable: not found"},
		{"other", errors.New("cufftGetVersion: CUFFT_INTERNAL_ERROR"), false, true, "cuFFT: cufftGetVersion: CUFFT_INTERNAL_ERROR"},
	} {
		returned := false
		r := run(func(rt testing.TB) {
			Need(rt, "cuFFT", tt.err)
			returned = true
		})
		want := tt.message == ""
		if r.skipped != tt.skipped || r.failed != tt.failed || returned != want {
			t.Errorf("%s: %s, returned %v; want skipped %v, failed %v, returned %v", tt.name, r.outcome(), returned, tt.skipped, tt.failed, want)
			continue
		}
		if !want && (len(r.messages) != 1 || r.messages[0] != tt.message) {
			t.Errorf("%s: %s; want the one message %q", tt.name, r.outcome(), tt.message)
		}
	}
}

// TestNVRTC: NVRTC either passes where NVRTCVersion succeeds or skips
// with an NVRTC reason, which cmd/testsummary counts as "for want of
// NVRTC".
func TestNVRTC(t *testing.T) {
	_, _, err := cudabind.NVRTCVersion()
	r := run(NVRTC)
	switch {
	case r.failed:
		t.Errorf("NVRTC: %s", r.outcome())
	case err == nil && r.skipped:
		t.Errorf("NVRTC with NVRTC loaded: %s; want no skip", r.outcome())
	case err != nil && (!r.skipped || len(r.messages) != 1 || !strings.HasPrefix(r.messages[0], "no NVRTC: ")):
		t.Errorf("NVRTC without NVRTC (%v): %s; want a skip saying there is no NVRTC", err, r.outcome())
	}
}

// TestOpenDriver: the device opened on a fake driver is released at
// cleanup, and a driver without a device fails the test.
func TestOpenDriver(t *testing.T) {
	fd := &fakedriver.Driver{}
	r := run(func(rt testing.TB) {
		if d := OpenDriver(rt, fd); d.Info().Name == "" {
			t.Errorf("OpenDriver: a device without a name")
		}
		if n := fd.Live()["contexts"]; n != 1 {
			t.Errorf("%d contexts live while the test runs, want 1", n)
		}
	})
	if r.skipped || r.failed {
		t.Errorf("OpenDriver: %s", r.outcome())
	}
	if n := fd.Live()["contexts"]; n != 0 {
		t.Errorf("%d contexts live after cleanup, want 0", n)
	}
	r = run(func(rt testing.TB) { OpenDriver(rt, &fakedriver.Driver{NoDevices: true}) })
	if !r.failed || len(r.messages) != 1 || !strings.Contains(r.messages[0], "OpenDriver: ") {
		t.Errorf("OpenDriver without a device: %s; want a failure", r.outcome())
	}
}
