package cudnn

import (
	"errors"
	"fmt"
)

// Status is a cudnnStatus_t value. cuDNN 9 numbers its statuses by
// category: 0 success, 1xxx not initialized and library-level failures,
// 2xxx bad parameters, 3xxx not supported, 4xxx internal errors, 5xxx
// execution failures.
type Status int32

// The statuses of cuDNN 9 (cudnn_graph.h) a convolution can return.
const (
	StatusSuccess                      Status = 0
	StatusNotInitialized               Status = 1001
	StatusSublibraryVersionMismatch    Status = 1002
	StatusSerializationVersionMismatch Status = 1003
	StatusDeprecated                   Status = 1004
	StatusLicenseError                 Status = 1005
	StatusRuntimeInProgress            Status = 1006
	StatusRuntimeFPOverflow            Status = 1007
	StatusSublibraryLoadingFailed      Status = 1008
	StatusBadParam                     Status = 2000
	StatusInvalidValue                 Status = 2001
	StatusBadParamNullPointer          Status = 2002
	StatusBadParamMisalignedPointer    Status = 2003
	StatusBadParamNotFinalized         Status = 2004
	StatusBadParamOutOfBound           Status = 2005
	StatusBadParamSizeInsufficient     Status = 2006
	StatusBadParamStreamMismatch       Status = 2007
	StatusBadParamShapeMismatch        Status = 2008
	StatusBadParamDuplicatedEntries    Status = 2009
	StatusBadParamAttributeType        Status = 2010
	StatusBadParamCUDAGraphMismatch    Status = 2011
	StatusBadParamDescriptorType       Status = 2012
	StatusNotSupported                 Status = 3000
	StatusNotSupportedGraphPattern     Status = 3001
	StatusNotSupportedShape            Status = 3002
	StatusNotSupportedDataType         Status = 3003
	StatusNotSupportedLayout           Status = 3004
	StatusNotSupportedCUDADriver       Status = 3005
	StatusNotSupportedCUDART           Status = 3006
	StatusNotSupportedArchMismatch     Status = 3007
	StatusNotSupportedPrerequisite     Status = 3008
	StatusNotSupportedSublibrary       Status = 3009
	StatusNotSupportedSharedMemory     Status = 3010
	StatusNotSupportedPadding          Status = 3011
	StatusNotSupportedBadLaunchParam   Status = 3012
	StatusNotSupportedCUDAGraphNative  Status = 3013
	StatusInternalError                Status = 4000
	StatusInternalCompilationFailed    Status = 4001
	StatusInternalUnexpectedValue      Status = 4002
	StatusInternalHostAllocation       Status = 4003
	StatusInternalDeviceAllocation     Status = 4004
	StatusInternalBadLaunchParam       Status = 4005
	StatusInternalTextureCreation      Status = 4006
	StatusExecutionFailed              Status = 5000
	StatusExecutionFailedCUDADriver    Status = 5001
	StatusExecutionFailedCUBLAS        Status = 5002
	StatusExecutionFailedCUDART        Status = 5003
	StatusExecutionFailedCURAND        Status = 5004
)

var statusNames = map[Status]string{
	StatusSuccess:                      "CUDNN_STATUS_SUCCESS",
	StatusNotInitialized:               "CUDNN_STATUS_NOT_INITIALIZED",
	StatusSublibraryVersionMismatch:    "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
	StatusSerializationVersionMismatch: "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH",
	StatusDeprecated:                   "CUDNN_STATUS_DEPRECATED",
	StatusLicenseError:                 "CUDNN_STATUS_LICENSE_ERROR",
	StatusRuntimeInProgress:            "CUDNN_STATUS_RUNTIME_IN_PROGRESS",
	StatusRuntimeFPOverflow:            "CUDNN_STATUS_RUNTIME_FP_OVERFLOW",
	StatusSublibraryLoadingFailed:      "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
	StatusBadParam:                     "CUDNN_STATUS_BAD_PARAM",
	StatusInvalidValue:                 "CUDNN_STATUS_INVALID_VALUE",
	StatusBadParamNullPointer:          "CUDNN_STATUS_BAD_PARAM_NULL_POINTER",
	StatusBadParamMisalignedPointer:    "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER",
	StatusBadParamNotFinalized:         "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED",
	StatusBadParamOutOfBound:           "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND",
	StatusBadParamSizeInsufficient:     "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT",
	StatusBadParamStreamMismatch:       "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH",
	StatusBadParamShapeMismatch:        "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH",
	StatusBadParamDuplicatedEntries:    "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES",
	StatusBadParamAttributeType:        "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE",
	StatusBadParamCUDAGraphMismatch:    "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH",
	StatusBadParamDescriptorType:       "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE",
	StatusNotSupported:                 "CUDNN_STATUS_NOT_SUPPORTED",
	StatusNotSupportedGraphPattern:     "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN",
	StatusNotSupportedShape:            "CUDNN_STATUS_NOT_SUPPORTED_SHAPE",
	StatusNotSupportedDataType:         "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE",
	StatusNotSupportedLayout:           "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT",
	StatusNotSupportedCUDADriver:       "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER",
	StatusNotSupportedCUDART:           "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART",
	StatusNotSupportedArchMismatch:     "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH",
	StatusNotSupportedPrerequisite:     "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING",
	StatusNotSupportedSublibrary:       "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE",
	StatusNotSupportedSharedMemory:     "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT",
	StatusNotSupportedPadding:          "CUDNN_STATUS_NOT_SUPPORTED_PADDING",
	StatusNotSupportedBadLaunchParam:   "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM",
	StatusNotSupportedCUDAGraphNative:  "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API",
	StatusInternalError:                "CUDNN_STATUS_INTERNAL_ERROR",
	StatusInternalCompilationFailed:    "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED",
	StatusInternalUnexpectedValue:      "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE",
	StatusInternalHostAllocation:       "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
	StatusInternalDeviceAllocation:     "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",
	StatusInternalBadLaunchParam:       "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM",
	StatusInternalTextureCreation:      "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED",
	StatusExecutionFailed:              "CUDNN_STATUS_EXECUTION_FAILED",
	StatusExecutionFailedCUDADriver:    "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER",
	StatusExecutionFailedCUBLAS:        "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS",
	StatusExecutionFailedCUDART:        "CUDNN_STATUS_EXECUTION_FAILED_CUDART",
	StatusExecutionFailedCURAND:        "CUDNN_STATUS_EXECUTION_FAILED_CURAND",
}

// String is the status's C name; a value cuDNN 9 does not define is
// written with its category ("CUDNN_STATUS_NOT_SUPPORTED (category of
// 3999)").
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	if c, ok := statusNames[s/1000*1000]; ok && s >= 1000 {
		return fmt.Sprintf("%s (category of %d)", c, int32(s))
	}
	return fmt.Sprintf("cudnnStatus_t(%d)", int32(s))
}

// Error is a failed cuDNN call: the function, the status it returned and
// the library's own description of it (cudnnGetErrorString).
//
// Its message reads "cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM
// (2000): <description>".
type Error struct {
	API    string // "cudnnConvolutionForward"
	Status Status
	Text   string // cudnnGetErrorString's text, or ""
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %v (%d)", e.API, e.Status, int32(e.Status))
	if e.Text != "" && e.Text != e.Status.String() {
		s += ": " + e.Text
	}
	return s
}

// Is makes errors.Is(err, &Error{Status: s}) match any error with status
// s (an empty API in the target matches any function).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && (t.API == "" || t.API == e.API)
}

// Unusable reports whether err holds an *Error whose status says that
// cuDNN cannot run on this host at all, rather than that one call went
// wrong: a sub-library that did not load or does not match, a licence
// error, or a driver, runtime, GPU architecture or prerequisite cuDNN does
// not support. Callers treat such a failure of cudnnCreate like a missing
// library.
func Unusable(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Status {
	case StatusNotInitialized, StatusSublibraryVersionMismatch, StatusLicenseError, StatusSublibraryLoadingFailed,
		StatusNotSupportedCUDADriver, StatusNotSupportedCUDART, StatusNotSupportedArchMismatch,
		StatusNotSupportedPrerequisite, StatusNotSupportedSublibrary:
		return true
	}
	return false
}
