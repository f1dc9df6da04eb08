// Package cufft binds NVIDIA's cuFFT library, opened at run time with
// package dl, for the transforms of the gpu-fft variant.
//
// [Default] loads [dl.CUFFT] once per process: CONVBENCH_LIBCUFFT, else
// libcufft.so.12, .11, .10 and libcufft.so. The calls made inside timed
// loops (SetStream, ExecR2C, ExecC2R) are bound by address. A missing
// library or symbol is a *cudaerr.UnavailableError; a failed call is an
// [*Error] naming the function and its cufftResult ([Result]).
//
// cuFFT runs in the context current on the calling thread, so its calls
// belong on the device's executor goroutine (cudabind.Device.Do). A plan
// with automatic allocation off leaves its work area to the caller
// ([Library.SetWorkArea]), and one bound to a stream ([Library.SetStream])
// enqueues its transforms there, so that they can be captured into a CUDA
// graph.
package cufft

import (
	"fmt"
	"strings"
	"sync"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

// Result is a cufftResult.
type Result int32

// The cufftResult values (cufft.h).
const (
	Success                 Result = 0
	InvalidPlan             Result = 1
	AllocFailed             Result = 2
	InvalidType             Result = 3
	InvalidValue            Result = 4
	InternalError           Result = 5
	ExecFailed              Result = 6
	SetupFailed             Result = 7
	InvalidSize             Result = 8
	UnalignedData           Result = 9
	IncompleteParameterList Result = 10
	InvalidDevice           Result = 11
	ParseError              Result = 12
	NoWorkspace             Result = 13
	NotImplemented          Result = 14
	LicenseError            Result = 15
	NotSupported            Result = 16
)

var resultNames = map[Result]string{
	Success:                 "CUFFT_SUCCESS",
	InvalidPlan:             "CUFFT_INVALID_PLAN",
	AllocFailed:             "CUFFT_ALLOC_FAILED",
	InvalidType:             "CUFFT_INVALID_TYPE",
	InvalidValue:            "CUFFT_INVALID_VALUE",
	InternalError:           "CUFFT_INTERNAL_ERROR",
	ExecFailed:              "CUFFT_EXEC_FAILED",
	SetupFailed:             "CUFFT_SETUP_FAILED",
	InvalidSize:             "CUFFT_INVALID_SIZE",
	UnalignedData:           "CUFFT_UNALIGNED_DATA",
	IncompleteParameterList: "CUFFT_INCOMPLETE_PARAMETER_LIST",
	InvalidDevice:           "CUFFT_INVALID_DEVICE",
	ParseError:              "CUFFT_PARSE_ERROR",
	NoWorkspace:             "CUFFT_NO_WORKSPACE",
	NotImplemented:          "CUFFT_NOT_IMPLEMENTED",
	LicenseError:            "CUFFT_LICENSE_ERROR",
	NotSupported:            "CUFFT_NOT_SUPPORTED",
}

// String returns the C name of r with its value, "CUFFT_EXEC_FAILED (6)",
// or "cufftResult(N)" for a value cufft.h does not list.
func (r Result) String() string {
	if n, ok := resultNames[r]; ok {
		return fmt.Sprintf("%s (%d)", n, int32(r))
	}
	return fmt.Sprintf("cufftResult(%d)", int32(r))
}

// Error is a failed cuFFT call: the function and its result.
type Error struct {
	API    string // "cufftExecR2C"
	Result Result
}

func (e *Error) Error() string { return fmt.Sprintf("cufft: %s: %v", e.API, e.Result) }

// Is makes errors.Is(err, &Error{Result: r}) match any failed call with
// result r (an empty API in target matches any function).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Result == e.Result && (t.API == "" || t.API == e.API)
}

// check turns a result into an error.
func check(api string, r int32) error {
	if r == int32(Success) {
		return nil
	}
	return &Error{API: api, Result: Result(r)}
}

// Type is a cufftType: the kind of transform a plan computes.
type Type int32

// The transform types the binding uses (cufft.h).
const (
	R2C Type = 0x2a // real to complex, forward
	C2R Type = 0x2c // complex to real, inverse
	C2C Type = 0x29 // complex to complex
)

var typeNames = map[Type]string{R2C: "CUFFT_R2C", C2R: "CUFFT_C2R", C2C: "CUFFT_C2C"}

func (t Type) String() string { return dl.Name(typeNames, t, "cufftType(%#x)") }

// Handle is a cufftHandle.
type Handle int32

// Library is a loaded cuFFT: its entry points bound as typed Go function
// values, and the addresses of the three called once per transform.
type Library struct {
	name    string
	version int

	create            func(plan *Handle) int32
	destroy           func(plan Handle) int32
	getVersion        func(v *int32) int32
	setAutoAllocation func(plan Handle, auto int32) int32
	makePlanMany64    func(plan Handle, rank int32, n, inembed *int64, istride, idist int64,
		onembed *int64, ostride, odist int64, typ Type, batch int64, workSize *uint64) int32
	setWorkArea func(plan Handle, area uintptr) int32

	setStream, execR2C, execC2R uintptr
}

// Load opens the first of names that loads and has every entry point, and
// reads its version. Each failure is a *cudaerr.UnavailableError with Lib
// "libcufft" naming every library tried and why it was passed over.
func Load(names []string) (*Library, error) {
	if len(names) == 0 {
		return nil, &cudaerr.UnavailableError{Lib: "libcufft", Reason: "no library names to try"}
	}
	var reasons []string
	for _, n := range names {
		l, err := load(n)
		if err == nil {
			return l, nil
		}
		reasons = append(reasons, err.Error())
	}
	return nil, &cudaerr.UnavailableError{Lib: "libcufft", Reason: "tried " + strings.Join(reasons, "; ")}
}

// table is the binding table of l.
func (l *Library) table() []dl.Symbol {
	f, a := dl.Func, dl.Address
	return []dl.Symbol{
		f(&l.create, "cufftCreate"),
		f(&l.destroy, "cufftDestroy"),
		f(&l.getVersion, "cufftGetVersion"),
		f(&l.setAutoAllocation, "cufftSetAutoAllocation"),
		f(&l.makePlanMany64, "cufftMakePlanMany64"),
		f(&l.setWorkArea, "cufftSetWorkArea"),
		a(&l.setStream, "cufftSetStream"),
		a(&l.execR2C, "cufftExecR2C"),
		a(&l.execC2R, "cufftExecC2R"),
	}
}

func load(name string) (*Library, error) {
	lib, err := dl.Open([]string{name})
	if err != nil {
		return nil, err
	}
	l := &Library{name: name}
	if err := lib.Bind(l.table()); err != nil {
		return nil, err
	}
	var v int32
	if r := l.getVersion(&v); r != int32(Success) {
		return nil, fmt.Errorf("%s: %w", name, check("cufftGetVersion", r))
	}
	l.version = int(v)
	return l, nil
}

// Default loads cuFFT from dl.CUFFT on first use and returns it, or the
// cached *cudaerr.UnavailableError.
func Default() (*Library, error) { return loadDefault() }

var loadDefault = sync.OnceValues(func() (*Library, error) { return Load(dl.CUFFT.List()) })

// Name returns the name the library was opened by.
func (l *Library) Name() string { return l.name }

// Version returns cufftGetVersion's value: major*1000 + minor*100 +
// patch (11203 for cuFFT 11.2.3).
func (l *Library) Version() int { return l.version }

// String names the library and its version: "libcufft.so.11 (cuFFT 11.2.3)".
func (l *Library) String() string {
	v := l.version
	return fmt.Sprintf("%s (cuFFT %d.%d.%d)", l.name, v/1000, v%1000/100, v%100)
}

// Create makes an empty plan handle (cufftCreate).
func (l *Library) Create() (Handle, error) {
	var h Handle
	if err := check("cufftCreate", l.create(&h)); err != nil {
		return 0, err
	}
	return h, nil
}

// Destroy releases a plan and the device memory cuFFT allocated for it
// (cufftDestroy).
func (l *Library) Destroy(h Handle) error { return check("cufftDestroy", l.destroy(h)) }

// SetAutoAllocation says whether the next MakePlanMany64 of h allocates
// the plan's work area itself (the default) or leaves it to SetWorkArea.
func (l *Library) SetAutoAllocation(h Handle, auto bool) error {
	a := int32(0)
	if auto {
		a = 1
	}
	return check("cufftSetAutoAllocation", l.setAutoAllocation(h, a))
}

// MakePlanMany64 makes h a plan of batch transforms of type typ, each of
// the dimensions dims (slowest first: {rows, columns} for an image), in
// cuFFT's basic data layout: batches contiguous, a real batch of
// dims[0]*...*dims[r-1] elements, a complex one of
// dims[0]*...*(dims[r-1]/2+1) (cufftMakePlanMany64 with null embeds). It
// returns the size in bytes of the work area the plan needs.
func (l *Library) MakePlanMany64(h Handle, dims []int64, typ Type, batch int64) (workBytes int64, err error) {
	if len(dims) < 1 || len(dims) > 3 {
		return 0, fmt.Errorf("cufft: MakePlanMany64: %d dimensions, want 1 to 3", len(dims))
	}
	for _, d := range dims {
		if d < 1 {
			return 0, fmt.Errorf("cufft: MakePlanMany64: dimensions %v: each must be at least 1", dims)
		}
	}
	if batch < 1 {
		return 0, fmt.Errorf("cufft: MakePlanMany64: batch %d, want at least 1", batch)
	}
	n := append([]int64(nil), dims...)
	var ws uint64
	r := l.makePlanMany64(h, int32(len(n)), &n[0], nil, 1, 0, nil, 1, 0, typ, batch, &ws)
	if err := check("cufftMakePlanMany64", r); err != nil {
		return 0, fmt.Errorf("%w (%v %v, batch %d)", err, typ, dims, batch)
	}
	return int64(ws), nil
}

// SetWorkArea hands h the device memory at area (at least the work size
// MakePlanMany64 returned) for its transforms.
func (l *Library) SetWorkArea(h Handle, area uintptr) error {
	return check("cufftSetWorkArea", l.setWorkArea(h, area))
}

// SetStream makes h enqueue its transforms on stream (a CUstream, which
// is a cudaStream_t).
func (l *Library) SetStream(h Handle, stream uintptr) error {
	return check("cufftSetStream", dl.Call(l.setStream, uintptr(h), stream))
}

// ExecR2C enqueues h's forward real-to-complex transform of the device
// buffer in into out.
func (l *Library) ExecR2C(h Handle, in, out uintptr) error {
	return check("cufftExecR2C", dl.Call(l.execR2C, uintptr(h), in, out))
}

// ExecC2R enqueues h's inverse complex-to-real transform of in into out
// (unnormalised: the result is the number of points times the inverse).
// cuFFT may overwrite in.
func (l *Library) ExecC2R(h Handle, in, out uintptr) error {
	return check("cufftExecC2R", dl.Call(l.execC2R, uintptr(h), in, out))
}
