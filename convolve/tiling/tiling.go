// Package tiling holds gpu-tiled's launch-shape rules for packages without a GPU.
//
// The GPU variant applies them when it plans, and package results to
// stored runs, to name the configuration the variant would have picked.
package tiling

import "github.com/convbench/convbench/convolve"

// UnrollLimit mirrors unroll.cuh's UNROLL_WALK: tiled.cu unrolls its row
// walk completely up to (KH-RY+1)*KW*RY multiply-adds.
const UnrollLimit = 4096

// BlocksPerSM is how many blocks per SM the grid must still have at ry=8
// for DefaultRY to choose it.
const BlocksPerSM = 8

// DefaultRY is gpu-tiled's outputs per thread when the ry tunable is
// unset, for problem p run in blocks of block on a GPU with sms SMs: 8 for
// filters up to 7x7 whose grid keeps at least BlocksPerSM blocks per SM at
// ry=8, else 4; then halved until tiled.cu unrolls the row walk completely
// (1 where even that does not), since a walk not unrolled runs about 4x
// slower.
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
