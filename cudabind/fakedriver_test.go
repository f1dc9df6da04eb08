package cudabind_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
	"github.com/convbench/convbench/internal/gputest"
)

// fakeKernel loads a module on the fake (whose modules hold every kernel
// of its Kernels) and returns the module and its kernel name; the module
// is closed when the test ends, if the test has not closed it.
func fakeKernel(t *testing.T, d *cudabind.Device, name string) (*cudabind.Module, *cudabind.Function) {
	t.Helper()
	var m *cudabind.Module
	err := d.Do(func(x *cudabind.Exec) (err error) {
		m, err = x.LoadModule(&cudabind.Compiled{Name: "fake.cu", Arch: "sm_90", Kind: cudabind.ImageCUBIN, Image: []byte{0x7f, 'E', 'L', 'F'}})
		return err
	})
	if err != nil {
		t.Fatalf("LoadModule: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	f, err := m.Function(name)
	if err != nil {
		t.Fatalf("Function(%q): %v", name, err)
	}
	return m, f
}

// wantCode checks that err is an *cudabind.Error with the given code.
func wantCode(t *testing.T, what string, err error, code int, sticky bool) {
	t.Helper()
	var e *cudabind.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T), want a *cudabind.Error with code %d", what, err, err, code)
	}
	if e.Code != code || e.Sticky() != sticky {
		t.Errorf("%s: %v has code %d sticky %v, want code %d sticky %v", what, err, e.Code, e.Sticky(), code, sticky)
	}
	if name, _ := cudabind.DriverErrorName(code); e.Name != name {
		t.Errorf("%s: error named %q, want %q", what, e.Name, name)
	}
}

// noLeaks checks that the runtime and the fake agree nothing is live but
// the context.
func noLeaks(t *testing.T, d *cudabind.Device, fd *fakedriver.Driver) {
	t.Helper()
	if n := d.LiveAllocations(); n != 0 {
		t.Errorf("LiveAllocations() = %d (%v), want 0", n, d.LiveByKind())
	}
	live := fd.Live()
	delete(live, "contexts")
	if len(live) != 0 {
		t.Errorf("the driver still holds %v", live)
	}
}

// TestFakeDriverErrorPaths runs the runtime's error paths on the fake
// driver: what each returns, and that nothing is left allocated.
func TestFakeDriverErrorPaths(t *testing.T) {
	kernels := map[string][]int{"saxpy": {8, 8, 4, 4}, "boom": {8}}
	// captureNothing captures an empty graph on a new stream.
	captureNothing := func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error {
		s, err := x.NewStream()
		if err != nil {
			return err
		}
		defer x.DestroyStream(s)
		_, err = x.Capture(s, func() error { return nil })
		return err
	}
	cases := []struct {
		name string
		fd   *fakedriver.Driver
		run  func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error
		code int
		// sticky: the error poisons the context: later calls fail alike.
		sticky bool
	}{
		{
			name: "allocation beyond device memory",
			fd:   &fakedriver.Driver{MemBytes: 1 << 20},
			run: func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error {
				_, err := x.Alloc(2 << 20)
				if err != nil && !strings.Contains(err.Error(), "requested 2097152 bytes") {
					t.Errorf("error %q does not give the size requested", err)
				}
				return err
			},
			code: cudabind.CodeOutOfMemory,
		},
		{
			name: "pinned allocation failure",
			fd:   &fakedriver.Driver{Fail: map[string]driver.Result{"cuMemHostAlloc": driver.ErrorOutOfMemory}},
			run: func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error {
				h, err := x.HostAlloc(4096)
				if h != nil {
					t.Errorf("HostAlloc returned a buffer with its error")
				}
				return err
			},
			code: cudabind.CodeOutOfMemory,
		},
		{
			name: "pitched allocation failure",
			fd:   &fakedriver.Driver{MemBytes: 1 << 16},
			run: func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error {
				_, _, err := x.AllocPitch(1000, 1000)
				return err
			},
			code: cudabind.CodeOutOfMemory,
		},
		{
			name: "module load failure",
			fd:   &fakedriver.Driver{Fail: map[string]driver.Result{"cuModuleLoadData": cudabind.CodeInvalidImage}},
			run: func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error {
				_, err := x.LoadModule(&cudabind.Compiled{Name: "bad.cu", Kind: cudabind.ImageCUBIN, Image: []byte{1}})
				return err
			},
			code: cudabind.CodeInvalidImage,
		},
		{
			name: "graph instantiation failure after capture",
			fd:   &fakedriver.Driver{Kernels: kernels, Fail: map[string]driver.Result{"cuGraphInstantiateWithFlags": driver.ErrorOutOfMemory}},
			run:  captureNothing,
			code: cudabind.CodeOutOfMemory,
		},
		{
			name: "graph upload failure",
			fd:   &fakedriver.Driver{Fail: map[string]driver.Result{"cuGraphUpload": driver.ErrorOutOfMemory}},
			run:  captureNothing,
			code: cudabind.CodeOutOfMemory,
		},
		{
			name: "launch failure",
			fd:   &fakedriver.Driver{Kernels: kernels, Fail: map[string]driver.Result{"cuLaunchKernel": cudabind.CodeLaunchOutOfResources}},
			run: func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error {
				m, f := fakeKernel(t, d, "saxpy")
				defer m.Close()
				err := x.Launch(f, cudabind.Dim3{X: 4}, cudabind.Dim3{X: 256}, 0, 0,
					cudabind.DevPtr(0), cudabind.DevPtr(0), float32(2), int32(1024))
				if err != nil && !strings.Contains(err.Error(), "kernel saxpy, grid 4x1x1, block 256x1x1") {
					t.Errorf("launch error %q does not name the kernel and its geometry", err)
				}
				// Not sticky: the context still works.
				if p, err := x.Alloc(64); err != nil {
					t.Errorf("Alloc after a non-sticky launch failure: %v", err)
				} else {
					x.Free(p)
				}
				return err
			},
			code: cudabind.CodeLaunchOutOfResources,
		},
		{
			name: "sticky fault poisons later calls",
			fd:   &fakedriver.Driver{Kernels: kernels, Faults: map[string]driver.Result{"boom": driver.ErrorIllegalAddress}},
			run: func(t *testing.T, d *cudabind.Device, x *cudabind.Exec) error {
				_, f := fakeKernel(t, d, "boom")
				if err := x.Launch(f, cudabind.Dim3{X: 1}, cudabind.Dim3{X: 32}, 0, 0, cudabind.DevPtr(0)); err != nil {
					t.Fatalf("the faulting launch itself returned %v; faults surface later", err)
				}
				err := x.Sync()
				// Every later call returns the same sticky error.
				_, aerr := x.Alloc(64)
				wantCode(t, "Alloc after the fault", aerr, cudabind.CodeIllegalAddress, true)
				_, _, merr := x.MemInfo()
				wantCode(t, "MemInfo after the fault", merr, cudabind.CodeIllegalAddress, true)
				return err
			},
			code:   cudabind.CodeIllegalAddress,
			sticky: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := gputest.OpenDriver(t, c.fd)
			var err error
			if derr := d.Do(func(x *cudabind.Exec) error { err = c.run(t, d, x); return nil }); derr != nil {
				t.Fatal(derr)
			}
			wantCode(t, c.name, err, c.code, c.sticky)
			if !c.sticky {
				noLeaks(t, d, c.fd)
			}
		})
	}
}

// TestFakeDriverUnavailable: a driver that cannot initialize or has no
// device is an *UnavailableError, the error GPU tests skip with.
func TestFakeDriverUnavailable(t *testing.T) {
	cases := []struct {
		name    string
		drv     driver.Driver
		lib     string
		contain string
	}{
		{"no device at init", &fakedriver.Driver{InitResult: driver.ErrorNoDevice}, "device", "CUDA_ERROR_NO_DEVICE"},
		{"no device counted", &fakedriver.Driver{NoDevices: true}, "device", "no CUDA device"},
		{"init failure", &fakedriver.Driver{InitResult: 999}, "fakedriver", "CUDA_ERROR_UNKNOWN"},
		{"nil driver", nil, "driver", "nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := cudabind.OpenDriver(c.drv, 0)
			var ue *cudabind.UnavailableError
			if d != nil || !errors.As(err, &ue) {
				t.Fatalf("OpenDriver = %v, %v; want an *UnavailableError", d, err)
			}
			if ue.Lib != c.lib || !strings.Contains(ue.Reason, c.contain) {
				t.Errorf("UnavailableError %+v, want Lib %q and a reason with %q", ue, c.lib, c.contain)
			}
		})
	}
	if _, err := cudabind.OpenDriver(&fakedriver.Driver{}, 1); err == nil || !strings.Contains(err.Error(), "ordinal 1 out of range") {
		t.Errorf("OpenDriver(ordinal 1 of 1) = %v, want an out-of-range error", err)
	}
}

// TestLaunchChecksArguments: a launch whose arguments differ in number
// or size from the kernel's parameters is refused before it reaches the
// driver, by what the driver can report: every parameter with
// cuFuncGetParamCount; the first len(arguments) with cuFuncGetParamInfo
// alone (a launch one argument short then goes through); nothing without
// either. A matching launch never asks the driver past the last
// parameter (the API error compute-sanitizer reports).
func TestLaunchChecksArguments(t *testing.T) {
	kernels := map[string][]int{"saxpy": {8, 8, 4, 4}}
	cases := []struct {
		name string
		args []any
		want *cudabind.ArgumentError // nil: the launch runs
	}{
		{"matching", []any{cudabind.DevPtr(0x100), cudabind.DevPtr(0x200), float32(2), int32(1024)}, nil},
		{"one argument short", []any{cudabind.DevPtr(0x100), cudabind.DevPtr(0x200), float32(2)},
			&cudabind.ArgumentError{Kernel: "saxpy", Index: -1, Want: 4, Got: 3}},
		{"one argument too many", []any{cudabind.DevPtr(0x100), cudabind.DevPtr(0x200), float32(2), int32(1024), int32(0)},
			&cudabind.ArgumentError{Kernel: "saxpy", Index: -1, Want: 4, Got: 5}},
		{"int64 for an int", []any{cudabind.DevPtr(0x100), cudabind.DevPtr(0x200), float32(2), int64(1024)},
			&cudabind.ArgumentError{Kernel: "saxpy", Index: 3, Want: 4, Got: 8}},
		{"float64 for a float", []any{cudabind.DevPtr(0x100), cudabind.DevPtr(0x200), float64(2), int32(1024)},
			&cudabind.ArgumentError{Kernel: "saxpy", Index: 2, Want: 4, Got: 8}},
		{"int32 for a pointer", []any{int32(0), cudabind.DevPtr(0x200), float32(2), int32(1024)},
			&cudabind.ArgumentError{Kernel: "saxpy", Index: 0, Want: 8, Got: 4}},
	}
	modes := []struct {
		name              string
		noInfo, noCount   bool
		checked, shortRun bool // launches checked; one argument short goes through
	}{
		{"count and info", false, false, true, false},
		{"info only", false, true, true, true},
		{"neither", true, true, false, true},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			for _, c := range cases {
				if mode.shortRun && len(c.args) < len(kernels["saxpy"]) {
					// Unchecked, the driver would read parameter pointers
					// past the end of the array: the harm the check prevents.
					continue
				}
				fd := &fakedriver.Driver{Kernels: kernels, NoParamInfo: mode.noInfo, NoParamCount: mode.noCount}
				d := gputest.OpenDriver(t, fd)
				_, f := fakeKernel(t, d, "saxpy")
				before := len(fd.Launches())
				err := d.Do(func(x *cudabind.Exec) error {
					return x.Launch(f, cudabind.Dim3{X: 1}, cudabind.Dim3{X: 32}, 0, 0, c.args...)
				})
				launched := len(fd.Launches()) - before
				if c.want == nil || !mode.checked {
					if err != nil || launched != 1 {
						t.Errorf("%s: Launch = %v with %d launches, want it to run", c.name, err, launched)
					}
					if n := fd.ParamInfoErrors(); n != 0 {
						t.Errorf("%s: %d parameter queries past the last parameter, want 0", c.name, n)
					}
					continue
				}
				var ae *cudabind.ArgumentError
				if !errors.As(err, &ae) || *ae != *c.want {
					t.Errorf("%s: Launch = %v, want %+v", c.name, err, c.want)
					continue
				}
				if launched != 0 {
					t.Errorf("%s: a refused launch reached the driver", c.name)
				}
				part := "bytes"
				if c.want.Index < 0 {
					part = "parameters"
				}
				for _, part := range []string{"saxpy", part} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("%s: message %q lacks %q", c.name, err, part)
					}
				}
			}
		})
	}
}

// TestFunctionParams: Params reports every parameter where the driver
// can, asking past the last one only without cuFuncGetParamCount.
func TestFunctionParams(t *testing.T) {
	want := []cudabind.ParamInfo{{Offset: 0, Size: 8}, {Offset: 8, Size: 8}, {Offset: 16, Size: 4}, {Offset: 20, Size: 4}}
	for _, tt := range []struct {
		name            string
		noInfo, noCount bool
		ok              bool
		pastLast        int
	}{
		{"count and info", false, false, true, 0},
		{"info only", false, true, true, 1},
		{"neither", true, true, false, 0},
	} {
		fd := &fakedriver.Driver{Kernels: map[string][]int{"saxpy": {8, 8, 4, 4}}, NoParamInfo: tt.noInfo, NoParamCount: tt.noCount}
		d := gputest.OpenDriver(t, fd)
		_, f := fakeKernel(t, d, "saxpy")
		for range 2 { // the answer is kept: the second call asks nothing
			got, ok := f.Params()
			if ok != tt.ok || (ok && fmt.Sprint(got) != fmt.Sprint(want)) {
				t.Errorf("%s: Params() = %v, %v; want %v, %v", tt.name, got, ok, want, tt.ok)
			}
		}
		if n := fd.ParamInfoErrors(); n != tt.pastLast {
			t.Errorf("%s: %d queries past the last parameter, want %d", tt.name, n, tt.pastLast)
		}
	}
}

// TestFakeDriverRoundTrip checks the runtime's data path on the fake:
// what is copied in comes back, and a launch passes the packed bytes.
func TestFakeDriverRoundTrip(t *testing.T) {
	fd := &fakedriver.Driver{Kernels: map[string][]int{"k": {8, 4, 2, 1}}}
	d := gputest.OpenDriver(t, fd)
	m, f := fakeKernel(t, d, "k")
	in := []float32{1, 2, 3, 4, 5, 6}
	out := make([]float32, len(in))
	err := d.Do(func(x *cudabind.Exec) error {
		p, err := x.Alloc(cudabind.SizeOf(in))
		if err != nil {
			return err
		}
		defer x.Free(p)
		if err := x.CopyHtoD(p, cudabind.Ptr(in), cudabind.SizeOf(in)); err != nil {
			return err
		}
		if err := x.CopyDtoH(cudabind.Ptr(out), p, cudabind.SizeOf(out)); err != nil {
			return err
		}
		return x.Launch(f, cudabind.Dim3{X: 2}, cudabind.Dim3{X: 64}, 0, 0, p, int32(-2), uint16(7), uint8(9))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i] != in[i] {
			t.Fatalf("round trip gave %v, want %v", out, in)
		}
	}
	ls := fd.Launches()
	if len(ls) != 1 || ls[0].Kernel != "k" || ls[0].Grid != [3]uint32{2, 1, 1} || ls[0].Block != [3]uint32{64, 1, 1} {
		t.Fatalf("launches %+v", ls)
	}
	if a := ls[0].Args; len(a) != 4 || a[1][0] != 0xfe || a[1][3] != 0xff || a[2][0] != 7 || a[3][0] != 9 {
		t.Errorf("the driver received arguments %v", a)
	}
	noLeaks(t, d, fd)
}

// TestFakeDriverPitchedCopies runs the 2-D copies through the fake: rows
// land at their pitch and come back.
func TestFakeDriverPitchedCopies(t *testing.T) {
	fd := &fakedriver.Driver{}
	d := gputest.OpenDriver(t, fd)
	const w, h = 5, 3 // float32 texels
	in := make([]float32, w*h)
	for i := range in {
		in[i] = float32(i)
	}
	out := make([]float32, w*h)
	err := d.Do(func(x *cudabind.Exec) error {
		p, pitch, err := x.AllocPitch(w*4, h)
		if err != nil {
			return err
		}
		defer x.Free(p)
		if pitch < w*4 {
			t.Errorf("pitch %d is less than a row", pitch)
		}
		if err := x.CopyHtoD2D(p, pitch, cudabind.Ptr(in), w*4, w*4, h); err != nil {
			return err
		}
		q, err := x.Alloc(pitch * h)
		if err != nil {
			return err
		}
		defer x.Free(q)
		s, err := x.NewStream()
		if err != nil {
			return err
		}
		defer x.DestroyStream(s)
		if err := x.CopyDtoD2DAsync(q, pitch, p, pitch, w*4, h, s); err != nil {
			return err
		}
		return x.CopyDtoH2D(cudabind.Ptr(out), w*4, q, pitch, w*4, h)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i] != in[i] {
			t.Fatalf("2-D round trip gave %v, want %v", out, in)
		}
	}
	noLeaks(t, d, fd)
}

// TestFakeDeviceCompileWithoutNVRTC: on a host without NVRTC, compiling
// for a device is the *UnavailableError of the missing compiler, and
// nothing is loaded.
func TestFakeDeviceCompileWithoutNVRTC(t *testing.T) {
	if _, _, err := cudabind.NVRTCVersion(); err == nil {
		t.Skip("NVRTC is installed here; nvrtc.TestLoadMissing covers a missing NVRTC")
	}
	fd := &fakedriver.Driver{}
	d := gputest.OpenDriver(t, fd)
	m, err := d.Compile(cudabind.Source{Name: "k.cu", Code: `extern "C" __global__ void k() {}`}, cudabind.CompileOptions{})
	var ue *cudabind.UnavailableError
	if m != nil || !errors.As(err, &ue) || ue.Lib != "nvrtc" {
		t.Fatalf("Compile without NVRTC = %v, %v; want an *UnavailableError for nvrtc", m, err)
	}
	noLeaks(t, d, fd)
}

// TestWaitEvent: a stream waits on an event of another stream; a null
// or destroyed event is an error, outside Do too.
func TestWaitEvent(t *testing.T) {
	fd := &fakedriver.Driver{MemBytes: 1 << 20}
	d := gputest.OpenDriver(t, fd)
	err := d.Do(func(x *cudabind.Exec) error {
		a, err := x.NewStream()
		if err != nil {
			return err
		}
		defer x.DestroyStream(a)
		b, err := x.NewStream()
		if err != nil {
			return err
		}
		defer x.DestroyStream(b)
		e, err := x.NewEvent()
		if err != nil {
			return err
		}
		if err := x.Record(e, a); err != nil {
			return err
		}
		if err := x.WaitEvent(b, e); err != nil {
			t.Errorf("WaitEvent on a recorded event: %v", err)
		}
		if err := x.WaitEvent(b, 0); err == nil {
			t.Error("WaitEvent on a null event succeeded")
		}
		if err := x.DestroyEvent(e); err != nil {
			return err
		}
		if err := x.WaitEvent(b, e); err == nil {
			t.Error("WaitEvent on a destroyed event succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range fd.Calls() {
		if c == "cuStreamWaitEvent" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("cuStreamWaitEvent called %d times, want 2 (the null event never reaches the driver)", n)
	}
}

// TestResetFaulted: ResetFaulted resets the context of a device a sticky
// error poisoned, and only that one: the reset device refuses further
// work with an error naming the fault and counts no live allocations;
// a healthy device is left as it was; a second ResetFaulted leaves the
// reset device alone; and both close.
func TestResetFaulted(t *testing.T) {
	kernels := map[string][]int{"boom": {8}}
	faulty := &fakedriver.Driver{Kernels: kernels, Faults: map[string]driver.Result{"boom": driver.ErrorIllegalAddress}}
	healthy := &fakedriver.Driver{Kernels: kernels}
	fd := gputest.OpenDriver(t, faulty)
	hd := gputest.OpenDriver(t, healthy)
	for _, d := range []*cudabind.Device{fd, hd} {
		if err := d.Do(func(x *cudabind.Exec) error { _, err := x.Alloc(64); return err }); err != nil {
			t.Fatal(err)
		}
	}
	_, f := fakeKernel(t, fd, "boom")
	err := fd.Do(func(x *cudabind.Exec) error {
		if err := x.Launch(f, cudabind.Dim3{X: 1}, cudabind.Dim3{X: 32}, 0, 0, cudabind.DevPtr(0)); err != nil {
			return err
		}
		return x.Sync()
	})
	wantCode(t, "the faulting run", err, cudabind.CodeIllegalAddress, true)

	n, err := cudabind.ResetFaulted()
	if err != nil || n < 1 {
		t.Fatalf("ResetFaulted() = %d, %v; want at least the faulted device reset", n, err)
	}
	if !slices.Contains(faulty.Calls(), "cuDevicePrimaryCtxReset") {
		t.Errorf("the faulted device's driver saw no cuDevicePrimaryCtxReset: %v", faulty.Calls())
	}
	if slices.Contains(healthy.Calls(), "cuDevicePrimaryCtxReset") {
		t.Error("the healthy device was reset")
	}
	err = fd.Do(func(x *cudabind.Exec) error { return nil })
	var se *cudabind.Error
	if err == nil || !strings.Contains(err.Error(), "reset after a sticky error") || !errors.As(err, &se) || !se.Sticky() {
		t.Errorf("Do on the reset device = %v, want an error naming the reset and wrapping the sticky error", err)
	}
	if n := fd.LiveAllocations(); n != 0 {
		t.Errorf("the reset device counts %d live allocations, want 0", n)
	}
	// A second call, as the next property of the suite makes: the reset
	// device has nothing left to release.
	resets := func() int {
		k := 0
		for _, c := range faulty.Calls() {
			if c == "cuDevicePrimaryCtxReset" {
				k++
			}
		}
		return k
	}
	before := resets()
	if n, err := cudabind.ResetFaulted(); err != nil || n != 0 {
		t.Errorf("ResetFaulted() again = %d, %v; want 0, nil", n, err)
	}
	if after := resets(); after != before {
		t.Errorf("the second ResetFaulted reset the device again (%d resets, want %d)", after, before)
	}
	if n := hd.LiveAllocations(); n != 1 {
		t.Errorf("the healthy device counts %d live allocations, want its 1 buffer", n)
	}
	if err := hd.Do(func(x *cudabind.Exec) error { _, err := x.Alloc(64); return err }); err != nil {
		t.Errorf("the healthy device after ResetFaulted: %v", err)
	}
	if err := fd.Close(); err != nil {
		t.Errorf("Close of the reset device: %v", err)
	}
}
