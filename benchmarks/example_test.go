package benchmarks_test

import (
	"fmt"
	"testing"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
)

// A case's name carries every field as key=value, so that benchstat can
// group results by any of them; a CPU case leaves out the compile
// options it has none of.
func ExampleCase_Name() {
	gpu := benchmarks.Case{
		Variant: "gpu-shared", Op: convolve.Filter2D, Width: 2048, Height: 2048,
		Filter: "gauss5", Block: convolve.Block{X: 32, Y: 8}, Border: convolve.Zero,
		Type: convolve.Float32, Channels: 1, Cache: benchmarks.Hot,
		Timing: benchmarks.KernelTiming, GPU: true,
	}
	fmt.Println(gpu.Name())

	cpu := gpu
	cpu.Variant, cpu.GPU, cpu.Block, cpu.Timing = "cpu-fast", false, convolve.Block{}, benchmarks.CPUTiming
	cpu.Mode = convolve.Convolve
	fmt.Println(cpu.Name())
	// Output:
	// variant=gpu-shared/size=2048x2048/filter=gauss5/k=5/block=32x8/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default
	// variant=cpu-fast/size=2048x2048/filter=gauss5@convolve/k=5/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none
}

// The values of the -filters and -sizes flags, as a sweep reads them.
func ExampleParseFilters() {
	filters, err := benchmarks.ParseFilters("gauss7,sobel,dense9,rgb2yuv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range filters {
		fmt.Printf("%-9v is %v\n", f, f.Op)
	}
	sizes, err := benchmarks.ParseSizes("1920x1080,4096x4096")
	fmt.Println(sizes, err)
	_, err = benchmarks.ParseSizes("1920x1080,4096")
	fmt.Println(err)
	// Output:
	// gauss7    is filter2d
	// sobel-mag is sobel-mag
	// dense9    is filter2d
	// rgb2yuv   is rgb2yuv
	// [[1920 1080] [4096 4096]] <nil>
	// -sizes 4096: want WxH with positive integers, such as 1024x768
}

// BenchmarkVariant is the benchmark of a variant written in a module of
// its own, beside convtest.TestVariant; here cpu-naive stands in for it.
// go test -run '^$' -bench . -cpu 1 runs it in that module, one
// sub-benchmark per case of its small sweep, named as the sweeps name
// their cases: BenchmarkConv/variant=.../size=512x512/...
func ExampleBenchmarkVariant() {
	myVariant, err := convolve.Lookup("cpu-naive")
	if err != nil {
		fmt.Println(err)
		return
	}

	// In the other module's _test.go file:
	//
	//	func BenchmarkConv(b *testing.B) { benchmarks.BenchmarkVariant(b, myVariant) }
	_ = func(b *testing.B) { benchmarks.BenchmarkVariant(b, myVariant) }
}
