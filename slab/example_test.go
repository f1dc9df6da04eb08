package slab_test

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
	_ "github.com/convbench/convbench/refimpl"
	"github.com/convbench/convbench/slab"
)

// A 9-row image in 3 slabs under a 5-row filter and the Wrap border: the
// top slab's two halo rows above are the image's last two rows, owned by
// the bottom slab.
func ExampleDivide() {
	f, _ := convolve.Box(5)
	p := convolve.Problem{
		Op:     convolve.Filter2D,
		Input:  convolve.Geometry{Width: 16, Height: 9, Channels: 1, Type: convolve.Float32},
		Filter: f,
		Border: convolve.Wrap,
	}
	pt, err := slab.Divide(p, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range pt.Slabs {
		fmt.Printf("slab %d: output rows %d-%d, input rows %d-%d\n", i, s.Y0, s.Y1-1, s.In0, s.In1-1)
		for _, c := range pt.Copies(i) {
			fmt.Printf("  %d rows from image row %d (slab %d) to input row %d\n", c.Rows, c.Src, c.From, c.Dst)
		}
	}
	// Output:
	// slab 0: output rows 0-2, input rows -2-4
	//   2 rows from image row 7 (slab 2) to input row 0
	//   3 rows from image row 0 (slab 0) to input row 2
	//   2 rows from image row 3 (slab 1) to input row 5
	// slab 1: output rows 3-5, input rows 1-7
	//   2 rows from image row 1 (slab 0) to input row 0
	//   3 rows from image row 3 (slab 1) to input row 2
	//   2 rows from image row 6 (slab 2) to input row 5
	// slab 2: output rows 6-8, input rows 4-10
	//   2 rows from image row 4 (slab 1) to input row 0
	//   3 rows from image row 6 (slab 2) to input row 2
	//   2 rows from image row 0 (slab 0) to input row 5
}

// slab3-cpu-fast and cpu-fast streamed under 12 KiB (3 slabs of 13, 13 and 4 rows) give cpu-fast's output
// bit for bit.
func ExampleWrap() {
	fast, _ := convolve.Lookup("cpu-fast")
	f, _ := convolve.Gaussian(7, 0)
	p := convolve.Problem{
		Op:     convolve.Filter2D,
		Input:  convolve.Geometry{Width: 40, Height: 30, Channels: 1, Type: convolve.Float32},
		Filter: f,
		Border: convolve.Reflect,
	}
	in, _ := convolve.NewImage(p.Input)
	for i := range in.F32 {
		in.F32[i] = float32(i%13) - 6
	}
	run := func(v convolve.Variant) (*convolve.Image, error) {
		pl, err := convolve.PlanFor(v, p, convolve.Config{})
		if err != nil {
			return nil, err
		}
		defer pl.Close()
		out, _ := p.NewOutput()
		return out, pl.Run(in, out)
	}
	want, err := run(fast)
	if err != nil {
		fmt.Println(err)
		return
	}
	wrapped, _ := slab.Wrap(fast, 3)
	streamed, _ := slab.Stream(fast, 12<<10)
	for _, v := range []convolve.Variant{wrapped, streamed} {
		got, err := run(v)
		if err != nil {
			fmt.Println(err)
			return
		}
		same := true
		for i := range want.F32 {
			same = same && math.Float32bits(got.F32[i]) == math.Float32bits(want.F32[i])
		}
		fmt.Printf("%s equals cpu-fast bit for bit: %v\n", v.Describe().Name, same)
	}
	// Output:
	// slab3-cpu-fast equals cpu-fast bit for bit: true
	// stream12KiB-cpu-fast equals cpu-fast bit for bit: true
}
