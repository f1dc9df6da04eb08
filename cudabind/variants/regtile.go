package variants

import (
	"fmt"
	"strconv"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// TunableRX is the gpu-regtile tunable for the outputs each thread
// computes side by side in a row: 1, 2, 4 or 8. gpu-regtile reads
// TunableRY too, the rows of outputs each thread computes (1, 2, 4 or 8).
// Left unset, RegtileDefaults picks both from the filter size.
const TunableRX = "rx"

// RegtileUnrollLimit mirrors regtile.cu's RT_UNROLL_LIMIT: the row walk of
// a thread is unrolled completely (every weight a constant-bank operand)
// while it holds at most this many multiply-adds, rx*ry*kw*kh.
const RegtileUnrollLimit = 8192

// RegtileMaxSide is the largest filter side gpu-regtile accepts: its
// unrolled code grows with the filter, and the issue it serves stops at 31.
const RegtileMaxSide = 31

// regtileBlock is gpu-regtile's default block: a warp wide, 8 rows of
// threads, each with rx x ry outputs.
var regtileBlock = convolve.Block{X: 32, Y: 8}

// gpu-regtile has directCaps (filters up to RegtileMaxSide): regtile.cu,
// like the kernels directCaps lists, adds filter[j*KW+i] * pixel for every
// tap in cpu-naive's order, zero weights and zero-border taps (read as
// 0.f by read_px) included, with the weights read from constant memory at
// run time. A filter up to 31x31 always fits in constant memory.
func init() {
	caps := directCaps()
	caps.Tunables = []string{TunableRX, TunableRY}
	caps.Space = regtileSpace
	caps.MaxFilterSide = RegtileMaxSide
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-regtile",
			Summary: "register-blocked rx x ry outputs per thread from register row segments, shared tile filled with 128-bit loads, constant filter",
			Caps:    caps},
		Block: regtileBlock,
		Setup: setupRegtile,
	})
}

// RegtileDefaults is gpu-regtile's outputs per thread when its tunables are
// unset, for a kw x kh filter: 4 side by side (one 128-bit shared load
// feeds four outputs' columns, one 128-bit store writes them), and rows by
// the filter's larger side: 8 up to 7 (DRAM-bound filters: a tall block
// tile reads fewer halo rows per output), 4 up to 15, 2 up to 31, else 1
// (FP32-bound filters: each row segment feeds rx*ry multiply-adds per
// tap while the unrolled walk stays small); then halved while the walk
// would exceed RegtileUnrollLimit multiply-adds.
func RegtileDefaults(kw, kh int) (rx, ry int) {
	rx = 4
	k := max(kw, kh)
	switch {
	case k <= 7:
		ry = 8
	case k <= 15:
		ry = 4
	case k <= 31:
		ry = 2
	default:
		ry = 1
	}
	for ry > 1 && rx*ry*kw*kh > RegtileUnrollLimit {
		ry /= 2
	}
	return rx, ry
}

// RegtileSharedBytes is the dynamic shared memory of gpu-regtile's input
// tile for block b with rx x ry outputs per thread and a kw x kh filter,
// filled with 128-bit loads (vec) or not: rows of sh+bx*rx+kw-1 floats
// padded to a multiple of 4 (regtile.cu's RT_PITCH), by*ry+kh-1 of them,
// where sh (RT_SH) is the shift to a 4-aligned first column under vec and
// 0 otherwise.
func RegtileSharedBytes(b convolve.Block, rx, ry, kw, kh int, vec bool) int {
	sh := 0
	if vec {
		sh = (4 - (kw/2)%4) % 4
	}
	pitch := (sh + b.X*rx + kw - 1 + 3) / 4 * 4
	return pitch * (b.Y*ry + kh - 1) * 4
}

// regtileVecIn reports whether the input tile of p can be filled with
// 128-bit loads in blocks of bx threads with rx outputs each: float32
// pixels contiguous in a row (one channel or planar), every row starting
// on a 16-byte boundary (the buffer itself is allocated so), and bx*rx a
// multiple of 4, so that every block's tile starts at the same column
// modulo 4.
func regtileVecIn(p convolve.Problem, bx, rx int) bool {
	in := p.Input
	return in.Type == convolve.Float32 && (in.Channels == 1 || in.Layout == convolve.Planar) &&
		in.RowStride()%4 == 0 && bx*rx%4 == 0
}

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

func setupRegtile(b *Base) error {
	kw, kh := b.Filter.Width, b.Filter.Height
	rx, ry := RegtileDefaults(kw, kh)
	rx, err := regtileTunable(b, TunableRX, rx)
	if err != nil {
		return err
	}
	ry, err = regtileTunable(b, TunableRY, ry)
	if err != nil {
		return err
	}
	if err := b.CheckConstant(b.Filter.Taps()); err != nil {
		return err
	}
	vecIn := regtileVecIn(b.Problem, b.Block.X, rx)
	shared := RegtileSharedBytes(b.Block, rx, ry, kw, kh, vecIn)
	if err := b.CheckShared(shared); err != nil {
		return err
	}
	in := b.Problem.Input
	grid, block, err := Grid((in.Width+rx-1)/rx, (in.Height+ry-1)/ry, in.Channels, b.Block)
	if err != nil {
		return named(b.Name, err)
	}
	vec := "0"
	if vecIn {
		vec = "1"
	}
	mod, err := b.Compile("regtile", map[string]string{
		"RX": strconv.Itoa(rx), "RY": strconv.Itoa(ry), "VEC_IN": vec})
	if err != nil {
		return err
	}
	fn, err := b.Function(mod, "conv_regtile", shared)
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
