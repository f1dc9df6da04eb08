package variants

import (
	"github.com/convbench/convbench/convolve"
)

// directCaps are the capabilities of the direct (non-separable) Filter2D
// kernels: every element type, 1 to 4 channels, both layouts, every
// border, any filter the device memory limits admit (checked at plan
// time). Every direct kernel sums in cpu-naive's order (ReferenceOrder).
//
// None declares FiniteInput: naive.cu, const.cu, shared.cu,
// shared_rows.cu, tiled.cu, padded.cu, texture.cu and channels.cu all add
// filter[j*KW+i] * pixel for every one of the KW*KH taps, zero weights
// included, with the weights read at run time (never folded by the
// compiler) and a Zero-border tap outside the image read as 0.f (by
// read_px, the padded buffer, or the texture's border address mode) and
// still multiplied: the IEEE terms of refimpl.Expect. Texture reads use
// point sampling, which returns the stored value (NaN and infinities
// included). --use_fast_math only flushes subnormals and changes division
// and square roots, which these sums do not use; Inf and NaN propagate as
// in IEEE arithmetic. A fused multiply-add rounds once where the reference
// rounds never, which the tolerance covers for finite values and which
// cannot change the class of a sum whose terms are finite or infinite
// (only a finite sum beyond the float32 range could, which the
// reference rounds to an infinity too).
func directCaps() convolve.Capabilities {
	return convolve.Capabilities{
		Ops:      []convolve.Operation{convolve.Filter2D},
		Types:    []convolve.ElemType{convolve.Float32, convolve.Uint8, convolve.Int16},
		Channels: []int{1, 2, 3, 4},
		Layouts:  []convolve.Layout{convolve.Interleaved, convolve.Planar},
		Borders:  []convolve.Border{convolve.Zero, convolve.Replicate, convolve.Reflect, convolve.Mirror, convolve.Wrap},
		GPU:      true,

		ReferenceOrder: true,
	}
}

// directArgs are the arguments of the direct kernels that read the input
// and write the output with the filter held elsewhere.
var directArgs = []Arg{ArgIn, ArgOut, ArgWidth, ArgHeight, ArgStride}

// constFilter is the constant-memory filter of const.cu, shared.cu,
// shared_rows.cu, tiled.cu and texture.cu.
var constFilter = []Constant{{Name: "c_filter", Values: FilterWeights}}

func init() {
	convolve.Register(Declare(Decl{
		Desc: convolve.Description{Name: "gpu-naive", Report: "000",
			Summary: "one thread per pixel, filter and image in global memory, border per tap (V1)",
			Caps:    directCaps()},
		Family: "naive",
		Kernels: []Kernel{{Name: "conv_naive", Grid: PerPixel,
			Args: []Arg{ArgIn, argFilter, ArgOut, ArgWidth, ArgHeight, ArgStride}}},
	}))
	convolve.Register(Declare(constPerPixel("gpu-const", "000",
		"one thread per pixel, filter in constant memory (V1_const)", "const", nil)))
	convolve.Register(Declare(constPerPixel("gpu-shared", "000",
		"tile plus halo in dynamic shared memory, constant filter, unrolled taps (V2)", "shared", Tile.Bytes)))
	convolve.Register(Declare(constPerPixel("gpu-shared-rows", "002",
		"shared-memory tile copied row by row with coalesced warp reads, constant filter", "shared_rows", Tile.Bytes)))
	// The padded planes are the scratch buffer: pad_input fills it with the
	// border applied, conv_padded reads it.
	convolve.Register(Declare(Decl{
		Desc: convolve.Description{Name: "gpu-naive-padded", Report: "002",
			Summary: "input padded on the device with the border, then a naive kernel without bounds checks",
			Caps:    directCaps()},
		Family: "padded",
		Scratch: func(b *Base) int64 {
			in := b.Problem.Input
			return int64(in.Width+b.Filter.Width-1) * int64(in.Height+b.Filter.Height-1) * int64(in.Channels)
		},
		Kernels: []Kernel{
			{Name: "pad_input", Grid: PerPaddedPixel, Args: []Arg{ArgIn, argScratch, ArgWidth, ArgHeight, ArgStride}},
			{Name: "conv_padded", Grid: PerPixel, Args: []Arg{argScratch, argFilter, ArgOut, ArgWidth, ArgHeight}},
		},
	}))
}

// constPerPixel declares the direct variant name of report and summary
// whose family launches one kernel, conv_<family>, one thread per pixel
// (PerPixel) on directArgs, with the filter in constant memory
// (constFilter) and shared bytes of dynamic shared memory (nil: none).
func constPerPixel(name, report, summary, family string, shared func(Tile) int) Decl {
	return Decl{
		Desc:      convolve.Description{Name: name, Report: report, Summary: summary, Caps: directCaps()},
		Family:    family,
		Constants: constFilter,
		Kernels:   []Kernel{{Name: "conv_" + family, Grid: PerPixel, Shared: shared, Args: directArgs}},
	}
}
