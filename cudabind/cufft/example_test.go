package cufft_test

import (
	"errors"
	"fmt"

	"github.com/convbench/convbench/cudabind/cufft"
)

// A failed call names the function and its cufftResult; errors.Is
// matches it by result.
func ExampleError() {
	var err error = &cufft.Error{API: "cufftExecR2C", Result: cufft.ExecFailed}
	fmt.Println(err)
	fmt.Println(errors.Is(err, &cufft.Error{Result: cufft.ExecFailed}))
	fmt.Println(cufft.Result(42))
	// Output:
	// cufft: cufftExecR2C: CUFFT_EXEC_FAILED (6)
	// true
	// cufftResult(42)
}
