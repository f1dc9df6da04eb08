package nvml

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind/cudaerr"
)

func TestSearchList(t *testing.T) {
	t.Setenv(EnvLibNVML, "")
	if got := SearchList(); !reflect.DeepEqual(got, []string{"libnvidia-ml.so.1"}) {
		t.Errorf("SearchList() = %q, want [libnvidia-ml.so.1]", got)
	}
	t.Setenv(EnvLibNVML, "/opt/nvidia/libnvidia-ml.so.1")
	if got := SearchList(); !reflect.DeepEqual(got, []string{"/opt/nvidia/libnvidia-ml.so.1"}) {
		t.Errorf("with override, SearchList() = %q", got)
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
}
