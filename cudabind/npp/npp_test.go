package npp

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

// fakeNPPIF is a stand-in for libnppif with the real prototype of
// nppiFilter_32f_C1R_Ctx: it records every argument it receives, by value,
// so that the test can check what the purego call put where. It returns
// -33 (NPP_MASK_SIZE_ERROR) to check that the status comes back too.
const fakeNPPIF = `
#include <stddef.h>
typedef struct { int width; int height; } NppiSize;
typedef struct { int x; int y; } NppiPoint;
typedef struct {
    void *hStream;
    int nCudaDeviceId;
    int nMultiProcessorCount;
    int nMaxThreadsPerMultiProcessor;
    int nMaxThreadsPerBlock;
    size_t nSharedMemPerBlock;
    int nCudaDevAttrComputeCapabilityMajor;
    int nCudaDevAttrComputeCapabilityMinor;
    unsigned int nStreamFlags;
    int nReserved0;
} NppStreamContext;
typedef struct {
    const float *src; int srcStep; float *dst; int dstStep;
    NppiSize roi; const float *kernel; NppiSize ksize; NppiPoint anchor;
    NppStreamContext ctx;
} Call;
static Call last;
int nppiFilter_32f_C1R_Ctx(const float *pSrc, int nSrcStep, float *pDst, int nDstStep,
                           NppiSize oSizeROI, const float *pKernel, NppiSize oKernelSize,
                           NppiPoint oAnchor, NppStreamContext nppStreamCtx) {
    last.src = pSrc; last.srcStep = nSrcStep; last.dst = pDst; last.dstStep = nDstStep;
    last.roi = oSizeROI; last.kernel = pKernel; last.ksize = oKernelSize; last.anchor = oAnchor;
    last.ctx = nppStreamCtx;
    return -33;
}
void fake_last(Call *out) { *out = last; }
`

// fakeCall mirrors the C struct Call above.
type fakeCall struct {
	src            uintptr
	srcStep        int32
	dst            uintptr
	dstStep        int32
	roiW, roiH     int32
	kernel         uintptr
	kw, kh, ax, ay int32
	ctx            StreamContext
}

// TestNPPCallABI builds the stand-in library with the system C compiler
// and checks that filter32f delivers every argument, the 48-byte
// NppStreamContext passed by value included, and returns the status.
func TestNPPCallABI(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("the NPP call is implemented for amd64 and arm64 only, not %s", runtime.GOARCH)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the stand-in library: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "fakenpp.c")
	lib := filepath.Join(dir, "libfakenppif.so")
	if err := os.WriteFile(src, []byte(fakeNPPIF), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", lib, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build the stand-in library: %v\n%s", err, out)
	}
	l, err := Open([]string{filepath.Join(dir, "missing.so"), lib})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	ctx := StreamContext{HStream: 0x1122334455667788, NCudaDeviceID: 3, NMultiProcessorCount: 132,
		NMaxThreadsPerMultiProcessor: 2048, NMaxThreadsPerBlock: 1024, NSharedMemPerBlock: 49152,
		NCudaDevAttrComputeCapabilityMajor: 9, NCudaDevAttrComputeCapabilityMinor: 0, NStreamFlags: 1, NReserved0: -7}
	st := l.Filter32f(0xdead0000, 4*1031, 0xbeef0000, -4*1000, Size{1000, 777}, 0xf11e0000,
		Size{31, 5}, Size{15, 2}, &ctx)
	if st != -33 {
		t.Errorf("status = %d, want -33", st)
	}
	fake, err := dl.Open([]string{lib})
	if err != nil {
		t.Fatal(err)
	}
	var last func(out *fakeCall)
	if err := fake.Bind([]dl.Symbol{dl.Func(&last, "fake_last")}); err != nil {
		t.Fatal(err)
	}
	var got fakeCall
	last(&got)
	want := fakeCall{src: 0xdead0000, srcStep: 4 * 1031, dst: 0xbeef0000, dstStep: -4 * 1000, roiW: 1000, roiH: 777,
		kernel: 0xf11e0000, kw: 31, kh: 5, ax: 15, ay: 2, ctx: ctx}
	if got != want {
		t.Errorf("the library received\n%+v\nwant\n%+v", got, want)
	}
	if got.ctx != ctx {
		t.Errorf("context received %+v, want %+v", got.ctx, ctx)
	}
}

// TestOpenMissing checks that a missing library is an
// UnavailableError naming what was tried.
func TestOpenMissing(t *testing.T) {
	_, err := Open([]string{"libconvbench-no-such-nppif.so.99"})
	var ue *cudaerr.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a *cudaerr.UnavailableError", err)
	}
	if ue.Lib != "libnppif" {
		t.Errorf("Lib = %q, want libnppif", ue.Lib)
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{
		0: "NPP_NO_ERROR (0)", -33: "NPP_MASK_SIZE_ERROR (-33)", -4711: "NPP error -4711", 5: "NPP warning 5",
	} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int32(s), got, want)
		}
	}
}
