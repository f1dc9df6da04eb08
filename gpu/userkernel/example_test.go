package userkernel_test

import (
	"fmt"

	"github.com/convbench/convbench/gpu/userkernel"
)

// A description header at the top of a kernel file, parsed into the
// spec the variant is built from; fields left out take their defaults.
func ExampleParseHeader() {
	src := `// convbench:kernel
// summary: one thread per pixel, filter in global memory
// entry: my_conv
// types: f32, u8
// borders: zero, replicate
// block: 32x8
//
// The kernel follows the contract of package userkernel.
#include "border.cuh"
`
	spec, found, err := userkernel.ParseHeader("kernels/my_conv.cu", src)
	if err != nil || !found {
		fmt.Println(found, err)
		return
	}
	fmt.Print(spec.Format())

	_, _, err = userkernel.ParseHeader("kernels/my_conv.cu", "// convbench:kernel\n// entry: my_conv\n// borders: clamp\n")
	fmt.Println(err)
	// Output:
	// name: user-my_conv
	// summary: one thread per pixel, filter in global memory
	// entry: my_conv
	// geometry: pixel
	// shared: none
	// filter: global
	// types: f32, u8
	// borders: zero, replicate
	// channels: 1, 2, 3, 4
	// layouts: interleaved, planar
	// block: 32x8
	// blocks: any
	// max-filter: 1023
	// order: any
	// finite-input: false
	// kernels/my_conv.cu:3: borders: "clamp": not a valid value (valid: zero, replicate, reflect, mirror, wrap)
}
