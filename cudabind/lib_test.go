package cudabind

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind/dl"
	"github.com/convbench/convbench/cudabind/nvrtc"
)

func TestUnavailableErrorMessage(t *testing.T) {
	e := &UnavailableError{Lib: "libcuda.so.1", Reason: "cannot be opened (libcuda.so.1: not found)"}
	want := "cudabind: libcuda.so.1 unavailable: cannot be opened (libcuda.so.1: not found)"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if strings.Contains(e.Error(), "\n") {
		t.Error("message spans several lines; skips need one line")
	}
}

// TestNoDriverSubprocess runs the no-driver path in a child process whose
// driver library name points nowhere, so that it is tested on GPU hosts
// too (the loaders cache their first result per process).
func TestNoDriverSubprocess(t *testing.T) {
	if os.Getenv("CUDABIND_NO_DRIVER_CHILD") == "1" {
		d, err := Default()
		var ue *UnavailableError
		if d != nil || !errors.As(err, &ue) {
			t.Fatalf("Default() = %v, %v; want nil and an *UnavailableError", d, err)
		}
		if ue.Lib != "/nonexistent/libcuda.so.1" || strings.Count(ue.Error(), "/nonexistent/libcuda.so.1") != 1 {
			t.Errorf("UnavailableError %+v does not name the library tried once", ue)
		}
		if _, err2 := Default(); err2 != err {
			t.Errorf("second Default() error %v is not the cached first error %v", err2, err)
		}
		if _, err := Devices(); !errors.As(err, &ue) {
			t.Errorf("Devices() error %v, want *UnavailableError", err)
		}
		if _, err := Open(0); !errors.As(err, &ue) {
			t.Errorf("Open(0) error %v, want *UnavailableError", err)
		}
		if _, err := loadDriver(); !errors.As(err, &ue) {
			t.Errorf("loadDriver() error %v, want *UnavailableError", err)
		}
		return
	}
	runChild(t, "TestNoDriverSubprocess", "CUDABIND_NO_DRIVER_CHILD=1", dl.CUDA.Env+"=/nonexistent/libcuda.so.1")
}

func TestNVRTCMissingSubprocess(t *testing.T) {
	if os.Getenv("CUDABIND_NO_NVRTC_CHILD") == "1" {
		// Only the override can fail here if a real NVRTC is installed;
		// check the override is tried first and named in any error.
		_, _, err := NVRTCVersion()
		var ue *UnavailableError
		if err != nil && (!errors.As(err, &ue) || !strings.Contains(ue.Reason, "/nonexistent/libnvrtc.so")) {
			t.Fatalf("NVRTCVersion() error %v does not name the override", err)
		}
		if err == nil {
			if name, _ := nvrtc.Library(); name == "/nonexistent/libnvrtc.so" {
				t.Fatalf("opened a library that does not exist")
			}
		}
		_, err = CompileOnly(Source{Name: "a.cu", Code: "__global__ void k(){}"}, CompileOptions{Arch: "sm_90"})
		if err != nil && !errors.As(err, &ue) {
			t.Fatalf("CompileOnly error %v: want success or *UnavailableError", err)
		}
		return
	}
	runChild(t, "TestNVRTCMissingSubprocess", "CUDABIND_NO_NVRTC_CHILD=1", dl.NVRTC.Env+"=/nonexistent/libnvrtc.so", nvrtc.EnvCacheDir+"="+t.TempDir())
}

// runChild runs the test binary again with only the test named, env added
// to its environment, and fails t unless that test passes there. A test
// whose library must be missing runs its checks in such a child, since a
// loader caches its first result for the life of the process.
func runChild(t *testing.T, test string, env ...string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary: " + err.Error())
	}
	cmd := exec.Command(exe, "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
}

// TestIncompleteDriverSubprocess points the driver library at a library
// that is not libcuda (the C library): loading fails with an
// *UnavailableError naming the first entry point missing.
func TestIncompleteDriverSubprocess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skipf("no libc.so.6 on %s", runtime.GOOS)
	}
	if os.Getenv("CUDABIND_INCOMPLETE_DRIVER_CHILD") == "1" {
		_, err := Default()
		var ue *UnavailableError
		if !errors.As(err, &ue) || ue.Lib != "libc.so.6" || !strings.Contains(ue.Reason, "missing symbol cuInit") {
			t.Fatalf("Default() error %v, want an *UnavailableError for libc.so.6 naming cuInit", err)
		}
		return
	}
	runChild(t, "TestIncompleteDriverSubprocess", "CUDABIND_INCOMPLETE_DRIVER_CHILD=1", dl.CUDA.Env+"=libc.so.6")
}
