package variants

import (
	"fmt"
	"strconv"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/tiling"
	"github.com/convbench/convbench/cudabind"
)

// TunableRY is the gpu-tiled tunable for the outputs each thread computes
// (stacked vertically): 1, 2, 4 or 8. Left unset, tiling.DefaultRY picks it
// from the filter size, the image and the GPU.
const TunableRY = "ry"

// tiledBlock is gpu-tiled's default block: a warp wide, 8 rows of threads,
// each with RY outputs.
var tiledBlock = convolve.Block{X: 32, Y: 8}

func init() {
	caps := directCaps()
	caps.Tunables = []string{TunableRY}
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-tiled",
			Summary: "shared tile with register blocking (ry outputs per thread), constant filter, interior tiles without border mapping",
			Caps:    caps},
		Block: tiledBlock,
		Setup: setupTiled,
	})
}

func setupTiled(b *Base) error {
	ry := tiling.DefaultRY(b.Problem, b.Block, b.Info.SMs)
	if v, ok := b.Config.Tunables[TunableRY]; ok {
		ry = v
	}
	if ry != 1 && ry != 2 && ry != 4 && ry != 8 {
		return fmt.Errorf("variants: %s: tunable %s=%d: want 1, 2, 4 or 8", b.Name, TunableRY, ry)
	}
	if err := b.CheckConstant(b.Filter.Taps()); err != nil {
		return err
	}
	kw, kh := b.Filter.Width, b.Filter.Height
	shared := (b.Block.X + kw - 1) * (b.Block.Y*ry + kh - 1) * 4
	if err := b.CheckShared(shared); err != nil {
		return err
	}
	in := b.Problem.Input
	grid, block, err := Grid(in.Width, (in.Height+ry-1)/ry, in.Channels, b.Block)
	if err != nil {
		return named(b.Name, err)
	}
	mod, err := b.Compile("tiled", map[string]string{"RY": strconv.Itoa(ry)})
	if err != nil {
		return err
	}
	fn, err := b.Function(mod, "conv_tiled", shared)
	if err != nil {
		return err
	}
	if err := b.SetConstant(mod, "c_filter", b.Filter.Weights); err != nil {
		return err
	}
	w, h := b.Dims()
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		return x.Launch(fn, grid, block, shared, s, b.In, b.Out, w, h, b.Stride())
	}
	return nil
}
