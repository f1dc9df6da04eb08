package cudabind

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
	"github.com/convbench/convbench/cudabind/nvml"
)

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
		if ue.Lib != "/nonexistent/libnvidia-ml.so.1" || strings.Count(ue.Error(), "/nonexistent/libnvidia-ml.so.1") != 1 {
			t.Errorf("UnavailableError %+v does not name the library tried once", ue)
		}
		if _, err2 := OpenNVML("GPU-x"); !errors.As(err2, &ue) {
			t.Errorf("second OpenNVML() error %v, want the cached *UnavailableError", err2)
		}
		return
	}
	runChild(t, "TestNoNVMLSubprocess", "CUDABIND_NO_NVML_CHILD=1", dl.NVML.Env+"=/nonexistent/libnvidia-ml.so.1")
}

// TestFakeNVMLSubprocess loads a stand-in NVML (nvml/testdata/fakenvml.c,
// with the energy counter) through CONVBENCH_LIBNVML in a child process,
// and reads it through this package's names.
func TestFakeNVMLSubprocess(t *testing.T) {
	if os.Getenv("CUDABIND_FAKE_NVML_CHILD") == "1" {
		n, err := OpenNVML("GPU-fake")
		if err != nil {
			t.Fatalf("OpenNVML(GPU-fake) from %s: %v", os.Getenv(dl.NVML.Env), err)
		}
		if mhz, err := n.MaxSMClockMHz(); mhz != 1980 || err != nil {
			t.Errorf("MaxSMClockMHz() = %d, %v; want 1980", mhz, err)
		}
		if mj, err := n.EnergyMJ(); mj != 0 || err != nil {
			t.Errorf("EnergyMJ() = %d, %v; want the stand-in's 0", mj, err)
		}
		return
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the stand-in library: %v", err)
	}
	lib := filepath.Join(t.TempDir(), "libfakenvml.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-DENERGY", "-o", lib, filepath.Join("nvml", "testdata", "fakenvml.c")).CombinedOutput(); err != nil {
		t.Skipf("cannot build the stand-in library: %v\n%s", err, out)
	}
	runChild(t, "TestFakeNVMLSubprocess", "CUDABIND_FAKE_NVML_CHILD=1", dl.NVML.Env+"="+lib)
}

// On a GPU host, NVML finds the CUDA device by its UUID and reads a
// plausible SM clock, maximum clock, power and temperature, and, where
// the GPU has it, an energy counter that does not run backwards.
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
	if w, err := n.PowerW(); err != nil && !errors.Is(err, &Error{Library: cudaerr.LibNVML, Code: nvml.CodeNotSupported}) || err == nil && (w <= 0 || w > 5000) {
		t.Errorf("PowerW() = %v, %v", w, err)
	}
	if c, err := n.TemperatureC(); err != nil && !errors.Is(err, &Error{Library: cudaerr.LibNVML, Code: nvml.CodeNotSupported}) || err == nil && (c <= 0 || c > 130) {
		t.Errorf("TemperatureC() = %v, %v", c, err)
	}
	if e0, err := n.EnergyMJ(); err != nil {
		if !errors.Is(err, &Error{Library: cudaerr.LibNVML, Code: nvml.CodeNotSupported}) && !errors.Is(err, &Error{Library: cudaerr.LibNVML, Code: nvml.CodeFunctionNotFound}) {
			t.Errorf("EnergyMJ() = %v", err)
		}
		t.Logf("no energy counter: %v", err)
	} else {
		// Poll the counter for a second: it must move forward, and the
		// log says how often it does (the benchmarks' energy meter
		// assumes every few to some tens of milliseconds).
		var steps []time.Duration
		last, at := e0, time.Now()
		for start := at; time.Since(start) < time.Second; time.Sleep(time.Millisecond) {
			e, err := n.EnergyMJ()
			if err != nil || e < last {
				t.Fatalf("EnergyMJ() = %d, %v after %d", e, err, last)
			}
			if e > last {
				steps = append(steps, time.Since(at))
				last, at = e, time.Now()
			}
		}
		if len(steps) == 0 {
			t.Errorf("EnergyMJ() stayed at %d mJ for a second", e0)
		}
		t.Logf("energy counter: %d mJ, then %d mJ a second later, in %d updates; intervals %v", e0, last, len(steps), steps)
	}
	t.Logf("%s (%s): SM clock %d of %d MHz", info.Name, n.UUID(), mhz, maxMHz)
	if _, err := OpenNVML("GPU-00000000-0000-0000-0000-000000000000"); err == nil {
		t.Error("OpenNVML of an unknown UUID: no error")
	}
}
