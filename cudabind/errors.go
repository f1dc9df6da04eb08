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

// Common CUresult values, for comparisons with
// errors.Is(err, &Error{Code: ...}).
const (
	CodeOutOfMemory          = cudaerr.CodeOutOfMemory
	CodeInvalidImage         = cudaerr.CodeInvalidImage
	CodeIllegalAddress       = cudaerr.CodeIllegalAddress
	CodeLaunchOutOfResources = cudaerr.CodeLaunchOutOfResources
)

// MentionsSticky reports whether text names a sticky CUDA error (see
// cudaerr.MentionsSticky).
func MentionsSticky(text string) bool { return cudaerr.MentionsSticky(text) }

// DriverErrorName returns the symbolic name and description of a CUresult
// from the built-in table ("CUDA_ERROR_<code>"-style fallbacks for codes
// the table lacks).
func DriverErrorName(code int) (name, text string) { return cudaerr.DriverErrorName(code) }
