package variants

import (
	"fmt"
	"strconv"

	"github.com/convbench/convbench/convolve"
)

// tunableRX is the gpu-regtile tunable for the outputs each thread
// computes side by side in a row: 1, 2, 4 or 8. gpu-regtile reads
// tunableRY too, the rows of outputs each thread computes (1, 2, 4 or 8).
// Left unset, regtileDefaults picks both from the filter size.
const tunableRX = "rx"

// regtileUnrollLimit mirrors regtile.cu's RT_UNROLL_LIMIT: the row walk of
// a thread is unrolled completely (every weight a constant-bank operand)
// while it holds at most this many multiply-adds, rx*ry*kw*kh.
const regtileUnrollLimit = 8192

// regtileMaxSide is the largest filter side gpu-regtile accepts: its
// unrolled code grows with the filter, and the issue it serves stops at 31.
const regtileMaxSide = 31

// regtileBlock is gpu-regtile's default block: a warp wide, 8 rows of
// threads, each with rx x ry outputs.
var regtileBlock = convolve.Block{X: 32, Y: 8}

// gpu-regtile has directCaps (filters up to regtileMaxSide): regtile.cu,
// like the kernels directCaps lists, adds filter[j*KW+i] * pixel for every
// tap in cpu-naive's order, zero weights and zero-border taps (read as
// 0.f by read_px) included, with the weights read from constant memory at
// run time. A filter up to 31x31 always fits in constant memory.
func init() {
	caps := directCaps()
	caps.Tunables = []string{tunableRX, tunableRY}
	caps.Space = regtileSpace
	caps.MaxFilterSide = regtileMaxSide
	convolve.Register(Declare(Decl{
		Desc: convolve.Description{Name: "gpu-regtile",
			Summary: "register-blocked rx x ry outputs per thread from register row segments, shared tile filled with vector loads, constant filter",
			Caps:    caps},
		Block:       regtileBlock,
		Family:      "regtile",
		Defines:     regtileDefines,
		Constants:   constFilter,
		InRowAlign:  vecRowAlign,
		OutRowAlign: vecRowAlign,
		Kernels: []Kernel{{Name: "conv_regtile", Grid: PerTile, Args: directArgs,
			Shared: func(t Tile) int { return regtileSharedBytes(t.Block, t.RX, t.RY, t.KW, t.KH) }}},
	}))
}

// regtileDefaults is gpu-regtile's outputs per thread when its tunables are
// unset, for a kw x kh filter whose larger side is k:
//
//   - k <= 7 (DRAM-bound): rx=4, ry=2. Eight outputs per thread let the
//     kernel's launch bounds hold a thread to 32 registers, so 8 blocks of
//     256 threads fill an SM (a tall 8-row tile needed 48 registers: 5
//     blocks, 53% achieved occupancy), and a 128x16 output tile makes a
//     4096x4096 image 8192 blocks, 7.8 waves on 132 SMs instead of 3.1
//     (whose last, mostly empty wave cost up to a fifth of the time). The
//     price is a taller halo share (18 to 22 input rows per 16 output rows),
//     read from L2, not DRAM.
//   - larger (FP32-bound): rx=4, ry=8, walked in chunks of 2 rows
//     (regtileChunk), the next chunk's input in flight while the current
//     one is computed. With one tile per block every block loaded its
//     tile, waited at the barrier, then computed, and the blocks of an SM,
//     started together, stayed in step: no multiply-adds while they all
//     loaded (at K=11 about 4 of each 14 us per wave of blocks, which
//     with the partial last wave accounts for 107 us against a 60 us
//     FP32 floor). Now only a block's first chunk waits for its load.
//
// Then ry is halved while a chunk's walk would exceed regtileUnrollLimit
// multiply-adds, so every default walk is unrolled (constant-bank weights,
// no run-time constant indexing).
func regtileDefaults(kw, kh int) (rx, ry int) {
	rx, ry = 4, 8
	if max(kw, kh) <= 7 {
		ry = 2
	}
	for ry > 1 && rx*regtileChunk(ry)*kw*kh > regtileUnrollLimit {
		ry /= 2
	}
	return rx, ry
}

// regtileChunk is the rows of outputs per thread of one chunk of
// gpu-regtile's walk (regtile.cu's RYC) for ry rows per thread: 2 when ry
// is 4 or more (each chunk's input loads behind the previous chunk's
// multiply-adds), else ry (one chunk: with rx=4, 8 or fewer outputs per
// thread keep their registers for occupancy).
func regtileChunk(ry int) int {
	if ry >= 4 {
		return 2
	}
	return ry
}

// regtileSharedBytes is the dynamic shared memory of gpu-regtile's input
// tiles for block b with rx x ry outputs per thread and a kw x kh filter:
// one tile per chunk buffer (two when ry is walked in more than one chunk
// of regtileChunk rows, else one), each of by*chunk+kh-1 rows of
// sh+bx*rx+kw-1 floats padded to a multiple of 4 (regtile.cu's RT_PITCH),
// where sh = -(kw/2) mod 4 (RT_SH) shifts the tile to a 4-aligned first
// column for its vector loads.
func regtileSharedBytes(b convolve.Block, rx, ry, kw, kh int) int {
	chunk := regtileChunk(ry)
	bufs := 1
	if chunk < ry {
		bufs = 2
	}
	sh := (4 - (kw/2)%4) % 4
	pitch := (sh + b.X*rx + kw - 1 + 3) / 4 * 4
	return bufs * pitch * (b.Y*chunk + kh - 1) * 4
}

// regtileVecIn reports whether the input tile of b's problem can be
// filled with vector loads of 4 elements (16, 8 or 4 bytes for f32, i16,
// u8) in blocks of bx threads with rx outputs each: pixels contiguous in a
// row (one channel or planar), every device row starting on a 4-element
// boundary (the buffer itself is allocated on a wider one, and
// InRowAlign pads the rows of an image of any width), and bx*rx a
// multiple of 4, so that every block's tile starts at the same column
// modulo 4. gpu-sepfused uses it with rx=4.
func regtileVecIn(b *Base, bx, rx int) bool {
	in := b.Problem.Input
	return (in.Channels == 1 || in.Layout == convolve.Planar) && b.InStride()%4 == 0 && bx*rx%4 == 0
}

// chInX is the CH_IN_X define of gpu-regtile and gpu-sepfused: "1" for
// an interleaved image of several channels, whose blocks then take the
// channel from blockIdx.x, channel fastest (the PerTile grid rule), so
// that the blocks of one tile's channels run together and read the
// tile's input lines, which hold every channel, from DRAM once; "0"
// otherwise (blockIdx.z is the channel).
func chInX(p convolve.Problem) string {
	if p.Input.Channels > 1 && p.Input.Layout == convolve.Interleaved {
		return "1"
	}
	return "0"
}

// vecRowAlign is the row alignment, in elements, gpu-regtile and
// gpu-sepfused ask of their device input (Decl.InRowAlign): 32 elements,
// so that every row starts on a 4-element vector and, for float32, on a
// 128-byte line.
const vecRowAlign = 32

func regtileTunable(b *Base, name string, def int) (int, error) {
	v, ok := b.Config.Tunables[name]
	if !ok {
		return def, nil
	}
	if v != 1 && v != 2 && v != 4 && v != 8 {
		return 0, fmt.Errorf("variants: %s: tunable %s=%d: want 1, 2, 4 or 8", b.Name, name, v)
	}
	return v, nil
}

// regtileDefines sets RX and RY from the tunables or regtileDefaults, RYC
// (regtileChunk), and VEC_IN where the input tile can be filled with
// vector loads.
func regtileDefines(b *Base) (map[string]string, error) {
	kw, kh := b.Problem.KernelSize()
	rx, ry := regtileDefaults(kw, kh)
	rx, err := regtileTunable(b, tunableRX, rx)
	if err != nil {
		return nil, err
	}
	ry, err = regtileTunable(b, tunableRY, ry)
	if err != nil {
		return nil, err
	}
	vec := "0"
	if regtileVecIn(b, b.Block.X, rx) {
		vec = "1"
	}
	return map[string]string{"RX": strconv.Itoa(rx), "RY": strconv.Itoa(ry),
		"RYC": strconv.Itoa(regtileChunk(ry)), "VEC_IN": vec, "CH_IN_X": chInX(b.Problem)}, nil
}
