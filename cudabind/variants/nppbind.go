package variants

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/convbench/convbench/cudabind"
)

// EnvLibNPPIF names an NPP image-filtering library (a path or a soname)
// tried instead of the built-in names.
const EnvLibNPPIF = "CONVBENCH_LIBNPPIF"

// defaultNPPIFNames is the built-in search order, newest first.
var defaultNPPIFNames = []string{"libnppif.so.13", "libnppif.so.12", "libnppif.so.11", "libnppif.so"}

// NPPIFSearchList returns the names tried for libnppif: the value of
// CONVBENCH_LIBNPPIF when set, otherwise the built-in names.
func NPPIFSearchList() []string {
	if p := strings.TrimSpace(os.Getenv(EnvLibNPPIF)); p != "" {
		return []string{p}
	}
	return append([]string(nil), defaultNPPIFNames...)
}

// nppStreamContext is NPP's NppStreamContext (nppdefs.h, NPP 10.1 and
// later), laid out as the C compiler lays it out on 64-bit Linux: 48
// bytes, 8-byte aligned.
type nppStreamContext struct {
	hStream                            uintptr // cudaStream_t
	nCudaDeviceID                      int32
	nMultiProcessorCount               int32
	nMaxThreadsPerMultiProcessor       int32
	nMaxThreadsPerBlock                int32
	nSharedMemPerBlock                 uint64 // size_t
	nCudaDevAttrComputeCapabilityMajor int32
	nCudaDevAttrComputeCapabilityMinor int32
	nStreamFlags                       uint32
	nReserved0                         int32
}

// The layout the call spills onto the stack must be the C one.
var _ = [1]struct{}{}[unsafe.Sizeof(nppStreamContext{})-48]

// nppSize is NppiSize and NppiPoint: two ints, 8 bytes.
type nppSize struct{ a, b int32 }

// word packs the 8-byte struct into one integer register (the System V
// classification of a struct of two ints: INTEGER, first field low).
func (s nppSize) word() uintptr { return uintptr(uint32(s.a)) | uintptr(uint32(s.b))<<32 }

// words returns the context as the six eightbytes the System V AMD64 ABI
// copies onto the stack for a struct argument larger than 16 bytes.
func (c *nppStreamContext) words() [6]uintptr {
	return *(*[6]uintptr)(unsafe.Pointer(c))
}

// nppLib is the loaded libnppif with the one entry point the npp variant
// calls.
type nppLib struct {
	name   string  // the name that loaded
	filter uintptr // nppiFilter_32f_C1R_Ctx
}

var (
	nppOnce sync.Once
	nppLoad *nppLib
	nppErr  error
)

// loadNPP opens libnppif once. A missing library, a missing symbol or an
// ABI this binding cannot call is a *cudabind.UnavailableError.
func loadNPP() (*nppLib, error) {
	nppOnce.Do(func() { nppLoad, nppErr = openNPP(NPPIFSearchList()) })
	return nppLoad, nppErr
}

// openNPP tries names in order and resolves nppiFilter_32f_C1R_Ctx.
func openNPP(names []string) (*nppLib, error) {
	if runtime.GOARCH != "amd64" {
		// NppStreamContext (48 bytes) is passed by value; the call below
		// spills it as the System V AMD64 ABI does and is not written for
		// any other calling convention.
		return nil, &cudabind.UnavailableError{Lib: "libnppif",
			Reason: fmt.Sprintf("nppiFilter_32f_C1R_Ctx takes NppStreamContext by value; the binding implements that call for amd64 only, not %s", runtime.GOARCH)}
	}
	var reasons []string
	for _, n := range names {
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		sym, err := purego.Dlsym(h, "nppiFilter_32f_C1R_Ctx")
		if err != nil || sym == 0 {
			reasons = append(reasons, fmt.Sprintf("%s: no nppiFilter_32f_C1R_Ctx: %v", n, err))
			continue
		}
		return &nppLib{name: n, filter: sym}, nil
	}
	return nil, &cudabind.UnavailableError{Lib: "libnppif", Reason: "tried " + strings.Join(reasons, "; ")}
}

// filter32f calls nppiFilter_32f_C1R_Ctx(pSrc, nSrcStep, pDst, nDstStep,
// oSizeROI, pKernel, oKernelSize, oAnchor, nppStreamCtx) and returns its
// NppStatus (0 success, negative error, positive warning). Steps are in
// bytes; pKernel is a device pointer. By the System V AMD64 ABI the six
// first arguments (pointers, ints and the 8-byte NppiSize ROI) travel in
// registers, and the rest on the stack in order: oKernelSize and oAnchor
// one eightbyte each, then the 48-byte context as six eightbytes.
func (l *nppLib) filter32f(src uintptr, srcStep int32, dst uintptr, dstStep int32, roi nppSize,
	kernel uintptr, ksize, anchor nppSize, ctx *nppStreamContext) int32 {
	w := ctx.words()
	r, _, _ := purego.SyscallN(l.filter,
		src, uintptr(uint32(srcStep)), dst, uintptr(uint32(dstStep)), roi.word(), kernel,
		ksize.word(), anchor.word(),
		w[0], w[1], w[2], w[3], w[4], w[5])
	return int32(uint32(r))
}

// nppStatusNames are the NppStatus codes (nppdefs.h) the filter call can
// plausibly return.
var nppStatusNames = map[int32]string{
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

// nppStatusName names an NppStatus: negative values are errors, positive
// ones warnings.
func nppStatusName(s int32) string {
	if n, ok := nppStatusNames[s]; ok {
		return fmt.Sprintf("%s (%d)", n, s)
	}
	if s > 0 {
		return fmt.Sprintf("NPP warning %d", s)
	}
	return fmt.Sprintf("NPP error %d", s)
}
