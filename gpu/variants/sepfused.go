package variants

import (
	"fmt"
	"strconv"

	"github.com/convbench/convbench/convolve"
)

// sepfusedMaxSide is the largest filter side gpu-sepfused accepts: its row
// pass holds a row segment of 4+KW-1 values in registers, which past 63
// would spill to local memory.
const sepfusedMaxSide = 63

// sepfusedMaxTile is the shared memory gpu-sepfused's default rows per
// thread keep a block's tile under, so that three blocks fit an SM of
// 228 KB.
const sepfusedMaxTile = 64 << 10

// tunableRXR is gpu-sepfused's tunable for the row-pass sums each thread
// computes from one register segment: 4 (the default) or 8 (an even
// block width).
const tunableRXR = "rxr"

// sepfusedBlock is gpu-sepfused's default block: a warp wide (128 output
// columns, 4 per thread), 8 rows of threads.
var sepfusedBlock = convolve.Block{X: 32, Y: 8}

// gpu-sepfused has gpu-separable's capabilities and reasons: the same
// factors (Filter.Separable), the same row sums then column sums, term by
// term in the same order (SeparableOnly, FiniteInput, not ReferenceOrder);
// see separable.go. It adds the limit of its register row segment
// (sepfusedMaxSide).
func init() {
	caps := directCaps()
	caps.SeparableOnly = true
	caps.ReferenceOrder = false
	caps.FiniteInput = true
	caps.MaxFilterSide = sepfusedMaxSide
	caps.Tunables = []string{tunableRY, tunableRXR}
	caps.Space = sepfusedSpace
	convolve.Register(Declare(Decl{
		Desc: convolve.Description{Name: "gpu-sepfused",
			Summary: "rank-1 filters in one kernel: input tile with halo, row pass kept in shared memory, column pass from there (ry rows of 4 outputs per thread)",
			Caps:    caps},
		Block:  sepfusedBlock,
		Family: "sepfused",
		Check:  checkRankOne,
		Constants: []Constant{
			{Name: "c_row", Values: func(b *Base) ([]float32, error) { row, _, _ := b.Filter.Separable(); return row, nil }},
			{Name: "c_col", Values: func(b *Base) ([]float32, error) { _, col, _ := b.Filter.Separable(); return col, nil }},
		},
		Defines:     sepfusedDefines,
		InRowAlign:  vecRowAlign,
		OutRowAlign: vecRowAlign,
		Kernels: []Kernel{{Name: "sep_fused", Grid: PerTile, Args: directArgs,
			Shared: func(t Tile) int {
				rxr, _ := strconv.Atoi(t.Defines["RXR"])
				return sepfusedSharedBytes(t.Block, t.RY, rxr, t.KW, t.KH)
			}}},
	}))
}

// checkRankOne refuses a filter that Filter.Separable cannot factor.
func checkRankOne(b *Base) error {
	if _, _, ok := b.Filter.Separable(); !ok {
		return &convolve.CapabilityError{Variant: b.Name, What: "non-separable filter", Value: b.Filter.Name}
	}
	return nil
}

// sepfusedSharedBytes is the dynamic shared memory of gpu-sepfused's tile
// for block b with ry rows of outputs per thread, rxr row-pass sums per
// thread and a kw x kh filter: rows of sh+4*bx+kw-1 floats padded to a
// multiple of 4 (to 4 more than a multiple of 32 for rxr=8: sepfused.cu's
// FS_PITCH), by*ry+kh-1 of them, where sh = -(kw/2) mod 4 shifts the tile
// to a 4-aligned first column. The row pass overwrites the tile in place.
func sepfusedSharedBytes(b convolve.Block, ry, rxr, kw, kh int) int {
	sh := (4 - (kw/2)%4) % 4
	w := sh + 4*b.X + kw - 1
	pitch := (w + 3) / 4 * 4
	if rxr == 8 {
		pitch = (w+27)/32*32 + 4
	}
	return pitch * (b.Y*ry + kh - 1) * 4
}

// sepfusedDefaultRY is gpu-sepfused's rows of outputs per thread when the
// ry tunable is unset: 4 for filters up to 7 (a 128x32 output tile: 38
// input rows at most per 32 output rows, 16 accumulators per thread), 8
// for larger ones, where each block computes the row pass over KH-1 halo
// rows besides its own: a 64-row tile spends 20/64 more row-pass work at
// K=21 where a 32-row tile would spend 20/32. Then halved while the tile
// of block b would exceed 64 KB.
func sepfusedDefaultRY(b convolve.Block, kw, kh int) int {
	ry := 8
	if max(kw, kh) <= 7 {
		ry = 4
	}
	for ry > 1 && sepfusedSharedBytes(b, ry, 4, kw, kh) > sepfusedMaxTile {
		ry /= 2
	}
	return ry
}

// sepfusedDefines sets RY from the tunable or sepfusedDefaultRY, RX to
// the kernel's 4 columns per thread, and VEC_IN where the input tile can
// be filled with vector loads.
func sepfusedDefines(b *Base) (map[string]string, error) {
	kw, kh := b.Problem.KernelSize()
	ry := sepfusedDefaultRY(b.Block, kw, kh)
	if v, ok := b.Config.Tunables[tunableRY]; ok {
		ry = v
	}
	switch ry {
	case 1, 2, 4, 8, 16:
	default:
		return nil, fmt.Errorf("variants: %s: tunable %s=%d: want 1, 2, 4, 8 or 16", b.Name, tunableRY, ry)
	}
	rxr := 4
	if v, ok := b.Config.Tunables[tunableRXR]; ok {
		rxr = v
	}
	switch {
	case rxr != 4 && rxr != 8:
		return nil, fmt.Errorf("variants: %s: tunable %s=%d: want 4 or 8", b.Name, tunableRXR, rxr)
	case rxr == 8 && b.Block.X%2 != 0:
		return nil, &convolve.CapabilityError{Variant: b.Name, What: "block shape",
			Value: fmt.Sprintf("%v with tunable %s=8 (it needs an even block width)", b.Block, tunableRXR)}
	}
	vec := "0"
	if regtileVecIn(b, b.Block.X, 4) {
		vec = "1"
	}
	return map[string]string{"RX": "4", "RY": strconv.Itoa(ry), "RXR": strconv.Itoa(rxr), "VEC_IN": vec, "CH_IN_X": chInX(b.Problem)}, nil
}
