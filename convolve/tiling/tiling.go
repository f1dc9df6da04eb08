// Package tiling holds gpu-tiled's launch-shape rules for packages without a GPU.
//
// The rule says how many outputs each thread computes when its ry tunable
// is unset. The GPU variant applies the rule when it plans; package
// results applies the same rule to stored runs, to name the configuration
// the variant would have picked.
package tiling

import "github.com/convbench/convbench/convolve"

// UnrollLimit mirrors unroll.cuh's test (UNROLL_WALK) for unrolling the
// body of tiled.cu's row walk (the KH-RY+1 tile rows that feed all RY
// outputs) completely: (KH-RY+1)*KW*RY multiply-adds at most.
const UnrollLimit = 4096

// BlocksPerSM is how many blocks per SM the grid must still have at ry=8
// for DefaultRY to choose it.
const BlocksPerSM = 8

// DefaultRY is gpu-tiled's outputs per thread when the ry tunable is
// unset, for problem p run in blocks of block on a GPU with sms SMs: 8 for
// filters up to 7x7 whose grid keeps at least BlocksPerSM blocks per SM at
// ry=8, else 4; then halved until tiled.cu unrolls the row walk completely
// (1 where even that does not). Preset tuning-tiled on the H100 and the
// H200 found ry=8 the fastest up to 7x7 at 2048x2048 and 4096x4096 (2-11%
// ahead of ry=4) and ry=4 at 15x15; the default preset found ry=8 slower
// than ry=4 at 1024x1024 (512 blocks of 32x8 on 132 SMs) and 256x256
// (results/logs/*/2026-11-22-1268742-tuning-tiled, */2026-11-22-64e1a91).
// A row walk that is not unrolled runs about 4x slower (ry=4 and 8 at
// 31x31).
func DefaultRY(p convolve.Problem, block convolve.Block, sms int) int {
	kw, kh := 1, 1
	if p.Filter != nil {
		kw, kh = p.Filter.Width, p.Filter.Height
	}
	ry := 4
	if kw <= 7 && kh <= 7 && block.X > 0 && block.Y > 0 {
		in := p.Input
		blocks := int64((in.Width+block.X-1)/block.X) * int64((in.Height+8*block.Y-1)/(8*block.Y)) * int64(max(in.Channels, 1))
		if blocks >= int64(BlocksPerSM)*int64(sms) {
			ry = 8
		}
	}
	for ry > 1 && !Unrolled(kw, kh, ry) {
		ry /= 2
	}
	return ry
}

// Unrolled reports whether tiled.cu unrolls the whole row walk of a kw x
// kh filter at ry outputs per thread.
func Unrolled(kw, kh, ry int) bool {
	return kh < ry || (kh-ry+1)*kw*ry <= UnrollLimit
}
