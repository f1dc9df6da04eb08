package verify_test

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	_ "github.com/convbench/convbench/refimpl" // registers the CPU variants
	"github.com/convbench/convbench/verify"
)

// ExampleOutput checks a variant's output against the float64 reference
// within the tolerance of the variant's error model, then the same output
// with one element moved by a thousandth.
func ExampleOutput() {
	v, err := convolve.Lookup("cpu-naive")
	if err != nil {
		fmt.Println(err)
		return
	}
	g := convolve.Geometry{Width: 4, Height: 3, Channels: 1, Type: convolve.Float32}
	in, _ := convolve.WrapFloat32(g, []float32{
		1, 2, 3, 4,
		5, 6, 7, 8,
		9, 10, 11, 12,
	})
	f, err := convolve.Gaussian(3, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: convolve.Reflect}
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

	m, err := verify.Output(v, p, convolve.Config{}, in, out)
	fmt.Println("computed:", m.OK(), err)

	out.F32[5] += 1e-3
	m, err = verify.Output(v, p, convolve.Config{}, in, out)
	fmt.Println("one element off:", m.OK(), err)
	fmt.Printf("%d violation at (%d, %d): off by %.0e, tolerance %.1e\n",
		m.Violations, m.First.X, m.First.Y, m.First.Got-m.First.Want, m.First.Tol)
	// Output:
	// computed: true <nil>
	// one element off: false <nil>
	// 1 violation at (1, 1): off by 1e-03, tolerance 5.7e-06
}
