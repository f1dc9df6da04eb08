package variants

import (
	"fmt"
	"strconv"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// TunableRY is the gpu-tiled tunable for the outputs each thread computes
// (stacked vertically): 1, 2, 4 or 8. Left unset, TiledDefaultRY picks it
// from the filter size.
const TunableRY = "ry"

// tiledUnrollLimit mirrors tiled.cu's test for unrolling the body of the
// row walk (the KH-RY+1 tile rows that feed all RY outputs) completely:
// (KH-RY+1)*KW*RY multiply-adds at most.
const tiledUnrollLimit = 4096

// tiledBlocksPerSM is how many blocks per SM the grid must still have at
// ry=8 for TiledDefaultRY to choose it.
const tiledBlocksPerSM = 8

// TiledDefaultRY is gpu-tiled's outputs per thread when the ry tunable is
// unset, for problem p run in blocks of block on a GPU with sms SMs: 8 for
// filters up to 7x7 whose grid keeps at least 8 blocks per SM at ry=8, else
// 4; then halved until tiled.cu unrolls the row walk completely (1 where
// even that does not). Preset tuning-tiled on the H100 and the H200 found
// ry=8 the fastest up to 7x7 at 2048x2048 and 4096x4096 (2-11% ahead of
// ry=4) and ry=4 at 15x15; the default preset found ry=8 slower than ry=4
// at 1024x1024 (512 blocks of 32x8 on 132 SMs) and 256x256
// (results/logs/*/2026-11-22-1268742-tuning-tiled, */2026-11-22-64e1a91).
// Before the row walk was split into head, body and tail, a walk that was
// not unrolled ran 4x slower (ry=4 and 8 at 31x31).
func TiledDefaultRY(p convolve.Problem, block convolve.Block, sms int) int {
	kw, kh := 1, 1
	if p.Filter != nil {
		kw, kh = p.Filter.Width, p.Filter.Height
	}
	ry := 4
	if kw <= 7 && kh <= 7 && block.X > 0 && block.Y > 0 {
		in := p.Input
		blocks := int64((in.Width+block.X-1)/block.X) * int64((in.Height+8*block.Y-1)/(8*block.Y)) * int64(max(in.Channels, 1))
		if blocks >= int64(tiledBlocksPerSM)*int64(sms) {
			ry = 8
		}
	}
	for ry > 1 && !tiledUnrolled(kw, kh, ry) {
		ry /= 2
	}
	return ry
}

// tiledUnrolled reports whether tiled.cu unrolls the whole row walk of a
// kw x kh filter at ry outputs per thread.
func tiledUnrolled(kw, kh, ry int) bool {
	return kh < ry || (kh-ry+1)*kw*ry <= tiledUnrollLimit
}

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
	ry := TiledDefaultRY(b.Problem, b.Block, b.Info.SMs)
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
