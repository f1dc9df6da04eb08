package variants

import (
	"fmt"
	"os"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// The declaration of docs/variants.md's "Adding a variant": a family of one
// .cu file and the Go that declares it. Here the source is read from
// testdata instead of gpu/kernels, and the declaration is checked
// against an H100's limits without a GPU.
func ExampleDecl() {
	code, err := os.ReadFile("testdata/shared_interior.cu")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := Decl{
		Desc: convolve.Description{Name: "gpu-shared-interior",
			Summary: "shared tile plus halo, read without border mapping inside the image, constant filter",
			Caps:    directCaps()},
		Family:    "shared_interior",
		Source:    &cudabind.Source{Name: "shared_interior.cu", Code: string(code)},
		Constants: []Constant{{Name: "c_filter", Values: FilterWeights}},
		Kernels: []Kernel{{Name: "conv_shared_interior", Grid: PerPixel, Shared: Tile.Bytes,
			Args: []Arg{ArgIn, ArgOut, ArgWidth, ArgHeight, ArgStride}}},
	}
	box, _ := convolve.Box(5)
	p := convolve.Problem{Op: convolve.Filter2D, Border: convolve.Reflect, Filter: box,
		Input: convolve.Geometry{Width: 640, Height: 480, Channels: 3, Type: convolve.Uint8}}
	fmt.Println(d.Validate(p, convolve.Config{}, h100))

	d.Kernels[0].Name = "conv_shared_inner"
	fmt.Println(d.Validate(p, convolve.Config{}, h100))
	// Output:
	// <nil>
	// variants: gpu-shared-interior: entry point "conv_shared_inner": shared_interior.cu has no extern "C" __global__ function of that name (has conv_shared_interior)
}
