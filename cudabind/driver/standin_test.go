package driver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/convbench/convbench/cudabind/dl"
)

// standinSource is a stand-in libcuda: every entry point of the table
// returns 0, and a few, with their real prototypes, record their
// arguments or write their out-parameters so that the test can check
// what the binding passed and read back.
const standinSource = `
#include <stddef.h>
#include <string.h>
typedef struct {
    void *f; unsigned grid[3], block[3], shared; void *stream; void **params; void **extra;
    unsigned long long arg0; int arg1;
    unsigned long long memsetPtr; unsigned memsetValue; size_t memsetCount; void *memsetStream;
    unsigned pitchElem;
} Record;
static Record rec;
void standin_last(Record *out) { *out = rec; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *s, void **params, void **extra) {
    rec.f = f; rec.grid[0] = gx; rec.grid[1] = gy; rec.grid[2] = gz;
    rec.block[0] = bx; rec.block[1] = by; rec.block[2] = bz; rec.shared = shared;
    rec.stream = s; rec.params = params; rec.extra = extra;
    memcpy(&rec.arg0, params[0], 8); memcpy(&rec.arg1, params[1], 4);
    return 0;
}
int cuMemsetD32Async(unsigned long long p, unsigned v, size_t n, void *s) {
    rec.memsetPtr = p; rec.memsetValue = v; rec.memsetCount = n; rec.memsetStream = s;
    return 0;
}
int cuMemAllocPitch_v2(unsigned long long *p, size_t *pitch, size_t w, size_t h, unsigned elem) {
    *p = 0x7f0000001000ULL; *pitch = (w + 511) / 512 * 512; rec.pitchElem = elem;
    return h == 0 ? 1 : 0;
}
int cuDeviceGetName(char *name, int len, int dev) { strncpy(name, "Stand-in GPU", len); return 0; }
int cuGetErrorName(int code, const char **s) { *s = code == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_STANDIN"; return 0; }
int cuFuncGetParamInfo(void *f, size_t i, size_t *off, size_t *size) {
    if (i > 1) return 1;
    *off = i * 8; *size = i == 0 ? 8 : 4;
    return 0;
}
int cuEventElapsedTime_v2(float *ms, void *a, void *b) { *ms = 1.25f; return 0; }
int cuModuleGetFunction(void **f, void *m, const char *name) {
    *f = (void *)0x4242; return strcmp(name, "conv") == 0 ? 0 : 500;
}
`

// buildStandin compiles the stand-in with the host C compiler, adding a
// returning-0 definition of every other entry point of the table.
func buildStandin(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("the stand-in library is built for Linux, not %s", runtime.GOOS)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the stand-in library: %v", err)
	}
	var b strings.Builder
	b.WriteString(standinSource)
	for _, s := range (&Lib{}).table() {
		if name := s.Names[0]; !strings.Contains(standinSource, " "+name+"(") {
			fmt.Fprintf(&b, "int %s() { return 0; }\n", name)
		}
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "standin.c"), filepath.Join(dir, "libcuda-standin.so")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-w", "-o", lib, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build the stand-in library: %v\n%s", err, out)
	}
	return lib
}

type standinRecord struct {
	f             uintptr
	grid, block   [3]uint32
	shared        uint32
	stream        uintptr
	params, extra uintptr
	arg0          uint64
	arg1          int32
	memsetPtr     uint64
	memsetValue   uint32
	memsetCount   uint64
	memsetStream  uintptr
	pitchElem     uint32
}

// TestLibPassesArguments calls the real binding on the stand-in and checks
// what arrived in C and what came back, through both kinds of table entry
// (registered function values and addresses called with dl.Call).
func TestLibPassesArguments(t *testing.T) {
	path := buildStandin(t)
	l, err := Load([]string{"/nonexistent/libcuda.so.1", path})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if !l.Has(Graphs) || !l.Has(ParamInfo) {
		t.Errorf("Has: graphs %v, param info %v; the stand-in has both", l.Has(Graphs), l.Has(ParamInfo))
	}
	other, err := dl.Open([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var last func(*standinRecord)
	if err := other.Bind([]dl.Symbol{dl.Func(&last, "standin_last")}); err != nil {
		t.Fatal(err)
	}

	// Registered entries: out-parameters, strings both ways.
	if name, r := l.DeviceGetName(0); r != Success || name != "Stand-in GPU" {
		t.Errorf("DeviceGetName = %q, %d", name, r)
	}
	if name, r := l.GetErrorName(ErrorOutOfMemory); r != Success || name != "CUDA_ERROR_OUT_OF_MEMORY" {
		t.Errorf("GetErrorName = %q, %d", name, r)
	}
	if p, pitch, r := l.MemAllocPitch(1000, 3, 4); r != Success || p != 0x7f0000001000 || pitch != 1024 {
		t.Errorf("MemAllocPitch = %#x, %d, %d", p, pitch, r)
	}
	if _, _, r := l.MemAllocPitch(1000, 0, 4); r != ErrorInvalidValue {
		t.Errorf("MemAllocPitch of 0 rows returned %d, want the stand-in's 1", r)
	}
	if ms, r := l.EventElapsedTime(1, 2); r != Success || ms != 1.25 {
		t.Errorf("EventElapsedTime = %v, %d", ms, r)
	}
	if f, r := l.ModuleGetFunction(1, "conv"); r != Success || f != 0x4242 {
		t.Errorf("ModuleGetFunction(conv) = %#x, %d", f, r)
	}
	if _, r := l.ModuleGetFunction(1, "other"); r != ErrorNotFound {
		t.Errorf("ModuleGetFunction(other) = %d, want %d", r, ErrorNotFound)
	}
	for i, want := range [][2]uint64{{0, 8}, {8, 4}} {
		if off, size, r := l.FuncGetParamInfo(0x4242, uint64(i)); r != Success || off != want[0] || size != want[1] {
			t.Errorf("FuncGetParamInfo(%d) = %d, %d, %d; want %v", i, off, size, r, want)
		}
	}
	if _, _, r := l.FuncGetParamInfo(0x4242, 2); r != ErrorInvalidValue {
		t.Errorf("FuncGetParamInfo past the end = %d", r)
	}

	// Address entries called with dl.Call.
	block := [2]uint64{0xdeadbeefcafe, uint64(uint32(0xfffffff9))} // a pointer, then int32(-7)
	params := []unsafe.Pointer{unsafe.Pointer(&block[0]), unsafe.Pointer(&block[1])}
	if r := l.LaunchKernel(0x4242, 7, 6, 5, 128, 2, 1, 4096, 0x5151, &params[0]); r != Success {
		t.Fatalf("LaunchKernel = %d", r)
	}
	if r := l.MemsetD32Async(0x7f0000002000, 0x3f800000, 1<<33, 0x6161); r != Success {
		t.Fatalf("MemsetD32Async = %d", r)
	}
	var got standinRecord
	last(&got)
	if got.f != 0x4242 || got.grid != [3]uint32{7, 6, 5} || got.block != [3]uint32{128, 2, 1} || got.shared != 4096 ||
		got.stream != 0x5151 || got.params != uintptr(unsafe.Pointer(&params[0])) || got.extra != 0 ||
		got.arg0 != 0xdeadbeefcafe || got.arg1 != -7 {
		t.Errorf("cuLaunchKernel received %+v", got)
	}
	if got.memsetPtr != 0x7f0000002000 || got.memsetValue != 0x3f800000 || got.memsetCount != 1<<33 || got.memsetStream != 0x6161 {
		t.Errorf("cuMemsetD32Async received %+v", got)
	}
	if got.pitchElem != 4 {
		t.Errorf("cuMemAllocPitch received element size %d, want 4", got.pitchElem)
	}
	for _, r := range []Result{l.CtxSynchronize(), l.StreamSynchronize(1), l.EventRecord(1, 2), l.GraphLaunch(1, 2)} {
		if r != Success {
			t.Errorf("a stand-in entry returned %d", r)
		}
	}
}
