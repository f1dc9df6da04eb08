package refimpl_test

import (
	"fmt"
	"slices"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/refimpl"
)

// Expect returns the float64 reference, rounded once to float32, and the
// per-element tolerance a float32 implementation must meet.
func ExampleExpect() {
	g := convolve.Geometry{Width: 3, Height: 2, Channels: 1, Type: convolve.Uint8}
	in, _ := convolve.WrapUint8(g, []uint8{
		10, 20, 30,
		40, 50, 60,
	})
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: convolve.SobelX(), Border: convolve.Replicate}
	ref, tol, err := refimpl.Expect(p, in)
	if err != nil {
		fmt.Println(err)
		return
	}
	for y := 0; y < ref.Height; y++ {
		fmt.Printf("row %d:", y)
		for x := 0; x < ref.Width; x++ {
			fmt.Printf("%4v", ref.At(x, y, 0))
		}
		fmt.Println()
	}
	fmt.Printf("tolerance at (1,0): %.2g\n", tol.At(1, 0, 0))
	// Output:
	// row 0:  40  80  40
	// row 1:  40  80  40
	// tolerance at (1,0): 0.0002
}

// A registered variant is found by name and planned once; the plan then
// runs as often as needed. Comparing with Expect gives the error metrics.
func Example_variant() {
	v, err := convolve.Lookup("cpu-fast")
	if err != nil {
		fmt.Println(err)
		return
	}
	box, _ := convolve.Box(3)
	g := convolve.Geometry{Width: 4, Height: 3, Channels: 1, Type: convolve.Float32}
	in, _ := convolve.WrapFloat32(g, []float32{
		1, 2, 3, 4,
		5, 6, 7, 8,
		9, 10, 11, 12,
	})
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: box, Border: convolve.Mirror}
	plan, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer plan.Close()
	out, _ := p.NewOutput()
	if err := plan.Run(in, out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (report %s): out(1,1) = %.4g\n", v.Describe().Name, v.Describe().Report, out.At(1, 1, 0))
	ref, tol, _ := refimpl.Expect(p, in)
	m, _ := convolve.Compare(out, ref, tol)
	fmt.Println("within tolerance:", m.OK())

	// A CPU variant has no block shape to tune.
	_, err = convolve.PlanFor(v, p, convolve.Config{Block: convolve.Block{X: 32, Y: 8}})
	fmt.Println(err)
	// Output:
	// cpu-fast (report 004): out(1,1) = 6
	// within tolerance: true
	// convolve: cpu-fast does not support block shape 32x8 (CPU variant)
}

// NewFast runs cpu-fast on the portable loops whatever the CPU prefers;
// both paths give the same values. A plan of cpu-fast counts the
// operations its last Run executed: the separable Gaussian takes a row
// pass of 3 taps over the 6 rows it reads (the image's 4 and one beyond
// each edge) and a column pass of 3 taps over the 4 output rows, 37
// values wide, two operations a tap: 2220, where the nominal count of a
// direct 3x3 filter, 2*3*3 an output, says 2664.
func ExampleNewFast() {
	g := convolve.Geometry{Width: 37, Height: 4, Channels: 1, Type: convolve.Float32}
	in, _ := convolve.NewImage(g)
	for i := range in.F32 {
		in.F32[i] = float32(i % 7)
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: convolve.GaussianInt3(), Border: convolve.Reflect}
	var outs []*convolve.Image
	for _, path := range []refimpl.FastPath{refimpl.FastAuto, refimpl.FastPortable} {
		v, err := refimpl.NewFast(path)
		if err != nil {
			fmt.Println(err)
			return
		}
		plan, err := v.Plan(p, convolve.Config{})
		if err != nil {
			fmt.Println(err)
			return
		}
		out, _ := p.NewOutput()
		if err := plan.Run(in, out); err != nil {
			fmt.Println(err)
			return
		}
		counted := plan.(interface{ RunFLOPs() int64 }).RunFLOPs()
		fmt.Printf("%v: %d FLOPs executed, %.0f nominal\n", path, counted, convolve.ThroughputOf(p).Flops())
		outs = append(outs, out)
		plan.Close()
	}
	fmt.Println("same values:", slices.Equal(outs[0].F32, outs[1].F32))
	// Output:
	// auto: 2220 FLOPs executed, 2664 nominal
	// portable: 2220 FLOPs executed, 2664 nominal
	// same values: true
}
