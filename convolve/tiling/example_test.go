package tiling_test

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/tiling"
)

// gpu-tiled's outputs per thread when the ry tunable is unset: 8 for small
// filters over images large enough to keep every SM busy, 4 otherwise,
// fewer where the row walk would not unroll.
func ExampleDefaultRY() {
	gauss := func(k int) *convolve.Filter {
		f, _ := convolve.ParseFilter(fmt.Sprintf("gauss%d", k))
		return f
	}
	block := convolve.Block{X: 32, Y: 8}
	const sms = 132 // an H100
	for _, c := range []struct{ side, k int }{{4096, 5}, {1024, 5}, {4096, 15}, {4096, 31}, {4096, 63}} {
		p := convolve.Problem{Op: convolve.Filter2D, Filter: gauss(c.k),
			Input: convolve.Geometry{Width: c.side, Height: c.side, Channels: 1, Type: convolve.Float32}}
		fmt.Printf("%dx%d, %dx%d: ry=%d\n", c.side, c.side, c.k, c.k, tiling.DefaultRY(p, block, sms))
	}
	// Output:
	// 4096x4096, 5x5: ry=8
	// 1024x1024, 5x5: ry=4
	// 4096x4096, 15x15: ry=4
	// 4096x4096, 31x31: ry=4
	// 4096x4096, 63x63: ry=1
}
