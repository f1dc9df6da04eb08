package cudnn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
	"github.com/convbench/convbench/refimpl"
)

func TestSubLibraryNames(t *testing.T) {
	if got := subLibraryNames("libcudnn.so.9"); strings.Join(got, ",") != "libcudnn_graph.so.9,libcudnn_ops.so.9,libcudnn_cnn.so.9" {
		t.Errorf("sub-libraries of a soname = %v, want the sonames", got)
	}
	got := subLibraryNames("/opt/cudnn/lib/libcudnn.so.9")
	if len(got) != 3 || got[2] != "/opt/cudnn/lib/libcudnn_cnn.so.9" {
		t.Errorf("sub-libraries of a path = %v, want them next to it", got)
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{
		0:    "CUDNN_STATUS_SUCCESS",
		2000: "CUDNN_STATUS_BAD_PARAM",
		2002: "CUDNN_STATUS_BAD_PARAM_NULL_POINTER",
		3007: "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH",
		5000: "CUDNN_STATUS_EXECUTION_FAILED",
		3999: "CUDNN_STATUS_NOT_SUPPORTED (category of 3999)",
		-4:   "cudnnStatus_t(-4)",
		9:    "cudnnStatus_t(9)",
	} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int32(s), got, want)
		}
	}
}

func TestErrorNamesStatus(t *testing.T) {
	err := fmt.Errorf("plan: %w", &Error{API: "cudnnConvolutionForward", Status: StatusBadParam, Text: "CUDNN_STATUS_BAD_PARAM"})
	if want := "plan: cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM (2000)"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if !errors.Is(err, &Error{Status: StatusBadParam}) {
		t.Error("errors.Is does not match the status")
	}
	if errors.Is(err, &Error{Status: StatusNotSupported}) || errors.Is(err, &Error{API: "cudnnCreate", Status: StatusBadParam}) {
		t.Error("errors.Is matches another status or function")
	}
	e := &Error{API: "cudnnCreate", Status: StatusNotInitialized, Text: "the driver is too old"}
	if want := "cudnnCreate: CUDNN_STATUS_NOT_INITIALIZED (1001): the driver is too old"; e.Error() != want {
		t.Errorf("message %q, want %q", e, want)
	}
}

func TestUnusable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("plan: %w", &Error{API: "cudnnCreate", Status: StatusSublibraryLoadingFailed}), true},
		{&Error{API: "cudnnCreate", Status: StatusNotSupportedArchMismatch}, true},
		{&Error{API: "cudnnCreate", Status: StatusNotInitialized}, true},
		{&Error{API: "cudnnConvolutionForward", Status: StatusBadParam}, false},
		{&Error{API: "cudnnFindConvolutionForwardAlgorithm", Status: StatusNotSupportedShape}, false},
		{&Error{API: "cudnnCreate", Status: StatusInternalDeviceAllocation}, false},
		{errors.New("cudnn: something else"), false},
		{nil, false},
	} {
		if got := Unusable(tc.err); got != tc.want {
			t.Errorf("Unusable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestAlgo(t *testing.T) {
	direct := map[Algo]bool{AlgoImplicitGEMM: true, AlgoImplicitPrecompGEMM: true, AlgoGEMM: true, AlgoDirect: true}
	for a := Algo(0); a < AlgoCount; a++ {
		if a.DirectSum() != direct[a] {
			t.Errorf("%v.DirectSum() = %v", a, a.DirectSum())
		}
	}
	if AlgoFFTTiling.String() != "FFT_TILING" || Algo(8).String() != "cudnnConvolutionFwdAlgo_t(8)" {
		t.Errorf("names: %v, %v", AlgoFFTTiling, Algo(8))
	}
	if FMAMath.String() != "CUDNN_FMA_MATH" || MathType(7).String() != "cudnnMathType_t(7)" {
		t.Errorf("names: %v, %v", FMAMath, MathType(7))
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := Open([]string{"/nonexistent/libcudnn.so.9", "libconvbench-no-such-cudnn.so.9"})
	var ue *cudaerr.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("Open of missing libraries: %v, want a *cudaerr.UnavailableError", err)
	}
	if !strings.Contains(err.Error(), "/nonexistent/libcudnn.so.9") || !strings.Contains(err.Error(), "libconvbench-no-such-cudnn.so.9") {
		t.Errorf("error %q does not name every library tried", err)
	}
}

// TestConv2D checks the descriptor arithmetic: strides, padding, output
// size and the refusals, without a library.
func TestConv2D(t *testing.T) {
	c := Conv2D{Batch: 3, Width: 10, Height: 7, RowStride: 13, KW: 5, KH: 3, Correlate: true, Math: FMAMath}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if row, plane := c.Strides(); row != 13 || plane != 91 {
		t.Errorf("Strides() = %d, %d; want 13, 91", row, plane)
	}
	if pw, ph := c.Pad(); pw != 2 || ph != 1 {
		t.Errorf("Pad() = %d, %d; want 2, 1", pw, ph)
	}
	if w, h := c.OutputSize(); w != 10 || h != 7 {
		t.Errorf("OutputSize() = %dx%d, want the input's 10x7", w, h)
	}
	if n := c.InputElements(); n != 2*91+6*13+10 {
		t.Errorf("InputElements() = %d, want %d", n, 2*91+6*13+10)
	}
	if w, h := (Conv2D{Batch: 1, Width: 10, Height: 7, KW: 4, KH: 2}).OutputSize(); w != 11 || h != 8 {
		t.Errorf("OutputSize() with an even filter = %dx%d, want 11x8", w, h)
	}
	for _, tc := range []struct {
		c    Conv2D
		want string
	}{
		{Conv2D{Batch: 1, Width: 10, Height: 7, KW: 4, KH: 3}, "filter 4x3"},
		{Conv2D{Batch: 0, Width: 10, Height: 7, KW: 3, KH: 3}, "0 planes"},
		{Conv2D{Batch: 1, Width: 10, Height: 7, RowStride: 9, KW: 3, KH: 3}, "row stride 9"},
		{Conv2D{Batch: 2, Width: 10, Height: 7, PlaneStride: 69, KW: 3, KH: 3}, "plane stride 69"},
		{Conv2D{Batch: 1, Width: 10, Height: 7, KW: 3, KH: 3, Math: 4}, "math type 4"},
		{Conv2D{Batch: 4, Width: 1 << 15, Height: 1 << 14, KW: 3, KH: 3}, "at most 2147483647"},
	} {
		err := tc.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Validate() = %v, want an error about %q", tc.c, err, tc.want)
		}
	}
}

// fakeLibrary builds testdata/fakecudnn.c into dir as a shim,
// libcudnn.so.9, holding part of the API and libcudnn_cnn.so.9 holding
// the rest, and returns the shim's path; it skips without a C compiler.
func fakeLibrary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("the stand-in library is built for Linux, not %s", runtime.GOOS)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the stand-in cuDNN: %v", err)
	}
	dir := t.TempDir()
	src, err := filepath.Abs("testdata/fakecudnn.c")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct{ def, name string }{{"-DSHIM", "libcudnn.so.9"}, {"-DCNN", "libcudnn_cnn.so.9"}} {
		if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", b.def, "-o", filepath.Join(dir, b.name), src).CombinedOutput(); err != nil {
			t.Skipf("cannot build the stand-in cuDNN: %v\n%s", err, out)
		}
	}
	return filepath.Join(dir, "libcudnn.so.9")
}

// TestFakeLibrary binds the stand-in cuDNN, split like cuDNN 9 into a
// shim and a convolution sub-library, and checks every call: the stream,
// the descriptors (a convolution of two padded planes computed by the
// stand-in as cuDNN defines it, against the reference), the layout of
// the search's results, the workspace size and the math type.
func TestFakeLibrary(t *testing.T) {
	path := fakeLibrary(t)
	l, err := Open([]string{filepath.Join(filepath.Dir(path), "missing.so"), path})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if l.Name != path || l.Version != 90100 {
		t.Errorf("opened %q version %d, want %q version 90100", l.Name, l.Version, path)
	}
	fake, err := dl.Open([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	cnn, err := dl.Open([]string{filepath.Join(filepath.Dir(path), "libcudnn_cnn.so.9")})
	if err != nil {
		t.Fatal(err)
	}
	var lastStream func() uintptr
	var lastWorkspace func() uint64
	var mathOf func(conv uintptr) int32
	var lastSearchWorkspace func() uint64
	if err := fake.Bind([]dl.Symbol{dl.Func(&lastStream, "fake_last_stream")}); err != nil {
		t.Fatal(err)
	}
	if err := cnn.Bind([]dl.Symbol{dl.Func(&lastWorkspace, "fake_last_workspace"), dl.Func(&mathOf, "fake_math"), dl.Func(&lastSearchWorkspace, "fake_last_search_workspace")}); err != nil {
		t.Fatal(err)
	}
	h, err := l.NewHandle()
	if err != nil {
		t.Fatal(err)
	}
	defer l.DestroyHandle(h)
	if err := l.SetStream(h, 0x5eed); err != nil || lastStream() != 0x5eed {
		t.Errorf("SetStream(0x5eed): %v; the library received %#x", err, lastStream())
	}

	// Two planes of 9x6 with rows of 11 elements, a 5x3 filter, convolved.
	r := refimpl.Expect
	g := convolve.Geometry{Width: 9, Height: 6, Channels: 2, Type: convolve.Float32, Layout: convolve.Planar, Stride: 11}
	w := []float32{1, -2, 3, 0.5, 4, -1, 2, 7, 1, -3, 0.25, 5, -6, 2, 1}
	f, _ := convolve.NewFilter("ramp", 5, 3, w)
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: convolve.Zero, Mode: convolve.Convolve}
	in, _ := convolve.NewImage(g)
	for i := range in.F32 {
		in.F32[i] = float32(i%17) - 8
	}
	cv, err := l.NewConvolution(Conv2D{Batch: 2, Width: 9, Height: 6, RowStride: 11, KW: 5, KH: 3, Correlate: false, Math: TensorOpMath})
	if err != nil {
		t.Fatal(err)
	}
	defer cv.Destroy()
	if m := mathOf(cv.conv); m != int32(TensorOpMath) {
		t.Errorf("math type set %d, want %d", m, TensorOpMath)
	}
	// The search runs on the caller's buffers with 4096 bytes of workspace:
	// the stand-in's FFT result, which needs 1 MiB, is not run.
	out := make([]float32, 2*9*6)
	ws := make([]byte, 4096)
	x, wp, yp := uintptr(unsafe.Pointer(&in.F32[0])), uintptr(unsafe.Pointer(&w[0])), uintptr(unsafe.Pointer(&out[0]))
	if _, err := cv.Find(h, x, wp, yp, 0, 77); err == nil {
		t.Error("Find with 77 bytes of workspace at address 0 succeeded")
	}
	perf, err := cv.Find(h, x, wp, yp, uintptr(unsafe.Pointer(&ws[0])), int64(len(ws)))
	if err != nil {
		t.Fatal(err)
	}
	hs, err := cv.Heuristics(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 7 || hs[5].Algo != AlgoImplicitGEMM || hs[5].Status != StatusSuccess || hs[5].Time >= 0 {
		t.Errorf("Heuristics = %v, want the stand-in's 7 results, untimed", hs)
	}
	if n := lastSearchWorkspace(); n != 4096 {
		t.Errorf("search workspace received %d bytes, want 4096", n)
	}
	if len(perf) != 7 {
		t.Fatalf("Find returned %d results, want the stand-in's 7", len(perf))
	}
	if perf[0].Algo != AlgoFFT || perf[0].Status == StatusSuccess {
		t.Errorf("result 0 = %v, want FFT not run (it needs more than the 4096 bytes given)", perf[0])
	}
	if perf[1].Algo != AlgoWinograd || perf[1].Status != StatusSuccess {
		t.Errorf("result 1 = %v, want WINOGRAD run (it needs the 4096 bytes given)", perf[1])
	}
	want := AlgoPerf{Algo: AlgoImplicitPrecompGEMM, Status: StatusSuccess, Time: 0.04, Memory: 2048, Deterministic: 1, MathType: TensorOpMath}
	if perf[3] != want {
		t.Errorf("result 3 = %v, want %v", perf[3], want)
	}
	if perf[6].Status != StatusNotSupported || perf[6].Algo != AlgoGEMM {
		t.Errorf("result 6 = %v, want GEMM not supported", perf[6])
	}
	if n, err := cv.WorkspaceSize(h, AlgoWinograd); err != nil || n != 6001 {
		t.Errorf("WorkspaceSize(WINOGRAD) = %d, %v; want the stand-in's 6001", n, err)
	}
	for i := range out {
		out[i] = 1e30 // beta is 0: the old values must not show
	}
	if err := cv.Forward(h, AlgoImplicitGEMM, uintptr(unsafe.Pointer(&in.F32[0])), uintptr(unsafe.Pointer(&w[0])), 0, 77, uintptr(unsafe.Pointer(&out[0]))); err != nil {
		t.Fatal(err)
	}
	if n := lastWorkspace(); n != 77 {
		t.Errorf("workspace size received %d, want 77", n)
	}
	got := &convolve.Image{Geometry: p.OutputGeometry(), F32: out}
	ref, tol, err := r(p, in)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := convolve.Compare(got, ref, tol); err != nil || !m.OK() {
		t.Errorf("the stand-in's convolution through the descriptors differs from the reference: %v %v", m, err)
	}
	var bad *Error
	if err := cv.Forward(h, AlgoImplicitGEMM, 0, 0, 0, 0, 0); !errors.As(err, &bad) || bad.Status != StatusBadParamNullPointer || bad.API != "cudnnConvolutionForward" {
		t.Errorf("Forward on null pointers: %v, want an *Error with CUDNN_STATUS_BAD_PARAM_NULL_POINTER", err)
	}
	if err := cv.Destroy(); err != nil {
		t.Errorf("Destroy: %v", err)
	}
	if err := cv.Forward(h, AlgoImplicitGEMM, 1, 1, 0, 0, 1); err == nil {
		t.Error("Forward after Destroy succeeded")
	}
}

// TestOpenRefusesOldVersion: a library that reports a cuDNN older than 9
// is unavailable, with the version in the reason.
func TestOpenRefusesOldVersion(t *testing.T) {
	path := fakeLibrary(t)
	fake, err := dl.Open([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var setVersion func(v int32)
	if err := fake.Bind([]dl.Symbol{dl.Func(&setVersion, "fake_set_version")}); err != nil {
		t.Fatal(err)
	}
	setVersion(8907)
	defer setVersion(90100)
	_, err = Open([]string{path})
	var ue *cudaerr.UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "8907") {
		t.Errorf("Open of a cuDNN 8.9.7: %v, want an UnavailableError naming the version", err)
	}
}

// TestOpenNamesMissingSymbol: a shim without its convolution sub-library
// is unavailable, naming the entry point it lacks.
func TestOpenNamesMissingSymbol(t *testing.T) {
	path := fakeLibrary(t)
	if err := os.Remove(filepath.Join(filepath.Dir(path), "libcudnn_cnn.so.9")); err != nil {
		t.Fatal(err)
	}
	_, err := Open([]string{path})
	var ue *cudaerr.UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "cudnnCreateFilterDescriptor") {
		t.Errorf("Open without libcudnn_cnn.so.9: %v, want an UnavailableError naming cudnnCreateFilterDescriptor", err)
	}
}

// OutputSize is the size cuDNN gives the output of the descriptors:
// W + 2*(KW/2) - KW + 1 by H + 2*(KH/2) - KH + 1, which is W x H for odd
// filter sides. An even side would make it one larger, with its first
// W (or H) outputs anchored at KW/2 as in the reference; Validate refuses
// even sides instead.
func (c Conv2D) OutputSize() (w, h int) {
	pw, ph := c.Pad()
	return c.Width + 2*pw - c.KW + 1, c.Height + 2*ph - c.KH + 1
}

// DestroyHandle releases h (cudnnDestroy synchronises the device first).
func (l *Library) DestroyHandle(h Handle) error {
	return l.check("cudnnDestroy", l.destroy(uintptr(h)))
}
