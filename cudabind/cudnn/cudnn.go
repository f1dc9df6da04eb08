// Package cudnn binds the part of NVIDIA cuDNN 9 that a 2-D convolution
// needs: the handle and its stream, the version, status strings, NCHW
// float tensor, filter and convolution descriptors, the math type, the
// forward algorithm search, the workspace size and the forward
// convolution. The library is loaded at run time and bound with package dl.
//
// [Load] opens the library once per process: CONVBENCH_CUDNN first, then
// libcudnn.so.9 and libcudnn.so ([dl.CUDNN]). Each entry point is bound
// from the shim when it exports it, else from the first of its
// sub-libraries (libcudnn_cnn, _ops, _graph) that does. A missing library
// or entry point, or a cuDNN older than 9, is a *cudaerr.UnavailableError;
// a failed call is an [*Error] naming the function and its status.
//
// cuDNN uses the primary context current on the calling thread, so every
// call must come from the device goroutine of package cudabind. The
// descriptors describe one convolution as [Conv2D]: single-channel float32
// planes at any stride, packed output, zero padding of KW/2 and KH/2, unit
// stride and dilation; [Conv2D.Validate] checks it without a library.
package cudnn

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

// subLibraries are the cuDNN 9 sub-libraries an entry point the shim does
// not export is looked up in, in order.
var subLibraries = []string{"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9"}

// MathType is a cudnnMathType_t value.
type MathType int32

const (
	// DefaultMath lets cuDNN choose; on Ampere and newer GPUs that
	// includes TF32 tensor cores for float32 data.
	DefaultMath MathType = 0
	// TensorOpMath allows tensor cores: TF32 for float32 data.
	TensorOpMath MathType = 1
	// TensorOpMathAllowConversion also allows float32 data to be
	// converted to half precision.
	TensorOpMathAllowConversion MathType = 2
	// FMAMath restricts cuDNN to kernels that use float32 fused
	// multiply-adds: no tensor cores, no reduced precision.
	FMAMath MathType = 3
)

var mathTypeNames = map[MathType]string{
	DefaultMath: "CUDNN_DEFAULT_MATH", TensorOpMath: "CUDNN_TENSOR_OP_MATH",
	TensorOpMathAllowConversion: "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION", FMAMath: "CUDNN_FMA_MATH",
}

func (m MathType) String() string { return dl.Name(mathTypeNames, m, "cudnnMathType_t(%d)") }

// Algo is a cudnnConvolutionFwdAlgo_t value.
type Algo int32

// The forward algorithms of cuDNN 9.
const (
	AlgoImplicitGEMM        Algo = 0
	AlgoImplicitPrecompGEMM Algo = 1
	AlgoGEMM                Algo = 2
	AlgoDirect              Algo = 3
	AlgoFFT                 Algo = 4
	AlgoFFTTiling           Algo = 5
	AlgoWinograd            Algo = 6
	AlgoWinogradNonfused    Algo = 7
	// AlgoCount is the number of forward algorithms.
	AlgoCount = 8
)

var algoNames = [AlgoCount]string{"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"}

// String is the algorithm's name without the CUDNN_CONVOLUTION_FWD_ALGO_
// prefix ("IMPLICIT_PRECOMP_GEMM").
func (a Algo) String() string {
	if a >= 0 && int(a) < AlgoCount {
		return algoNames[a]
	}
	return fmt.Sprintf("cudnnConvolutionFwdAlgo_t(%d)", int32(a))
}

// DirectSum reports whether the algorithm computes each output as a sum
// of float32 (or, under tensor-op math, TF32) products of the input and
// the weights, in some order: the GEMM forms and DIRECT. FFT, FFT_TILING
// and the Winograd forms transform the input and the filter first, so
// their rounding error is not that of a direct sum.
func (a Algo) DirectSum() bool {
	switch a {
	case AlgoImplicitGEMM, AlgoImplicitPrecompGEMM, AlgoGEMM, AlgoDirect:
		return true
	}
	return false
}

// AlgoPerf is cudnnConvolutionFwdAlgoPerf_t: one algorithm's result of
// the forward algorithm search, laid out as the C compiler lays it out on
// 64-bit Linux (48 bytes).
type AlgoPerf struct {
	Algo   Algo
	Status Status
	// Time is the measured time in milliseconds.
	Time float32
	_    int32
	// Memory is the workspace the algorithm needs, in bytes.
	Memory uint64
	// Deterministic is 1 (CUDNN_DETERMINISTIC) when repeated runs give
	// the same bits, 0 otherwise.
	Deterministic int32
	// MathType is the math the algorithm ran with.
	MathType MathType
	_        [3]int32
	_        int32
}

// The C layout must be the Go one.
var _ = [1]struct{}{}[unsafe.Sizeof(AlgoPerf{})-48]

func (p AlgoPerf) String() string {
	return fmt.Sprintf("%v (%v, %.4g ms, %d bytes of workspace, deterministic=%d, %v)",
		p.Algo, p.MathType, p.Time, p.Memory, p.Deterministic, p.Status)
}

// C enumeration values the descriptors take.
const (
	dataFloat        = 0 // CUDNN_DATA_FLOAT
	tensorNCHW       = 0 // CUDNN_TENSOR_NCHW
	modeConvolution  = 0 // CUDNN_CONVOLUTION
	modeCorrelation  = 1 // CUDNN_CROSS_CORRELATION
	cudnnMajorNeeded = 9
)

// Library is a loaded cuDNN 9.
type Library struct {
	// Name is the name the shim was opened by, one of dl.CUDNN's.
	Name string
	// Version is cudnnGetVersion(): major*10000 + minor*100 + patch.
	Version int

	getVersion     func() uintptr
	getErrorString func(s int32) *byte
	create         func(h *uintptr) int32
	destroy        func(h uintptr) int32
	setStream      func(h, stream uintptr) int32

	createTensor  func(d *uintptr) int32
	setTensor4dEx func(d uintptr, dt, n, c, h, w, ns, cs, hs, ws int32) int32
	destroyTensor func(d uintptr) int32
	createFilter  func(d *uintptr) int32
	setFilter4d   func(d uintptr, dt, format, k, c, h, w int32) int32
	destroyFilter func(d uintptr) int32
	createConv    func(d *uintptr) int32
	setConv2d     func(d uintptr, padH, padW, u, v, dilH, dilW, mode, computeType int32) int32
	setMathType   func(d uintptr, m int32) int32
	outputDim     func(conv, x, w uintptr, n, c, h, wd *int32) int32
	destroyConv   func(d uintptr) int32
	findForwardEx func(h, x, xp, w, wp, conv, y, yp uintptr, requested int32, returned *int32, perf *AlgoPerf, ws, wsBytes uintptr) int32
	getForwardV7  func(h, x, w, conv, y uintptr, requested int32, returned *int32, perf *AlgoPerf) int32
	workspaceSize func(h, x, w, conv, y uintptr, algo int32, size *uint64) int32
	// forward is cudnnConvolutionForward's address, called with dl.Call:
	// it runs inside timed loops.
	forward uintptr
}

// Load opens cuDNN from dl.CUDNN once per process and returns it, or
// the *cudaerr.UnavailableError saying why it cannot be used.
func Load() (*Library, error) { return load() }

var load = sync.OnceValues(func() (*Library, error) { return Open(dl.CUDNN.List()) })

// Open opens the first of names that loads, binds every entry point (from
// the shim, or else from its sub-libraries) and checks that it is cuDNN 9
// or newer. Every failure is a *cudaerr.UnavailableError naming what was
// tried.
func Open(names []string) (*Library, error) {
	main, err := dl.Open(names)
	if err != nil {
		return nil, &cudaerr.UnavailableError{Lib: "libcudnn", Reason: "cannot be opened: " + err.Error()}
	}
	l := &Library{Name: main.Name}
	f := dl.Func
	table := []dl.Symbol{
		f(&l.getVersion, "cudnnGetVersion"),
		f(&l.getErrorString, "cudnnGetErrorString"),
		f(&l.create, "cudnnCreate"),
		f(&l.destroy, "cudnnDestroy"),
		f(&l.setStream, "cudnnSetStream"),
		f(&l.createTensor, "cudnnCreateTensorDescriptor"),
		f(&l.setTensor4dEx, "cudnnSetTensor4dDescriptorEx"),
		f(&l.destroyTensor, "cudnnDestroyTensorDescriptor"),
		f(&l.createFilter, "cudnnCreateFilterDescriptor"),
		f(&l.setFilter4d, "cudnnSetFilter4dDescriptor"),
		f(&l.destroyFilter, "cudnnDestroyFilterDescriptor"),
		f(&l.createConv, "cudnnCreateConvolutionDescriptor"),
		f(&l.setConv2d, "cudnnSetConvolution2dDescriptor"),
		f(&l.setMathType, "cudnnSetConvolutionMathType"),
		f(&l.outputDim, "cudnnGetConvolution2dForwardOutputDim"),
		f(&l.destroyConv, "cudnnDestroyConvolutionDescriptor"),
		f(&l.findForwardEx, "cudnnFindConvolutionForwardAlgorithmEx"),
		f(&l.getForwardV7, "cudnnGetConvolutionForwardAlgorithm_v7"),
		f(&l.workspaceSize, "cudnnGetConvolutionForwardWorkspaceSize"),
		dl.Address(&l.forward, "cudnnConvolutionForward"),
	}
	if err := bindFrom(main, subLibraryNames(main.Name), table); err != nil {
		return nil, &cudaerr.UnavailableError{Lib: "libcudnn", Reason: main.Name + ": " + err.Error()}
	}
	l.Version = int(l.getVersion())
	if l.Version/10000 < cudnnMajorNeeded {
		return nil, &cudaerr.UnavailableError{Lib: "libcudnn",
			Reason: fmt.Sprintf("%s is cuDNN version %d; the binding needs cuDNN %d (its status codes and library layout)", main.Name, l.Version, cudnnMajorNeeded)}
	}
	return l, nil
}

// subLibraryNames are the sub-libraries of the shim opened as name: next
// to it when name is a path, else by soname.
func subLibraryNames(name string) []string {
	if !strings.Contains(name, "/") {
		return subLibraries
	}
	dir := filepath.Dir(name)
	out := make([]string, len(subLibraries))
	for i, s := range subLibraries {
		out[i] = filepath.Join(dir, s)
	}
	return out
}

// bindFrom binds each symbol of table from main when main exports it,
// else from the first of the libraries named by subs that does (opened
// only when needed). The error names each symbol found nowhere.
func bindFrom(main *dl.Library, subs []string, table []dl.Symbol) error {
	var opened []*dl.Library
	var openErrs []string
	tried := false
	for _, s := range table {
		lib := main
		if _, _, ok := main.Lookup(s.Names...); !ok {
			if !tried {
				tried = true
				for _, n := range subs {
					if sl, err := dl.Open([]string{n}); err == nil {
						opened = append(opened, sl)
					} else {
						openErrs = append(openErrs, err.Error())
					}
				}
			}
			lib = nil
			for _, sl := range opened {
				if _, _, ok := sl.Lookup(s.Names...); ok {
					lib = sl
					break
				}
			}
			if lib == nil {
				msg := fmt.Sprintf("no library exports %s (looked in %s and %s)", strings.Join(s.Names, " or "), main.Name, strings.Join(subs, ", "))
				if len(openErrs) > 0 {
					msg += "; " + strings.Join(openErrs, "; ")
				}
				return fmt.Errorf("%s", msg)
			}
		}
		if err := lib.Bind([]dl.Symbol{s}); err != nil {
			return err
		}
	}
	return nil
}

// check turns a status into nil or an *Error for api.
func (l *Library) check(api string, s int32) error {
	if s == 0 {
		return nil
	}
	e := &Error{API: api, Status: Status(s)}
	if l.getErrorString != nil {
		e.Text = dl.GoString(l.getErrorString(s))
	}
	return e
}

// Handle is a cudnnHandle_t.
type Handle uintptr

// NewHandle creates a cuDNN handle on the device whose context is current.
func (l *Library) NewHandle() (Handle, error) {
	var h uintptr
	if err := l.check("cudnnCreate", l.create(&h)); err != nil {
		return 0, err
	}
	return Handle(h), nil
}

// SetStream makes the calls on h run on stream (a CUstream).
func (l *Library) SetStream(h Handle, stream uintptr) error {
	return l.check("cudnnSetStream", l.setStream(uintptr(h), stream))
}
