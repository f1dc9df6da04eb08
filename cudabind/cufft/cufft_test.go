package cufft

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

func TestResultString(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Success, "CUFFT_SUCCESS (0)"},
		{ExecFailed, "CUFFT_EXEC_FAILED (6)"},
		{InvalidSize, "CUFFT_INVALID_SIZE (8)"},
		{NotSupported, "CUFFT_NOT_SUPPORTED (16)"},
		{Result(-3), "cufftResult(-3)"},
		{Result(99), "cufftResult(99)"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("Result(%d).String() = %q, want %q", int32(c.r), got, c.want)
		}
	}
}

func TestErrorIs(t *testing.T) {
	err := check("cufftExecR2C", int32(ExecFailed))
	if err == nil || err.Error() != "cufft: cufftExecR2C: CUFFT_EXEC_FAILED (6)" {
		t.Errorf("check(cufftExecR2C, 6) = %v", err)
	}
	for _, c := range []struct {
		target *Error
		want   bool
	}{
		{&Error{Result: ExecFailed}, true},
		{&Error{API: "cufftExecR2C", Result: ExecFailed}, true},
		{&Error{API: "cufftExecC2R", Result: ExecFailed}, false},
		{&Error{Result: InvalidPlan}, false},
	} {
		if got := errors.Is(err, c.target); got != c.want {
			t.Errorf("errors.Is(%v, %+v) = %v, want %v", err, c.target, got, c.want)
		}
	}
	if err := check("cufftCreate", 0); err != nil {
		t.Errorf("check of CUFFT_SUCCESS = %v, want nil", err)
	}
}

// TestLoadUnavailable: a missing library, a library without cuFFT's
// symbols and an empty list are each a *cudaerr.UnavailableError that
// names what was tried.
func TestLoadUnavailable(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  []string // substrings of the reason
	}{
		{[]string{"libconvbench-no-such-cufft.so.99"}, []string{"libconvbench-no-such-cufft.so.99"}},
		{[]string{"libconvbench-no-such-cufft.so.99", "libc.so.6"}, []string{"libconvbench-no-such-cufft.so.99", "libc.so.6", "missing symbol cufftCreate"}},
		{nil, []string{"no library names"}},
	} {
		l, err := Load(c.names)
		var ue *cudaerr.UnavailableError
		if !errors.As(err, &ue) {
			t.Errorf("Load(%q) = %v, %v; want a *cudaerr.UnavailableError", c.names, l, err)
			continue
		}
		if ue.Lib != "libcufft" {
			t.Errorf("Load(%q): Lib = %q, want libcufft", c.names, ue.Lib)
		}
		for _, w := range c.want {
			if !strings.Contains(ue.Reason, w) {
				t.Errorf("Load(%q): reason %q does not mention %q", c.names, ue.Reason, w)
			}
		}
	}
}

func TestMakePlanManyBadArguments(t *testing.T) {
	l := &Library{} // never called: the arguments are refused first
	for _, c := range []struct {
		dims  []int64
		batch int64
	}{
		{nil, 1}, {[]int64{1, 2, 3, 4}, 1}, {[]int64{8, 0}, 1}, {[]int64{-8, 8}, 1}, {[]int64{8, 8}, 0},
	} {
		if _, err := l.MakePlanMany64(0, c.dims, R2C, c.batch); err == nil {
			t.Errorf("MakePlanMany64(%v, batch %d) = nil error", c.dims, c.batch)
		}
	}
}

// fakeCUFFT is a stand-in for libcufft with the real prototypes of the
// bound functions: each records its arguments and returns what the test
// sets, so that the test can check what the calls put where.
const fakeCUFFT = `
#include <stddef.h>
typedef struct {
    int plan, rank; long long n0, n1; int inembedNull, onembedNull;
    long long istride, idist, ostride, odist; int type; long long batch;
    int autoAlloc; void *area; void *stream; int execPlan; void *in, *out; int execKind;
} Calls;
static Calls last;
static int result;
void fake_set_result(int r) { result = r; }
void fake_last(Calls *out) { *out = last; }
int cufftGetVersion(int *v) { *v = 11203; return 0; }
int cufftCreate(int *plan) { *plan = 42; return result; }
int cufftDestroy(int plan) { last.plan = plan; return result; }
int cufftSetAutoAllocation(int plan, int a) { last.plan = plan; last.autoAlloc = a; return result; }
int cufftMakePlanMany64(int plan, int rank, long long *n, long long *inembed, long long istride, long long idist,
                        long long *onembed, long long ostride, long long odist, int type, long long batch, size_t *ws) {
    last.plan = plan; last.rank = rank; last.n0 = n[0]; last.n1 = rank > 1 ? n[1] : -1;
    last.inembedNull = inembed == 0; last.onembedNull = onembed == 0;
    last.istride = istride; last.idist = idist; last.ostride = ostride; last.odist = odist;
    last.type = type; last.batch = batch; *ws = (size_t)n[0] * 1000 + 7;
    return result;
}
int cufftSetWorkArea(int plan, void *area) { last.plan = plan; last.area = area; return result; }
int cufftSetStream(int plan, void *s) { last.plan = plan; last.stream = s; return result; }
int cufftExecR2C(int plan, float *in, void *out) { last.execPlan = plan; last.in = in; last.out = out; last.execKind = 1; return result; }
int cufftExecC2R(int plan, void *in, float *out) { last.execPlan = plan; last.in = in; last.out = out; last.execKind = 2; return result; }
`

// fakeCalls mirrors the C struct Calls above.
type fakeCalls struct {
	plan, rank                     int32
	n0, n1                         int64
	inembedNull, onembedNull       int32
	istride, idist, ostride, odist int64
	typ                            int32
	batch                          int64
	autoAlloc                      int32
	area, stream                   uintptr
	execPlan                       int32
	in, out                        uintptr
	execKind                       int32
}

// buildFake compiles fakeCUFFT with the system C compiler, or skips.
func buildFake(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the stand-in library: %v", err)
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "fakecufft.c"), filepath.Join(dir, "libfakecufft.so")
	if err := os.WriteFile(src, []byte(fakeCUFFT), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", lib, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build the stand-in library: %v\n%s", err, out)
	}
	return lib
}

// TestCallABI loads the stand-in library and checks that every bound call
// delivers its arguments (the twelve of cufftMakePlanMany64 included) and
// returns its result as a typed error.
func TestCallABI(t *testing.T) {
	path := buildFake(t)
	l, err := Load([]string{"libconvbench-no-such-cufft.so.99", path})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if l.Version() != 11203 || l.Name() != path || l.String() != path+" (cuFFT 11.2.3)" {
		t.Errorf("Version, Name, String = %d, %q, %q", l.Version(), l.Name(), l.String())
	}
	fake, err := dl.Open([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var setResult func(r int32)
	var last func(out *fakeCalls)
	if err := fake.Bind([]dl.Symbol{dl.Func(&setResult, "fake_set_result"), dl.Func(&last, "fake_last")}); err != nil {
		t.Fatal(err)
	}
	get := func() fakeCalls {
		var c fakeCalls
		last(&c)
		return c
	}

	h, err := l.Create()
	if err != nil || h != 42 {
		t.Fatalf("Create = %d, %v; want 42", h, err)
	}
	if err := l.SetAutoAllocation(h, false); err != nil || get().autoAlloc != 0 {
		t.Errorf("SetAutoAllocation(false): %v, got %d", err, get().autoAlloc)
	}
	ws, err := l.MakePlanMany64(h, []int64{1 << 33, 4096}, C2R, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1<<33)*1000 + 7; ws != want {
		t.Errorf("work size = %d, want %d", ws, want)
	}
	want := fakeCalls{plan: 42, rank: 2, n0: 1 << 33, n1: 4096, inembedNull: 1, onembedNull: 1,
		istride: 1, idist: 0, ostride: 1, odist: 0, typ: int32(C2R), batch: 3}
	if got := get(); got != want {
		t.Errorf("cufftMakePlanMany64 received\n%+v\nwant\n%+v", got, want)
	}
	if err := l.SetWorkArea(h, 0xaaaa0000); err != nil || get().area != 0xaaaa0000 {
		t.Errorf("SetWorkArea: %v, got %#x", err, get().area)
	}
	if err := l.SetStream(h, 0x5555000011112222); err != nil || get().stream != 0x5555000011112222 {
		t.Errorf("SetStream: %v, got %#x", err, get().stream)
	}
	if err := l.ExecR2C(h, 0x1000, 0x2000); err != nil {
		t.Error(err)
	}
	if c := get(); c.execPlan != 42 || c.in != 0x1000 || c.out != 0x2000 || c.execKind != 1 {
		t.Errorf("cufftExecR2C received plan %d, %#x -> %#x (kind %d)", c.execPlan, c.in, c.out, c.execKind)
	}
	setResult(int32(ExecFailed))
	err = l.ExecC2R(h, 0x3000, 0x4000)
	if !errors.Is(err, &Error{API: "cufftExecC2R", Result: ExecFailed}) {
		t.Errorf("ExecC2R with the library failing = %v, want CUFFT_EXEC_FAILED", err)
	}
	if c := get(); c.in != 0x3000 || c.out != 0x4000 || c.execKind != 2 {
		t.Errorf("cufftExecC2R received %#x -> %#x (kind %d)", c.in, c.out, c.execKind)
	}
	setResult(int32(InvalidSize))
	if _, err := l.MakePlanMany64(h, []int64{8, 8}, R2C, 1); !errors.Is(err, &Error{Result: InvalidSize}) ||
		!strings.Contains(err.Error(), "CUFFT_R2C [8 8], batch 1") {
		t.Errorf("MakePlanMany64 with the library failing = %v, want CUFFT_INVALID_SIZE naming the plan", err)
	}
	setResult(int32(InvalidPlan))
	if err := l.Destroy(h); !errors.Is(err, &Error{API: "cufftDestroy", Result: InvalidPlan}) {
		t.Errorf("Destroy with the library failing = %v", err)
	}
}

func TestTypeString(t *testing.T) {
	for _, c := range []struct {
		typ  Type
		want string
	}{{R2C, "CUFFT_R2C"}, {C2R, "CUFFT_C2R"}, {C2C, "CUFFT_C2C"}, {0x6a, "cufftType(0x6a)"}} {
		if got := c.typ.String(); got != c.want {
			t.Errorf("Type(%#x).String() = %q, want %q", int32(c.typ), got, c.want)
		}
	}
}
