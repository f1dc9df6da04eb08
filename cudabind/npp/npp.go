// Package npp binds NVIDIA NPP's image filter (libnppif), loaded at run
// time and bound with package dl (no cgo).
//
// [Load] opens the library once per process: the path in
// CONVBENCH_LIBNPPIF, else libnppif.so.13, .12, .11 and libnppif.so
// ([dl.NPPIF]). Only nppiFilter_32f_C1R_Ctx is bound ([Lib.Filter32f]);
// its NppStreamContext is passed by value, which the binding does on
// amd64 and arm64. A missing library or symbol is a
// *cudaerr.UnavailableError.
package npp

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/dl"
)

// StreamContext is NPP's NppStreamContext (nppdefs.h, NPP 10.1 and
// later), laid out as the C compiler lays it out on 64-bit Linux: 48
// bytes, 8-byte aligned. It is passed by value.
type StreamContext struct {
	HStream                            uintptr // cudaStream_t
	NCudaDeviceID                      int32
	NMultiProcessorCount               int32
	NMaxThreadsPerMultiProcessor       int32
	NMaxThreadsPerBlock                int32
	NSharedMemPerBlock                 uint64 // size_t
	NCudaDevAttrComputeCapabilityMajor int32
	NCudaDevAttrComputeCapabilityMinor int32
	NStreamFlags                       uint32
	NReserved0                         int32
}

// The layout passed by value must be the C one.
var _ = [1]struct{}{}[unsafe.Sizeof(StreamContext{})-48]

// Size is NppiSize and NppiPoint (width and height, or x and y): two
// ints, 8 bytes, passed by value.
type Size struct{ A, B int32 }

// Lib is the loaded libnppif with the one entry point the npp variants
// call, bound as a typed Go function value (package dl); purego passes
// the structs by value as the platform's C calling convention does.
type Lib struct {
	name string // the name that loaded
	// nppiFilter_32f_C1R_Ctx(pSrc, nSrcStep, pDst, nDstStep, oSizeROI,
	// pKernel, oKernelSize, oAnchor, nppStreamCtx): steps are in bytes,
	// pKernel is a device pointer; it returns an NppStatus (0 success,
	// negative error, positive warning).
	filter func(src uintptr, srcStep int32, dst uintptr, dstStep int32, roi Size,
		kernel uintptr, ksize, anchor Size, ctx StreamContext) int32
}

// Load opens libnppif once. A missing library, a missing symbol or a
// platform this binding cannot call is a *cudaerr.UnavailableError.
func Load() (*Lib, error) { return load() }

var load = sync.OnceValues(func() (*Lib, error) { return Open(dl.NPPIF.List()) })

// Open tries names in order and binds nppiFilter_32f_C1R_Ctx from the
// first library that has it.
func Open(names []string) (*Lib, error) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		// NppStreamContext (48 bytes) is passed by value, which purego
		// implements for amd64 and arm64 only.
		return nil, &cudaerr.UnavailableError{Lib: "libnppif",
			Reason: fmt.Sprintf("nppiFilter_32f_C1R_Ctx takes NppStreamContext by value, which the binding can pass on amd64 and arm64 only, not %s", runtime.GOARCH)}
	}
	var reasons []string
	for _, n := range names {
		lib, err := dl.Open([]string{n})
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		l := &Lib{name: n}
		if err := lib.Bind([]dl.Symbol{dl.Func(&l.filter, "nppiFilter_32f_C1R_Ctx")}); err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		return l, nil
	}
	return nil, &cudaerr.UnavailableError{Lib: "libnppif", Reason: "tried " + strings.Join(reasons, "; ")}
}

// Name returns the library name that loaded.
func (l *Lib) Name() string { return l.name }

// Filter32f calls nppiFilter_32f_C1R_Ctx: a single-channel float32
// filter of the roi of src into dst, steps in bytes, the kernel a device
// pointer of ksize taps anchored at anchor, on the context's stream.
func (l *Lib) Filter32f(src uintptr, srcStep int32, dst uintptr, dstStep int32, roi Size,
	kernel uintptr, ksize, anchor Size, ctx *StreamContext) Status {
	return Status(l.filter(src, srcStep, dst, dstStep, roi, kernel, ksize, anchor, *ctx))
}

// statusNames are the NppStatus codes (nppdefs.h) the filter call can
// plausibly return.
var statusNames = map[Status]string{
	0:     "NPP_NO_ERROR",
	1:     "NPP_NO_OPERATION_WARNING",
	10000: "NPP_MISALIGNED_DST_ROI_WARNING",
	-2:    "NPP_ERROR",
	-3:    "NPP_NOT_IMPLEMENTED_ERROR",
	-4:    "NPP_NO_MEMORY_ERROR",
	-5:    "NPP_BAD_ARGUMENT_ERROR",
	-6:    "NPP_SIZE_ERROR",
	-8:    "NPP_NULL_POINTER_ERROR",
	-9:    "NPP_MEMORY_ALLOCATION_ERR",
	-14:   "NPP_STEP_ERROR",
	-33:   "NPP_MASK_SIZE_ERROR",
	-34:   "NPP_ANCHOR_ERROR",
	-37:   "NPP_STRIDE_ERROR",
	-1000: "NPP_CUDA_KERNEL_EXECUTION_ERROR",
	-1002: "NPP_ALIGNMENT_ERROR",
	-9999: "NPP_NOT_SUPPORTED_MODE_ERROR",
}

// Status is an NppStatus: 0 success, negative values errors, positive
// ones warnings.
type Status int32

// String names the status: its nppdefs.h name and value where known.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return fmt.Sprintf("%s (%d)", n, s)
	}
	if s > 0 {
		return fmt.Sprintf("NPP warning %d", s)
	}
	return fmt.Sprintf("NPP error %d", s)
}
