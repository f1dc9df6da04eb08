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
