package variants

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
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

func init() {
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-naive", Report: "000",
			Summary: "one thread per pixel, filter and image in global memory, border per tap (V1)",
			Caps:    directCaps()},
		Setup: setupNaive,
	})
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-const", Report: "000",
			Summary: "one thread per pixel, filter in constant memory (V1_const)",
			Caps:    directCaps()},
		Setup: setupConst,
	})
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-shared", Report: "000",
			Summary: "tile plus halo in dynamic shared memory, constant filter, unrolled taps (V2)",
			Caps:    directCaps()},
		Setup: func(b *Base) error { return setupShared(b, "shared", "conv_shared") },
	})
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-shared-rows", Report: "002",
			Summary: "shared-memory tile copied row by row with coalesced warp reads, constant filter",
			Caps:    directCaps()},
		Setup: func(b *Base) error { return setupShared(b, "shared_rows", "conv_shared_rows") },
	})
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-naive-padded", Report: "002",
			Summary: "input padded on the device with the border, then a naive kernel without bounds checks",
			Caps:    directCaps()},
		Setup: setupPadded,
	})
}

func setupNaive(b *Base) error {
	mod, err := b.Compile("naive", nil)
	if err != nil {
		return err
	}
	fn, err := b.Function(mod, "conv_naive", 0)
	if err != nil {
		return err
	}
	filter, err := b.UploadFloats(b.Filter.Weights)
	if err != nil {
		return err
	}
	grid, block := b.Grid()
	w, h := b.Dims()
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		return x.Launch(fn, grid, block, 0, s, b.In, filter, b.Out, w, h, b.Stride())
	}
	return nil
}

func setupConst(b *Base) error {
	if err := b.CheckConstant(b.Filter.Taps()); err != nil {
		return err
	}
	mod, err := b.Compile("const", nil)
	if err != nil {
		return err
	}
	fn, err := b.Function(mod, "conv_const", 0)
	if err != nil {
		return err
	}
	if err := b.SetConstant(mod, "c_filter", b.Filter.Weights); err != nil {
		return err
	}
	grid, block := b.Grid()
	w, h := b.Dims()
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		return x.Launch(fn, grid, block, 0, s, b.In, b.Out, w, h, b.Stride())
	}
	return nil
}

// TileBytes is the dynamic shared memory of a (bx+kw-1) x (by+kh-1) float
// tile.
func TileBytes(blk convolve.Block, kw, kh int) int {
	return (blk.X + kw - 1) * (blk.Y + kh - 1) * 4
}

func setupShared(b *Base, family, kernel string) error {
	if err := b.CheckConstant(b.Filter.Taps()); err != nil {
		return err
	}
	shared := TileBytes(b.Block, b.Filter.Width, b.Filter.Height)
	if err := b.CheckShared(shared); err != nil {
		return err
	}
	mod, err := b.Compile(family, nil)
	if err != nil {
		return err
	}
	fn, err := b.Function(mod, kernel, shared)
	if err != nil {
		return err
	}
	if err := b.SetConstant(mod, "c_filter", b.Filter.Weights); err != nil {
		return err
	}
	grid, block := b.Grid()
	w, h := b.Dims()
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		return x.Launch(fn, grid, block, shared, s, b.In, b.Out, w, h, b.Stride())
	}
	return nil
}

func setupPadded(b *Base) error {
	in := b.Problem.Input
	kw, kh := b.Filter.Width, b.Filter.Height
	pw, ph := in.Width+kw-1, in.Height+kh-1
	padGrid, block, err := Grid(pw, ph, in.Channels, b.Block)
	if err != nil {
		return named(b.Name, err)
	}
	elems := int64(pw) * int64(ph) * int64(in.Channels)
	if elems > math.MaxInt32 {
		b.Index64 = true
	}
	pad, err := b.Alloc(elems * 4)
	if err != nil {
		return fmt.Errorf("padded input: %w", err)
	}
	mod, err := b.Compile("padded", nil)
	if err != nil {
		return err
	}
	padFn, err := b.Function(mod, "pad_input", 0)
	if err != nil {
		return err
	}
	convFn, err := b.Function(mod, "conv_padded", 0)
	if err != nil {
		return err
	}
	filter, err := b.UploadFloats(b.Filter.Weights)
	if err != nil {
		return err
	}
	grid, _ := b.Grid()
	w, h := b.Dims()
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		if err := x.Launch(padFn, padGrid, block, 0, s, b.In, pad, w, h, b.Stride()); err != nil {
			return err
		}
		return x.Launch(convFn, grid, block, 0, s, pad, filter, b.Out, w, h)
	}
	return nil
}
