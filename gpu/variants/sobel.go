package variants

import (
	"github.com/convbench/convbench/convolve"
)

// sobelShared is gpu-sobel's tunable: 1 selects the shared-memory tiled
// kernel, 0 (the default) the naive one. (The name is the one
// gpu-separable uses for the same choice.)
const sobelShared = "shared"

func init() {
	convolve.Register(Declare(Decl{
		Desc: convolve.Description{Name: "gpu-sobel", Report: "004",
			Summary: "fused Sobel gx, gy and magnitude in one pass; naive, or shared-memory tile with shared=1",
			Caps: convolve.Capabilities{
				Ops:      []convolve.Operation{convolve.SobelMagnitude},
				Types:    []convolve.ElemType{convolve.Float32, convolve.Uint8, convolve.Int16},
				Channels: []int{1, 2, 3, 4},
				Layouts:  []convolve.Layout{convolve.Interleaved, convolve.Planar},
				Borders:  []convolve.Border{convolve.Zero, convolve.Replicate, convolve.Reflect, convolve.Mirror, convolve.Wrap},
				GPU:      true,
				Tunables: []string{sobelShared},
				// FiniteInput: sobel.cu writes gx and gy with the zero
				// taps left out (the centre pixel is never read), so a NaN
				// or infinite pixel there gives a finite magnitude where
				// the reference's 0 x Inf terms give NaN. Plans refuse
				// non-finite input.
				FiniteInput: true,
			}},
		Family: "sobel",
		// sobel_shared's tile is static shared memory.
		Kernels: []Kernel{
			{Name: "sobel_naive", Grid: PerPixel, Args: directArgs},
			{Name: "sobel_shared", Grid: PerPixel, Args: directArgs},
		},
		Select: func(b *Base) ([]string, error) {
			shared, err := tunable(b.Name, b.Config, sobelShared)
			if err != nil {
				return nil, err
			}
			return []string{sobelKernel(shared)}, nil
		},
	}))
}

// sobelKernel is the kernel of sobel.cu the configuration selects.
func sobelKernel(shared bool) string {
	if shared {
		return "sobel_shared"
	}
	return "sobel_naive"
}
