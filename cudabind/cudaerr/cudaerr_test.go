package cudaerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorFormatting(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{API: "cuMemAlloc", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY", Text: "out of memory", Library: LibDriver},
			"cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"},
		{&Error{API: "nvrtcCompileProgram", Code: 6, Name: "NVRTC_ERROR_COMPILATION", Library: LibNVRTC},
			"nvrtcCompileProgram: NVRTC_ERROR_COMPILATION"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestDriverErrorTableNames(t *testing.T) {
	for code, nt := range driverErrorNames {
		if nt[0] == "" || nt[1] == "" {
			t.Errorf("code %d has an empty name or text", code)
		}
		if code != 0 && nt[0][:11] != "CUDA_ERROR_" {
			t.Errorf("code %d named %q", code, nt[0])
		}
	}
	for code, want := range map[int]string{1: "CUDA_ERROR_INVALID_VALUE", 700: "CUDA_ERROR_ILLEGAL_ADDRESS",
		701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", 719: "CUDA_ERROR_LAUNCH_FAILED", 999: "CUDA_ERROR_UNKNOWN",
		209: "CUDA_ERROR_NO_BINARY_FOR_GPU", 100: "CUDA_ERROR_NO_DEVICE"} {
		if got, _ := DriverErrorName(code); got != want {
			t.Errorf("DriverErrorName(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestSticky(t *testing.T) {
	sticky := map[int]bool{700: true, 702: true, 710: true, 714: true, 715: true, 716: true, 717: true, 718: true, 719: true}
	for code := range driverErrorNames {
		e := &Error{API: "cuCtxSynchronize", Code: code, Name: driverErrorNames[code][0], Library: LibDriver}
		if e.Sticky() != sticky[code] {
			t.Errorf("code %d (%s): Sticky() = %v, want %v", code, e.Name, e.Sticky(), sticky[code])
		}
	}
	// The same numbers from NVRTC are never sticky.
	if (&Error{Code: 700, Library: LibNVRTC}).Sticky() {
		t.Error("an NVRTC error reported sticky")
	}
}

func TestErrorIs(t *testing.T) {
	err := fmt.Errorf("alloc: %w", &Error{API: "cuMemAlloc", Code: CodeOutOfMemory, Library: LibDriver})
	if !errors.Is(err, &Error{Code: CodeOutOfMemory}) {
		t.Error("errors.Is by code failed")
	}
	if !errors.Is(err, &Error{Code: CodeOutOfMemory, API: "cuMemAlloc", Library: LibDriver}) {
		t.Error("errors.Is by code, API and library failed")
	}
	if errors.Is(err, &Error{Code: CodeInvalidValue}) || errors.Is(err, &Error{Code: CodeOutOfMemory, Library: LibNVRTC}) {
		t.Error("errors.Is matched a different code or library")
	}
}

// An UnavailableError, wrapped or not, is found by an interface with its
// Unavailable method, as packages that do not import the bindings find it.
func TestUnavailableMethod(t *testing.T) {
	type unavailable interface {
		error
		Unavailable() bool
	}
	ue := &UnavailableError{Lib: "libcuda.so.1", Reason: "cannot be opened"}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"bare", ue, true},
		{"wrapped", fmt.Errorf("gpu-naive: %w", ue), true},
		{"joined", errors.Join(errors.New("plan"), ue), true},
		{"a driver error", &Error{API: "cuMemAlloc", Code: CodeOutOfMemory, Name: "CUDA_ERROR_OUT_OF_MEMORY", Library: LibDriver}, false},
		{"plain", errors.New("plain"), false},
	} {
		var u unavailable
		got := errors.As(tt.err, &u) && u.Unavailable()
		if got != tt.want {
			t.Errorf("%s (%v): found unavailable %v, want %v", tt.name, tt.err, got, tt.want)
		}
		if got && u.Error() != ue.Error() {
			t.Errorf("%s: found %q, want %q", tt.name, u.Error(), ue.Error())
		}
	}
}

func TestMentionsSticky(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"cudabind: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access", true},
		{"--- FAIL: x: CUDA_ERROR_LAUNCH_FAILED (719)", true},
		{"cudabind: cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)", false},
		{"CUDA_ERROR_OUT_OF_MEMORY", false},
		{"", false},
	} {
		if got := MentionsSticky(tt.text); got != tt.want {
			t.Errorf("MentionsSticky(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if len(stickyNames) != 9 {
		t.Errorf("%d sticky names %v, want the 9 sticky codes'", len(stickyNames), stickyNames)
	}
}

func TestNVRTCErrorName(t *testing.T) {
	for _, c := range []struct {
		code int
		want string
	}{{0, "NVRTC_SUCCESS"}, {6, "NVRTC_ERROR_COMPILATION"}, {17, "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED"}, {99, "NVRTC_ERROR_99"}} {
		if got := NVRTCErrorName(c.code); got != c.want {
			t.Errorf("NVRTCErrorName(%d) = %q, want %q", c.code, got, c.want)
		}
	}
}
