package cudabind

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestNVMLSearchList(t *testing.T) {
	t.Setenv(EnvLibNVML, "")
	if got := NVMLSearchList(); !reflect.DeepEqual(got, []string{"libnvidia-ml.so.1"}) {
		t.Errorf("NVMLSearchList() = %q, want [libnvidia-ml.so.1]", got)
	}
	t.Setenv(EnvLibNVML, "/opt/nvidia/libnvidia-ml.so.1")
	if got := NVMLSearchList(); !reflect.DeepEqual(got, []string{"/opt/nvidia/libnvidia-ml.so.1"}) {
		t.Errorf("with override, NVMLSearchList() = %q", got)
	}
}

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
		if !errors.Is(err, &Error{Library: LibNVML, Code: tt.code}) || errors.Is(err, &Error{Library: LibDriver, Code: tt.code}) {
			t.Errorf("code %d: errors.Is does not match by library and code", tt.code)
		}
		if err.Sticky() {
			t.Errorf("code %d: an NVML error reads as a sticky CUDA error", tt.code)
		}
	}
}

func TestNVMLNilDevice(t *testing.T) {
	var d *NVMLDevice
	if _, err := d.SMClockMHz(); err == nil || !strings.Contains(err.Error(), "nil *NVMLDevice") {
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
}

// TestNoNVMLSubprocess opens NVML in a child process whose library name
// points nowhere, so that the missing-library path is tested on GPU hosts
// too (the loader caches its first result per process).
func TestNoNVMLSubprocess(t *testing.T) {
	if os.Getenv("CUDABIND_NO_NVML_CHILD") == "1" {
		d, err := OpenNVML("GPU-00000000-0000-0000-0000-000000000000")
		var ue *UnavailableError
		if d != nil || !errors.As(err, &ue) {
			t.Fatalf("OpenNVML() = %v, %v; want nil and an *UnavailableError", d, err)
		}
		if ue.Lib != "/nonexistent/libnvidia-ml.so.1" || !strings.Contains(ue.Reason, "/nonexistent/libnvidia-ml.so.1") {
			t.Errorf("UnavailableError %+v does not name the library tried", ue)
		}
		if _, err2 := OpenNVML("GPU-x"); !errors.As(err2, &ue) {
			t.Errorf("second OpenNVML() error %v, want the cached *UnavailableError", err2)
		}
		return
	}
	runChild(t, "TestNoNVMLSubprocess", "CUDABIND_NO_NVML_CHILD=1", EnvLibNVML+"=/nonexistent/libnvidia-ml.so.1")
}

// On a GPU host, NVML finds the CUDA device by its UUID and reads a
// plausible SM clock, maximum clock, power and temperature.
func TestGPUNVMLReadings(t *testing.T) {
	d := gpu(t)
	info := d.Info()
	n, err := OpenNVML(info.UUID)
	var ue *UnavailableError
	if errors.As(err, &ue) {
		t.Skip(ue.Error())
	}
	if err != nil {
		t.Fatalf("OpenNVML(%s): %v", info.UUID, err)
	}
	maxMHz, err := n.MaxSMClockMHz()
	if err != nil || maxMHz < 100 || maxMHz > 5000 {
		t.Fatalf("MaxSMClockMHz() = %d, %v", maxMHz, err)
	}
	mhz, err := n.SMClockMHz()
	if err != nil || mhz <= 0 || mhz > maxMHz+maxMHz/10 {
		t.Errorf("SMClockMHz() = %d, %v (max %d)", mhz, err, maxMHz)
	}
	if w, err := n.PowerW(); err != nil && !errors.Is(err, &Error{Library: LibNVML, Code: NVMLCodeNotSupported}) || err == nil && (w <= 0 || w > 5000) {
		t.Errorf("PowerW() = %v, %v", w, err)
	}
	if c, err := n.TemperatureC(); err != nil && !errors.Is(err, &Error{Library: LibNVML, Code: NVMLCodeNotSupported}) || err == nil && (c <= 0 || c > 130) {
		t.Errorf("TemperatureC() = %v, %v", c, err)
	}
	t.Logf("%s (%s): SM clock %d of %d MHz", info.Name, n.UUID(), mhz, maxMHz)
	if _, err := OpenNVML("GPU-00000000-0000-0000-0000-000000000000"); err == nil {
		t.Error("OpenNVML of an unknown UUID: no error")
	}
}
