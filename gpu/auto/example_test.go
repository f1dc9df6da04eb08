package auto_test

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/auto"
)

func ExampleHeuristic() {
	in := convolve.Geometry{Width: 4096, Height: 4096, Channels: 1, Type: convolve.Float32}
	gauss, _ := convolve.Gaussian(7, 0)
	box, _ := convolve.Box(75) // rank 1, past gpu-sepfused's K = 63
	fmt.Println(auto.Heuristic(convolve.Problem{Op: convolve.Filter2D, Filter: gauss, Input: in}))
	fmt.Println(auto.Heuristic(convolve.Problem{Op: convolve.Filter2D, Filter: box, Input: in}))
	// Output:
	// [gpu-sepfused gpu-separable gpu-regtile gpu-tiled]
	// [gpu-separable gpu-fft gpu-tc-3xtf32 gpu-tiled gpu-regtile]
}

func ExampleAdmits() {
	fmt.Println(auto.Admits(convolve.Direct, convolve.Direct), auto.Admits(convolve.Direct, convolve.FFT32), auto.Admits(convolve.TF32, convolve.Direct))
	// Output: true false true
}
