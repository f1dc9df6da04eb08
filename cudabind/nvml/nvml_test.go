package nvml

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

func TestNVMLErrors(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{3, "nvmlDeviceGetPowerUsage: NVML_ERROR_NOT_SUPPORTED"},
		{6, "nvmlDeviceGetPowerUsage: NVML_ERROR_NOT_FOUND"},
		{15, "nvmlDeviceGetPowerUsage: NVML_ERROR_GPU_IS_LOST"},
		{999, "nvmlDeviceGetPowerUsage: NVML_ERROR_UNKNOWN"},
		{77, "nvmlDeviceGetPowerUsage: NVML_ERROR_77"},
	}
	for _, tt := range tests {
		err := newNVMLError(nil, "nvmlDeviceGetPowerUsage", tt.code)
		if err.Error() != tt.want {
			t.Errorf("code %d: %q, want %q", tt.code, err.Error(), tt.want)
		}
		if !errors.Is(err, &cudaerr.Error{Library: cudaerr.LibNVML, Code: tt.code}) || errors.Is(err, &cudaerr.Error{Library: cudaerr.LibDriver, Code: tt.code}) {
			t.Errorf("code %d: errors.Is does not match by library and code", tt.code)
		}
		if err.Sticky() {
			t.Errorf("code %d: an NVML error reads as a sticky CUDA error", tt.code)
		}
	}
}

func TestNVMLNilDevice(t *testing.T) {
	var d *Device
	if _, err := d.SMClockMHz(); err == nil || !strings.Contains(err.Error(), "nil *Device") {
		t.Errorf("SMClockMHz on nil: %v", err)
	}
	if _, err := d.MaxSMClockMHz(); err == nil {
		t.Error("MaxSMClockMHz on nil: no error")
	}
	if _, err := d.PowerW(); err == nil {
		t.Error("PowerW on nil: no error")
	}
	if _, err := d.TemperatureC(); err == nil {
		t.Error("TemperatureC on nil: no error")
	}
	if _, err := d.EnergyMJ(); err == nil || !strings.Contains(err.Error(), "EnergyMJ on a nil *Device") {
		t.Errorf("EnergyMJ on nil: %v", err)
	}
}

// buildFakeNVML compiles testdata/fakenvml.c with the system C compiler,
// with the energy counter or without, or skips.
func buildFakeNVML(t *testing.T, energy bool) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the stand-in library: %v", err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "fakenvml.c"))
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "libfakenvml.so")
	args := []string{"-shared", "-fPIC", "-O2", "-o", lib, src}
	if energy {
		args = append(args, "-DENERGY")
	}
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Skipf("cannot build the stand-in library: %v\n%s", err, out)
	}
	return lib
}

// openFake opens the stand-in library at path and its one device.
func openFake(t *testing.T, path string) *Device {
	t.Helper()
	l, err := openNVMLFrom([]string{"/nonexistent/libnvidia-ml.so.1", path})
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	if _, err := l.open("GPU-other"); !errors.Is(err, &cudaerr.Error{Library: cudaerr.LibNVML, Code: CodeNotFound}) || !strings.Contains(err.Error(), "GPU-other") {
		t.Errorf("opening an unknown UUID: %v, want NVML_ERROR_NOT_FOUND naming it", err)
	}
	d, err := l.open("GPU-fake")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The stand-in library's readings come through every bound call, the
// 64-bit energy counter whole.
func TestFakeNVMLReadings(t *testing.T) {
	path := buildFakeNVML(t, true)
	d := openFake(t, path)
	if mhz, err := d.SMClockMHz(); mhz != 1500 || err != nil {
		t.Errorf("SMClockMHz() = %d, %v; want 1500", mhz, err)
	}
	if mhz, err := d.MaxSMClockMHz(); mhz != 1980 || err != nil {
		t.Errorf("MaxSMClockMHz() = %d, %v; want 1980", mhz, err)
	}
	if w, err := d.PowerW(); w != 250 || err != nil {
		t.Errorf("PowerW() = %v, %v; want 250", w, err)
	}
	if c, err := d.TemperatureC(); c != 45 || err != nil {
		t.Errorf("TemperatureC() = %d, %v; want 45", c, err)
	}
	fake, err := dl.Open([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var setEnergy func(mj uint64, result int32)
	if err := fake.Bind([]dl.Symbol{dl.Func(&setEnergy, "fake_set_energy")}); err != nil {
		t.Fatal(err)
	}
	for _, mj := range []uint64{0, 123456, 1<<40 + 7} {
		setEnergy(mj, 0)
		if got, err := d.EnergyMJ(); got != mj || err != nil {
			t.Errorf("EnergyMJ() = %d, %v; want %d", got, err, mj)
		}
	}
	setEnergy(5, CodeNotSupported)
	_, err = d.EnergyMJ()
	if !errors.Is(err, &cudaerr.Error{Library: cudaerr.LibNVML, Code: CodeNotSupported}) {
		t.Fatalf("EnergyMJ() on a GPU without the counter: %v, want NVML_ERROR_NOT_SUPPORTED", err)
	}
	if want := "nvml: energy counter of GPU-fake: nvmlDeviceGetTotalEnergyConsumption: NVML_ERROR_NOT_SUPPORTED (Not Supported)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// OtherProcesses counts the processes NVML lists less the caller's own,
// also when they outnumber the records it reads.
func TestFakeNVMLOtherProcesses(t *testing.T) {
	path := buildFakeNVML(t, true)
	d := openFake(t, path)
	fake, err := dl.Open([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var setProcesses func(n uint32)
	if err := fake.Bind([]dl.Symbol{dl.Func(&setProcesses, "fake_set_processes")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ listed, want int }{{0, 0}, {1, 0}, {2, 1}, {5, 4}, {maxProcesses, maxProcesses - 1}, {maxProcesses + 10, maxProcesses + 9}} {
		setProcesses(uint32(tc.listed))
		if got, err := d.OtherProcesses(); got != tc.want || err != nil {
			t.Errorf("%d processes listed: OtherProcesses() = %d, %v; want %d", tc.listed, got, err, tc.want)
		}
	}
}

// A library without nvmlDeviceGetTotalEnergyConsumption still opens (the
// symbol is optional); EnergyMJ then says the library lacks it.
func TestFakeNVMLWithoutEnergy(t *testing.T) {
	path := buildFakeNVML(t, false)
	d := openFake(t, path)
	if mhz, err := d.SMClockMHz(); mhz != 1500 || err != nil {
		t.Errorf("SMClockMHz() = %d, %v; want 1500", mhz, err)
	}
	mj, err := d.EnergyMJ()
	if mj != 0 || !errors.Is(err, &cudaerr.Error{Library: cudaerr.LibNVML, Code: CodeFunctionNotFound}) {
		t.Fatalf("EnergyMJ() = %d, %v; want NVML_ERROR_FUNCTION_NOT_FOUND", mj, err)
	}
	if !strings.Contains(err.Error(), path+" does not export it") || !strings.Contains(err.Error(), "GPU-fake") {
		t.Errorf("error %q does not name the library and the device", err)
	}
	if n, err := d.OtherProcesses(); n != 0 || !errors.Is(err, &cudaerr.Error{Library: cudaerr.LibNVML, Code: CodeFunctionNotFound}) {
		t.Errorf("OtherProcesses() = %d, %v; want NVML_ERROR_FUNCTION_NOT_FOUND", n, err)
	}
}
