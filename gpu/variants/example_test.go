package variants_test

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/variants"
)

// The macros a problem is specialized with: a 5x3 filter on 3-channel
// planar uint8 input, mirror border, 32x8 blocks.
func ExampleDefines() {
	f := &convolve.Filter{Name: "f", Width: 5, Height: 3, Weights: make([]float32, 15)}
	p := convolve.Problem{
		Op:     convolve.Filter2D,
		Input:  convolve.Geometry{Width: 640, Height: 480, Channels: 3, Type: convolve.Uint8, Layout: convolve.Planar},
		Filter: f,
		Border: convolve.Mirror,
	}
	d := variants.Defines(p, convolve.Block{X: 32, Y: 8}, false)
	for _, k := range []string{"KW", "KH", "BX", "BY", "BORDER", "IN_T", "CHANNELS", "PLANAR"} {
		fmt.Printf("%s=%s\n", k, d[k])
	}
	// Output:
	// KW=5
	// KH=3
	// BX=32
	// BY=8
	// BORDER=3
	// IN_T=unsigned char
	// CHANNELS=3
	// PLANAR=1
}

// Planning a registered GPU variant; without a CUDA device Plan returns
// the *cudabind.UnavailableError and the caller skips.
func ExampleVariant() {
	v, err := convolve.Lookup("gpu-shared")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := v.Describe()
	fmt.Println(d.Name, d.Report, d.Caps.GPU)
	// Output: gpu-shared 000 true
}
