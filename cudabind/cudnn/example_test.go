package cudnn_test

import (
	"fmt"

	"github.com/convbench/convbench/cudabind/cudnn"
)

// Three planar channels of 640x480 with padded rows, a 7x5 filter,
// correlated: the descriptors cuDNN is given and what they mean.
func ExampleConv2D() {
	c := cudnn.Conv2D{Batch: 3, Width: 640, Height: 480, RowStride: 648, KW: 7, KH: 5, Correlate: true, Math: cudnn.FMAMath}
	if err := c.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	row, plane := c.Strides()
	pw, ph := c.Pad()
	w, h := c.OutputSize()
	fmt.Printf("strides %d and %d, zero padding %dx%d, output %dx%d per plane\n", row, plane, pw, ph, w, h)
	fmt.Println(c)

	c.KW = 6
	fmt.Println(c.Validate())
	// Output:
	// strides 648 and 311040, zero padding 3x2, output 640x480 per plane
	// 3 planes of 640x480 (row stride 648, plane stride 311040), 7x5 filter, correlate, CUDNN_FMA_MATH
	// cudnn: filter 6x5: sides must be odd and positive for the output to be W x H anchored at the centre
}
