package cudabind

import (
	"github.com/convbench/convbench/cudabind/cudaerr"
)

// Error is a failed CUDA driver, NVRTC or NVML call: the API that failed,
// the numeric result, its symbolic name and the library's description
// (package cudaerr).
type Error = cudaerr.Error

// UnavailableError reports that CUDA cannot be used here: a library is
// missing or incomplete, or the driver found no device. GPU tests skip
// with its message.
type UnavailableError = cudaerr.UnavailableError

// Library names an Error's origin.
const (
	LibDriver = cudaerr.LibDriver
	LibNVRTC  = cudaerr.LibNVRTC
	LibNVML   = cudaerr.LibNVML
)

// Common CUresult and nvrtcResult values, for comparisons with
// errors.Is(err, &Error{Code: ...}).
const (
	CodeSuccess               = cudaerr.CodeSuccess
	CodeInvalidValue          = cudaerr.CodeInvalidValue
	CodeOutOfMemory           = cudaerr.CodeOutOfMemory
	CodeNotInitialized        = cudaerr.CodeNotInitialized
	CodeNoDevice              = cudaerr.CodeNoDevice
	CodeInvalidDevice         = cudaerr.CodeInvalidDevice
	CodeInvalidImage          = cudaerr.CodeInvalidImage
	CodeInvalidContext        = cudaerr.CodeInvalidContext
	CodeNoBinaryForGPU        = cudaerr.CodeNoBinaryForGPU
	CodeInvalidPTX            = cudaerr.CodeInvalidPTX
	CodeInvalidHandle         = cudaerr.CodeInvalidHandle
	CodeNotFound              = cudaerr.CodeNotFound
	CodeNotReady              = cudaerr.CodeNotReady
	CodeIllegalAddress        = cudaerr.CodeIllegalAddress
	CodeLaunchOutOfResources  = cudaerr.CodeLaunchOutOfResources
	CodeLaunchFailed          = cudaerr.CodeLaunchFailed
	CodeNotSupported          = cudaerr.CodeNotSupported
	CodeUnknown               = cudaerr.CodeUnknown
	NVRTCCodeCompilation      = cudaerr.NVRTCCodeCompilation
	NVRTCCodeInvalidOption    = cudaerr.NVRTCCodeInvalidOption
	NVRTCCodeInvalidInput     = cudaerr.NVRTCCodeInvalidInput
	NVRTCCodeInvalidProgram   = cudaerr.NVRTCCodeInvalidProgram
	NVRTCCodeBuiltinOperation = cudaerr.NVRTCCodeBuiltinOperation
)

// IsStickyCode reports whether the CUresult code is one of the sticky
// (context-poisoning) errors listed at [Error.Sticky].
func IsStickyCode(code int) bool { return cudaerr.IsStickyCode(code) }

// IsSticky reports whether err wraps a sticky driver error.
func IsSticky(err error) bool { return cudaerr.IsSticky(err) }

// MentionsSticky reports whether text names a sticky CUDA error (see
// cudaerr.MentionsSticky).
func MentionsSticky(text string) bool { return cudaerr.MentionsSticky(text) }

// DriverErrorName returns the symbolic name and description of a CUresult
// from the built-in table ("CUDA_ERROR_<code>"-style fallbacks for codes
// the table lacks).
func DriverErrorName(code int) (name, text string) { return cudaerr.DriverErrorName(code) }

// NVRTCErrorName returns the symbolic name of an nvrtcResult from the
// built-in table.
func NVRTCErrorName(code int) string { return cudaerr.NVRTCErrorName(code) }
