package convolve_test

import (
	"fmt"
	"math"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/refimpl"
)

// Example runs a registered variant end to end: Lookup finds it by name,
// PlanFor checks the problem against its capabilities and plans it, Run
// computes the output, and Compare measures the output against the
// reference within the tolerance of the variant's error model. Importing
// refimpl registers the CPU variants, cpu-naive among them, and gives the
// reference (gpu/variants registers the GPU ones).
func Example() {
	v, err := convolve.Lookup("cpu-naive")
	if err != nil {
		fmt.Println(err)
		return
	}
	g := convolve.Geometry{Width: 5, Height: 3, Channels: 1, Type: convolve.Uint8}
	in, _ := convolve.WrapUint8(g, []uint8{
		0, 10, 20, 30, 40,
		0, 20, 40, 60, 80,
		0, 30, 60, 90, 120,
	})
	p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: convolve.SobelX(), Border: convolve.Replicate}

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
	for y := 0; y < out.Height; y++ {
		fmt.Println(out.F32[y*out.Width : (y+1)*out.Width])
	}

	ref, tol, err := refimpl.ExpectModel(p, in, v.Describe().Caps.Accuracy)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := convolve.Compare(out, ref, tol)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m)
	fmt.Println("ok:", m.OK())

	// What the variant cannot do is refused before planning, naming it.
	_, err = convolve.PlanFor(v, p, convolve.Config{NoFMA: true})
	fmt.Println(err)
	// Output:
	// [50 100 100 100 50]
	// [80 160 160 160 80]
	// [110 220 220 220 110]
	// n=15 max-abs=0 max-ulp=0 rel-l2=0
	// ok: true
	// convolve: cpu-naive does not support compile options fmad/fast-math (CPU variant)
}

func ExampleNewImage() {
	// A 4x2 RGB image of bytes, rows padded to 16 elements.
	im, err := convolve.NewImage(convolve.Geometry{Width: 4, Height: 2, Channels: 3, Type: convolve.Uint8, Stride: 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	im.Set(3, 1, 2, 300) // saturates to 255
	fmt.Println(im.Geometry, "elements:", im.Len(), "blue of (3,1):", im.At(3, 1, 2), "at index", im.Offset(3, 1, 2))

	_, err = convolve.NewImage(convolve.Geometry{Width: 4, Height: 2, Channels: 5})
	fmt.Println(err)
	// Output:
	// 4x2x3 u8 interleaved stride 16 elements: 28 blue of (3,1): 255 at index 27
	// convolve: image channels 5: must be 1 to 4
}

func ExampleBorder_Index() {
	// Where a row of 4 pixels (a b c d) is read at x = -3 .. 6.
	for _, b := range convolve.Borders {
		fmt.Printf("%-9v ", b)
		for x := -3; x <= 6; x++ {
			i, ok := b.Index(x, 4)
			if !ok {
				fmt.Print("0")
				continue
			}
			fmt.Print(string(rune('a' + i)))
		}
		fmt.Println()
	}
	// Output:
	// zero      000abcd000
	// replicate aaaabcdddd
	// reflect   cbaabcddcb
	// mirror    dcbabcdcba
	// wrap      bcdabcdabc
}

func ExampleParseFilter() {
	for _, spec := range []string{"sobel-x", "box:3", "gauss:9:2.5", "log", "dense:9", "gauss:4"} {
		f, err := convolve.ParseFilter(spec)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-12s -> %v\n", spec, f)
	}
	// Output:
	// sobel-x      -> sobel-x 3x3
	// box:3        -> box3 3x3
	// gauss:9:2.5  -> gauss9-s2.5 9x9
	// log          -> log5 5x5
	// dense:9      -> dense9 9x9
	// convolve: filter spec "gauss:4": gaussian filter size 4: must be odd, 1 to 1023
}

// The canonical name of a filter, which benchmark result lines carry, is
// the name of the spec it parses to; the tables match a filter by its
// size K and its kind.
func ExampleParseFilterSpec() {
	for _, spec := range []string{"gauss", "gauss:9:2.5", "box:7", "dense21", "sobel-x", "dense4"} {
		s, err := convolve.ParseFilterSpec(spec)
		if err != nil {
			fmt.Println(err)
			continue
		}
		f, _ := convolve.ParseFilter(spec)
		fmt.Printf("%-12s -> %-12v family %-8s K %-2d %s\n", spec, s, s.Family, s.K, f.Kind())
	}
	fmt.Println(convolve.FilterSpec{Family: "dense", K: 9})
	// Output:
	// gauss        -> gauss5       family gauss    K 5  separable
	// gauss:9:2.5  -> gauss9-s2.5  family gauss    K 9  separable
	// box:7        -> box7         family box      K 7  separable
	// dense21      -> dense21      family dense    K 21 dense
	// sobel-x      -> sobel-x      family sobel-x  K 3  separable
	// convolve: filter spec "dense4": dense filter size 4: must be odd, 1 to 1023
	// dense9
}

func ExampleGaussian() {
	// sigma <= 0 picks OpenCV's default, which for k=3 is the binomial
	// kernel [1 2 1]/4 in each direction.
	f, _ := convolve.Gaussian(3, 0)
	for j := 0; j < 3; j++ {
		fmt.Println(f.Weights[j*3 : j*3+3])
	}
	fmt.Printf("default sigma for k=9: %.2f\n", convolve.GaussianDefaultSigma(9))
	// Output:
	// [0.0625 0.125 0.0625]
	// [0.125 0.25 0.125]
	// [0.0625 0.125 0.0625]
	// default sigma for k=9: 1.70
}

func ExampleFilter_Separable() {
	row, col, ok := convolve.SobelX().Separable()
	fmt.Println(row, col, ok)
	_, _, ok = convolve.Laplacian().Separable()
	fmt.Println("laplacian separable:", ok)
	// Output:
	// [-2 0 2] [0.5 1 0.5] true
	// laplacian separable: false
}

func ExampleCompare() {
	g := convolve.Geometry{Width: 3, Height: 1, Channels: 1}
	ref, _ := convolve.WrapFloat32(g, []float32{1, 2, 3})
	out, _ := convolve.WrapFloat32(g, []float32{1, 2.0000002, 3.5})
	tol, _ := convolve.WrapFloat32(g, []float32{1e-6, 1e-6, 1e-6})
	m, _ := convolve.Compare(out, ref, tol)
	fmt.Println(m)
	fmt.Println("ok:", m.OK())
	// Output:
	// n=3 max-abs=0.5 max-ulp=2097152 rel-l2=0.134 violations=1 first at (x=2,y=0,c=0): got 3.5 want 3 tol 1e-06
	// ok: false
}

// Non-finite values match by class; the error measures cover the finite
// elements only.
func ExampleCompare_nonFinite() {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	g := convolve.Geometry{Width: 4, Height: 1, Channels: 1}
	ref, _ := convolve.WrapFloat32(g, []float32{nan, inf, 2, nan})
	out, _ := convolve.WrapFloat32(g, []float32{nan, inf, 2.5, 7})
	tol, _ := convolve.WrapFloat32(g, []float32{inf, inf, 1, inf})
	m, _ := convolve.Compare(out, ref, tol)
	fmt.Println(m)
	// Output:
	// n=4 max-abs=0.5 max-ulp=2097152 rel-l2=0.25 (finite elements only) non-finite=3 class-mismatches=1 violations=1 first at (x=3,y=0,c=0): got 7 want NaN tol +Inf
}

func ExampleThroughput() {
	f, _ := convolve.Gaussian(7, 0)
	p := convolve.Problem{
		Op:     convolve.Filter2D,
		Input:  convolve.Geometry{Width: 4096, Height: 4096, Channels: 1, Type: convolve.Float32},
		Filter: f,
	}
	tp := convolve.ThroughputOf(p)
	d := 500 * time.Microsecond
	fmt.Printf("%.0f MPix/s, %.1f GB/s, %.0f GFLOP/s\n", tp.MPixPerSec(d), tp.GBPerSec(d), tp.GFLOPPerSec(d))
	floor, bound := tp.Roofline(3000, 60000) // device copy GB/s, FP32 GFLOP/s
	fmt.Println("floor:", floor, bound)
	// Output:
	// 33554 MPix/s, 268.4 GB/s, 3288 GFLOP/s
	// floor: 44.739µs memory
}

// The tolerance of one output of a 3x3 box over pixels of 1 under each
// direct error model, and under FFT32 for a 64x64 image of ones (its
// bordered 66x66 image has 2-norm 66, the transforms 128x128 points).
func ExampleModelTolerance() {
	for _, m := range []convolve.ErrorModel{convolve.Direct, convolve.TF32, convolve.BF16} {
		t, _ := convolve.ModelTolerance(m, 3, 3, 9, 9)
		fmt.Printf("%-6v %.3g\n", m, t)
	}
	terms := convolve.FFTTerms{InL2: 66, FilterL2: 3, LogN: convolve.FFTLogPoints(64, 64, 3, 3)}
	fmt.Printf("%-6v %.3g\n", convolve.FFT32, convolve.FFTTolerance(terms, 9, convolve.FFT32.FFTRoundoff()))
	// Output:
	// direct 8.58e-06
	// tf32   0.0088
	// bf16   0.0705
	// fft32  0.0187
}
