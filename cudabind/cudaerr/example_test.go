package cudaerr_test

import (
	"errors"
	"fmt"

	"github.com/convbench/convbench/cudabind/cudaerr"
)

// ExampleError_Sticky tells a failed call that leaves the device usable from
// one that poisons the process's context, through any wrapping.
func ExampleError_Sticky() {
	for _, code := range []int{2, 700} { // out of memory, illegal address
		name, text := cudaerr.DriverErrorName(code)
		err := fmt.Errorf("run: %w", &cudaerr.Error{API: "cuCtxSynchronize", Code: code, Name: name, Text: text, Library: cudaerr.LibDriver})
		var ce *cudaerr.Error
		if errors.As(err, &ce) {
			fmt.Printf("%v\n  code %d, sticky: %v\n", err, ce.Code, ce.Sticky())
		}
	}
	// Output:
	// run: cuCtxSynchronize: CUDA_ERROR_OUT_OF_MEMORY (out of memory)
	//   code 2, sticky: false
	// run: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)
	//   code 700, sticky: true
}
