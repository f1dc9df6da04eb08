package nvrtc

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/convbench/convbench/cudabind/cudaerr"
)

// nvrtcOrSkip loads NVRTC or skips the test with the reason.
func nvrtcOrSkip(t *testing.T) {
	t.Helper()
	if _, _, err := Version(); err != nil {
		t.Skip(err.Error())
	}
}

const tinyKernel = `
#include "scale.cuh"
extern "C" __global__ void scale(float* out, const float* in, float a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = SCALE(in[i], a) + OFFSET;
}
`

func tinySource() Source {
	return Source{
		Name:    "tiny.cu",
		Code:    tinyKernel,
		Headers: map[string]string{"scale.cuh": "#define SCALE(x, a) ((x) * (a))\n"},
	}
}

func TestOptionsRendering(t *testing.T) {
	cases := []struct {
		name string
		opts CompileOptions
		want []string
	}{
		{"zero value is exact", CompileOptions{Arch: "sm_90"},
			[]string{"--gpu-architecture=sm_90", "--std=c++17", "--fmad=false"}},
		{"fmad", CompileOptions{Arch: "sm_80", FMAD: true},
			[]string{"--gpu-architecture=sm_80", "--std=c++17", "--fmad=true"}},
		{"fast math implies fmad", CompileOptions{Arch: "sm_90", FastMath: true},
			[]string{"--gpu-architecture=sm_90", "--std=c++17", "--fmad=true", "--use_fast_math"}},
		{"defines sorted, line info, extra", CompileOptions{Arch: "compute_90", FMAD: true, LineInfo: true,
			Defines: map[string]string{"KW": "5", "BX": "32", "A": "", "KH": "3"}, Extra: []string{"-G"}},
			[]string{"--gpu-architecture=compute_90", "--std=c++17", "--fmad=true", "-lineinfo",
				"-DA", "-DBX=32", "-DKH=3", "-DKW=5", "-G"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.opts.Options()
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Options() = %q, want %q", got, c.want)
			}
			for _, o := range got {
				if strings.Contains(o, "ftz") {
					t.Errorf("Options() contains %q; -ftz must never be added on its own", o)
				}
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := []CompileOptions{
		{},
		{Arch: "sm90"},
		{Arch: "gfx90a"},
		{Arch: "sm_90", Defines: map[string]string{"K W": "1"}},
		{Arch: "sm_90", Defines: map[string]string{"1K": "1"}},
		{Arch: "sm_90", Defines: map[string]string{"K": "1\n2"}},
		{Arch: "sm_90", Extra: []string{""}},
	}
	for _, o := range bad {
		if err := o.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", o)
		}
	}
	good := []CompileOptions{{Arch: "sm_90"}, {Arch: "compute_86"}, {Arch: "sm_90a"}, {Arch: "sm_100"},
		{Arch: "sm_75", Defines: map[string]string{"_K2": "x+1"}}}
	for _, o := range good {
		if err := o.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", o, err)
		}
	}
}

func TestCompileCUBIN(t *testing.T) {
	nvrtcOrSkip(t)
	t.Setenv(EnvCacheDir, t.TempDir())
	resetMemoryCache()
	opts := CompileOptions{Arch: "sm_90", Defines: map[string]string{"OFFSET": "1.0f"}}
	before := ReadCacheStats()
	c, err := Compile(tinySource(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != ImageCUBIN || len(c.CUBIN()) == 0 {
		t.Fatalf("kind %v with %d bytes, want a non-empty cubin", c.Kind, len(c.Image))
	}
	// A cubin is an ELF file.
	if !bytes.HasPrefix(c.Image, []byte("\x7fELF")) {
		t.Errorf("cubin starts with %q, want an ELF header", c.Image[:4])
	}
	if c.Cached {
		t.Error("first compile reported as cached")
	}
	mid := ReadCacheStats()
	if mid.Misses != before.Misses+1 || mid.DiskWrites != before.DiskWrites+1 {
		t.Errorf("first compile: stats went %+v -> %+v, want one miss and one disk write", before, mid)
	}
	c2, err := Compile(tinySource(), opts)
	if err != nil {
		t.Fatal(err)
	}
	after := ReadCacheStats()
	if after.Hits() != mid.Hits()+1 || !c2.Cached || !bytes.Equal(c2.Image, c.Image) {
		t.Errorf("second compile: hits %d -> %d, cached %v, same image %v", mid.Hits(), after.Hits(), c2.Cached, bytes.Equal(c2.Image, c.Image))
	}
	// From disk after the memory cache is gone.
	resetMemoryCache()
	c3, err := Compile(tinySource(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := ReadCacheStats(); s.DiskHits != after.DiskHits+1 || !bytes.Equal(c3.Image, c.Image) {
		t.Errorf("third compile: disk hits %d -> %d, same image %v", after.DiskHits, s.DiskHits, bytes.Equal(c3.Image, c.Image))
	}
}

func TestCompilePTXAndNameExpressions(t *testing.T) {
	nvrtcOrSkip(t)
	t.Setenv(EnvCacheDir, t.TempDir())
	src := Source{Name: "tmpl.cu", Code: `
template <int K> __global__ void box(float* p) { p[threadIdx.x] *= K; }
template __global__ void box<3>(float*);
`, NameExpressions: []string{"box<3>"}}
	c, err := Compile(src, CompileOptions{Arch: "compute_90"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != ImagePTX || !bytes.Contains(c.Image, []byte(".version")) || c.Image[len(c.Image)-1] != 0 {
		t.Errorf("kind %v, want NUL-terminated PTX text", c.Kind)
	}
	low := c.Lowered["box<3>"]
	if !strings.HasPrefix(low, "_Z") || !bytes.Contains(c.Image, []byte(low)) {
		t.Errorf("lowered name %q not a mangled name found in the PTX", low)
	}
}

func TestCompileErrorCarriesLog(t *testing.T) {
	nvrtcOrSkip(t)
	t.Setenv(EnvCacheDir, t.TempDir())
	src := Source{Name: "broken.cu", Code: "extern \"C\" __global__ void k(float* p) { p[0] = undefined_symbol_xyz; }\n"}
	_, err := Compile(src, CompileOptions{Arch: "sm_90"})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *CompileError", err, err)
	}
	if ce.Result != "NVRTC_ERROR_COMPILATION" || !strings.Contains(ce.Log, "undefined_symbol_xyz") || !strings.Contains(ce.Log, "broken.cu") {
		t.Errorf("CompileError result %q log %q: want NVRTC_ERROR_COMPILATION and a log naming the file and symbol", ce.Result, ce.Log)
	}
	if !strings.Contains(err.Error(), "undefined_symbol_xyz") {
		t.Errorf("message %q lacks the log", err)
	}
	var e *cudaerr.Error
	if !errors.As(err, &e) || e.Code != cudaerr.NVRTCCodeCompilation || e.Sticky() {
		t.Errorf("wrapped *Error = %+v, want code %d, not sticky", e, cudaerr.NVRTCCodeCompilation)
	}
}

func TestCompileRejectsBadInput(t *testing.T) {
	cases := []struct {
		src  Source
		opts CompileOptions
	}{
		{Source{Code: "x"}, CompileOptions{Arch: "sm_90"}},
		{Source{Name: "a.cu"}, CompileOptions{Arch: "sm_90"}},
		{Source{Name: "a.cu", Code: "x\x00"}, CompileOptions{Arch: "sm_90"}},
		{Source{Name: "a.cu", Code: "x", Headers: map[string]string{"": "y"}}, CompileOptions{Arch: "sm_90"}},
		{Source{Name: "a.cu", Code: "x"}, CompileOptions{}},
	}
	for i, c := range cases {
		if _, err := Compile(c.src, c.opts); err == nil {
			t.Errorf("case %d: Compile succeeded, want an error", i)
		}
	}
}

// TestCompileConcurrent asks for one module from several goroutines
// at once: NVRTC runs once, every caller gets the same image, and other
// modules compile alongside.
func TestCompileConcurrent(t *testing.T) {
	nvrtcOrSkip(t)
	t.Setenv(EnvCacheDir, t.TempDir())
	resetMemoryCache()
	const callers = 8
	before := ReadCacheStats()
	images := make([][]byte, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			offset := "1.0f"
			if i%2 == 1 {
				offset = "2.0f"
			}
			c, err := Compile(tinySource(), CompileOptions{Arch: "sm_90", Defines: map[string]string{"OFFSET": offset}})
			errs[i] = err
			if err == nil {
				images[i] = c.Image
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
		if !bytes.Equal(images[i], images[i%2]) {
			t.Errorf("caller %d got a different image from caller %d", i, i%2)
		}
	}
	if bytes.Equal(images[0], images[1]) {
		t.Error("OFFSET 1.0f and 2.0f compiled to the same image")
	}
	after := ReadCacheStats()
	if got := after.Misses - before.Misses; got != 2 {
		t.Errorf("%d NVRTC compiles for 2 distinct modules asked %d times", got, callers)
	}
	if got := after.Hits() - before.Hits(); got != callers-2 {
		t.Errorf("%d cache hits, want %d", got, callers-2)
	}
}

// TestLoadMissing: a missing or incomplete NVRTC is an
// *cudaerr.UnavailableError naming what was tried, whatever the host has
// installed.
func TestLoadMissing(t *testing.T) {
	cases := []struct {
		name    string
		names   []string
		contain []string
	}{
		{"no library", []string{"/nonexistent/libnvrtc.so.13", "/nonexistent/libnvrtc.so.12"},
			[]string{"/nonexistent/libnvrtc.so.13", "/nonexistent/libnvrtc.so.12"}},
		{"library without NVRTC", []string{"libc.so.6"}, []string{"libc.so.6", "nvrtcVersion"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.names[0] == "libc.so.6" && runtime.GOOS != "linux" {
				t.Skipf("no libc.so.6 on %s", runtime.GOOS)
			}
			l, err := Load(c.names)
			var ue *cudaerr.UnavailableError
			if l != nil || !errors.As(err, &ue) || ue.Lib != "nvrtc" {
				t.Fatalf("Load(%q) = %v, %v; want an *UnavailableError for nvrtc", c.names, l, err)
			}
			for _, s := range c.contain {
				if !strings.Contains(ue.Reason, s) {
					t.Errorf("reason %q does not name %s", ue.Reason, s)
				}
			}
		})
	}
}

func TestCompileErrorMessage(t *testing.T) {
	e := &CompileError{Source: "k.cu", Result: "NVRTC_ERROR_COMPILATION", Log: "k.cu(3): error: identifier \"q\" is undefined\n",
		Options: []string{"--gpu-architecture=sm_90"}, Err: &cudaerr.Error{API: "nvrtcCompileProgram", Code: 6, Name: "NVRTC_ERROR_COMPILATION", Library: cudaerr.LibNVRTC}}
	want := "cudabind: compiling k.cu failed: NVRTC_ERROR_COMPILATION (options: --gpu-architecture=sm_90)\nk.cu(3): error: identifier \"q\" is undefined"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	var inner *cudaerr.Error
	if !errors.As(e, &inner) || inner.Code != 6 {
		t.Error("CompileError does not unwrap to its *Error")
	}
}

func TestImageKindString(t *testing.T) {
	for _, c := range []struct {
		k    ImageKind
		want string
	}{{ImageCUBIN, "cubin"}, {ImagePTX, "ptx"}, {0, "ImageKind(0)"}} {
		if got := c.k.String(); got != c.want {
			t.Errorf("ImageKind(%d).String() = %q, want %q", int(c.k), got, c.want)
		}
	}
}
