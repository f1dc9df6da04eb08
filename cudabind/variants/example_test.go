package variants_test

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind/variants"
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

// gpu-tiled's outputs per thread when the ry tunable is unset: 8 for small
// filters over images large enough to keep every SM busy, 4 otherwise,
// fewer where the row walk would not unroll.
func ExampleTiledDefaultRY() {
	gauss := func(k int) *convolve.Filter {
		f, _ := convolve.ParseFilter(fmt.Sprintf("gauss%d", k))
		return f
	}
	block := convolve.Block{X: 32, Y: 8}
	const sms = 132 // an H100
	for _, c := range []struct{ side, k int }{{4096, 5}, {1024, 5}, {4096, 15}, {4096, 31}, {4096, 63}} {
		p := convolve.Problem{Op: convolve.Filter2D, Filter: gauss(c.k),
			Input: convolve.Geometry{Width: c.side, Height: c.side, Channels: 1, Type: convolve.Float32}}
		fmt.Printf("%dx%d, %dx%d: ry=%d\n", c.side, c.side, c.k, c.k, variants.TiledDefaultRY(p, block, sms))
	}
	// Output:
	// 4096x4096, 5x5: ry=8
	// 1024x1024, 5x5: ry=4
	// 4096x4096, 15x15: ry=4
	// 4096x4096, 31x31: ry=4
	// 4096x4096, 63x63: ry=1
}
