package variants

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
)

// tcMaxSide is the largest filter side the tensor-core variants accept.
const tcMaxSide = 31

// tcRX is tc.cu's default RX (the tunable rx of the tensor-core
// variants: 1, 2 or 4): each warp computes 4*RX segments of 8 output
// columns (32*RX columns) by 16 rows.
const tcRX = 2

// tcRXValues are the values of the tensor-core variants' rx.
var tcRXValues = []int{1, 2, 4}

// tunableRound is the tensor-core variants' tunable that says when the
// input's operands are rounded (tc.cu's ROUND_TILE): 0, as each A
// fragment is loaded, once per filter row that reads it (the default);
// 1, once, as the tile is filled, the tile then holding the rounded
// values (and, for the 3xTF32 split of non-uint8 input, a second tile of
// the low parts: twice the tile's shared memory).
const tunableRound = "round"

// tcRoundValues are the values of tunableRound.
var tcRoundValues = []int{0, 1}

// tcLoTile reports whether tc.cu keeps a tile of low parts: the split
// with ROUND_TILE, unless the input is uint8 (TF32 already, low parts
// zero).
func tcLoTile(split bool, round int, typ convolve.ElemType) bool {
	return split && round == 1 && typ != convolve.Uint8
}

// tcSpace is the tuning space of a tensor-core variant: the block (one to
// eight warps) and rx. A point is kept out when its tile and filter do
// not fit the device's shared memory.
func tcSpace(split bool) *convolve.TuningSpace {
	return &convolve.TuningSpace{
		Blocks:   tcBlocks,
		Tunables: []convolve.Tunable{{Name: tunableRX, Values: tcRXValues}, {Name: tunableRound, Values: tcRoundValues}},
		Allow: func(p convolve.Problem, s convolve.Setting, lim convolve.DeviceLimits) error {
			kw, kh := filterSides(p)
			n := tcSharedBytes(s.Block, s.Tunables[tunableRX], kw, kh, split, tcLoTile(split, s.Tunables[tunableRound], p.Input.Type))
			if lim.SharedPerBlock > 0 && n > lim.SharedPerBlock {
				return fmt.Errorf("tile of %d bytes over the device's %d bytes of shared memory per block", n, lim.SharedPerBlock)
			}
			return nil
		},
		Default: func(p convolve.Problem, block convolve.Block, lim convolve.DeviceLimits) convolve.Setting {
			if block == (convolve.Block{}) {
				block = tcBlock
			}
			return convolve.Setting{Block: block, Tunables: map[string]int{tunableRX: tcRX, tunableRound: 0}}
		},
	}
}

// tcBlock is the tensor-core variants' default block: 4 warps stacked, a
// block computing 64 x 64 outputs.
var tcBlock = convolve.Block{X: 32, Y: 4}

// tcBlocks are the blocks tc.cu accepts: one warp per row of threads.
var tcBlocks = []convolve.Block{{X: 32, Y: 1}, {X: 32, Y: 2}, {X: 32, Y: 4}, {X: 32, Y: 8}}

// The tensor-core variants run tc.cu (see its header for the Toeplitz
// formulation): gpu-tc-3xtf32 with SPLIT=1, gpu-tc-tf32 with SPLIT=0,
// gpu-tc-bf16 with BF16=1.
//
// Error bound. With u = 2^-24, P the sum of |w*x| over the taps of an
// output (absSum) and v_hi = rn_tf32(v), v_lo = rn_tf32(v - v_hi) (tc.cu's
// tc_tf32, round to nearest with ties away, 2^-11 relative):
//
//   - Split (3xTF32). The three products a_hi*b_hi + a_hi*b_lo + a_lo*b_hi
//     differ from a*b by a_lo*b_lo (at most 2^-22 |ab|) plus the rounding
//     of the two low parts (at most 2^-11 * 2^-11 |a| each, times |b|):
//     at most 3*2^-22(1+2^-10)|ab| < 13u|ab| per tap. Uint8 input is
//     TF32 already: a_lo = 0, its product is left out, and only b_lo's
//     rounding and a*b_lo's remain. (TF32: a_hi*b_hi differs from a*b by
//     at most d|ab|, d = 2^-10 + 2^-22, the operand term of
//     convolve.TF32's bound; BF16 likewise with d = 2^-7 + 2^-16, rounding
//     to nearest bfloat16, 2^-8 relative, convolve.BF16's.)
//   - Tensor-core groups. The PTX ISA does not specify how mma.sync sums
//     its products; published measurements of NVIDIA tensor cores find
//     TF32 products exact (two 11-bit significands fit float32's 24, two
//     8-bit bfloat16 ones likewise) and
//     the addends aligned to the largest one and truncated, the result
//     truncated to float32. This bound assumes only that (H) an mma's
//     result differs from the exact C + sum of its 8 products by at most
//     10 * 2^-23 times the sum of the magnitudes of its 9 addends (9
//     truncations below the largest addend's last bit and one of the
//     result; an IEEE float32 sum in any order errs by less). A group is
//     at most three chained mmas started from zero; the low-part steps
//     add magnitudes below 2^-9 P_g, so a group errs by at most
//     20u(1+2^-7) P_g < 21u P_g, P_g the group's share of P.
//   - Accumulation. The G = KH * ceil((KW+7)/8) group results of an output
//     are added in float32 (round to nearest) to a register: at most
//     gamma_{G-1} * sum |D_g| < 1.01 G u P.
//
// So gpu-tc-3xtf32 errs by less than (34 + 1.01 G) u P (plus u|ref| for
// the reference's own rounding), and gpu-tc-tf32 and gpu-tc-bf16 by less
// than d P + (21 + 1.01 G) u P. convolve.Direct allows at least
// n u P + u|ref|, convolve.TF32 and convolve.BF16 d P + n u P + u|ref|,
// n = KW*KH + KW + KH. The first
// lies within the second when tcErrorUnits(kw, kh, split) <= n: for
// 3xTF32 every square filter from 7x7 (48.1 against 63; 21x21 118.8
// against 483, 31x31 190.6 against 1023), for TF32 and BF16 every
// square filter from 5x5. For the others, small or thin (5x5, or 1x31 for 3xTF32),
// the derivation gives no bound within the model's, and tensor cores do
// not pay: the plan launches tc.cu's conv_tc_direct instead, the same
// tile summed on CUDA cores in float32 (KW*KH multiply-adds, within
// Direct's bound and so TF32's and BF16's). tcTensorCores says which kernel a
// filter gets; a benchmark of such a filter times the CUDA-core kernel.
//
// A float32 value that rounds past the largest finite TF32,
// 2^128 - 2^117, is clamped to it (tc_tf32): it lies within
// 2^117 - 2^104 of it, under 2^-11 of its magnitude, so the rounding
// bound above holds for every finite operand and its low part stays
// finite. Subnormal operands may be flushed by the tensor cores: the
// suite's subnormal cases keep the whole output below 2^-126, which
// every model's tolerance allows.
//
// A bfloat16 rounding past the largest finite one, 2^128 - 2^120, is
// clamped likewise, within 2^120 - 2^104, under 2^-8 of the value.
//
// An output whose sum overflows may come out of the tensor cores NaN or
// the wrong infinity: the split's low parts may have the other sign than
// their values and overflow too (int16 pixels under weights near 2^127),
// and an mma adds an infinite C to its products' finite sum. With finite
// operands only an overflow makes an output non-finite, so tc.cu sums
// each such output again on CUDA cores in float32, as conv_tc_direct
// does, which gives the reference's infinity; other outputs pay one test.
//
// All three declare FiniteInput: an infinite operand's low part is NaN
// (inf - inf), and the zero entries of the Toeplitz band multiply tile
// values outside the output's taps, so NaN and infinities would not give
// the reference's result.
func init() {
	convolve.Register(Declare(tcDecl("gpu-tc-3xtf32",
		"tensor-core direct convolution (mma.sync TF32, Toeplitz band per filter row), operands split into TF32 high and low parts, three products: float32 accuracy",
		tc3xTF32, convolve.Direct)))
	convolve.Register(Declare(tcDecl("gpu-tc-tf32",
		"tensor-core direct convolution (mma.sync TF32, Toeplitz band per filter row), operands rounded to TF32",
		tcTF32, convolve.TF32)))
	convolve.Register(Declare(tcDecl("gpu-tc-bf16",
		"tensor-core direct convolution (mma.sync bfloat16, Toeplitz band per filter row), operands rounded to bfloat16",
		tcBF16, convolve.BF16)))
}

// tcArith is the arithmetic of a tensor-core variant.
type tcArith int

const (
	tc3xTF32 tcArith = iota // TF32 high and low parts, three products
	tcTF32                  // operands rounded to TF32
	tcBF16                  // operands rounded to bfloat16
)

// split reports whether a splits its operands.
func (a tcArith) split() bool { return a == tc3xTF32 }

func tcDecl(name, summary string, arith tcArith, model convolve.ErrorModel) Decl {
	split := arith.split()
	caps := directCaps()
	caps.ReferenceOrder = false
	caps.FiniteInput = true
	caps.Accuracy = model
	caps.MaxFilterSide = tcMaxSide
	caps.FixedBlocks = tcBlocks
	caps.Tunables = []string{tunableRX, tunableRound}
	caps.Space = tcSpace(split)
	args := []Arg{ArgIn, argFilter, ArgOut, ArgWidth, ArgHeight, ArgStride}
	shared := func(t Tile) int {
		return tcSharedBytes(t.Block, t.RX, t.KW, t.KH, split, t.Defines["TC_LO_TILE"] == "1")
	}
	return Decl{
		Desc:   convolve.Description{Name: name, Summary: summary, Caps: caps},
		Block:  tcBlock,
		Family: "tc",
		Check:  tcCheckDevice,
		Defines: func(b *Base) (map[string]string, error) {
			rx := tcRX
			if v, ok := b.Config.Tunables[tunableRX]; ok {
				if v != 1 && v != 2 && v != 4 {
					return nil, fmt.Errorf("variants: %s: tunable %s=%d: want 1, 2 or 4", b.Name, tunableRX, v)
				}
				rx = v
			}
			round := 0
			if v, ok := b.Config.Tunables[tunableRound]; ok {
				if v != 0 && v != 1 {
					return nil, fmt.Errorf("variants: %s: tunable %s=%d: want 0 or 1", b.Name, tunableRound, v)
				}
				round = v
			}
			return tcDefines(arith, rx, round, b.Problem.Input.Type), nil
		},
		Kernels: []Kernel{
			{Name: "conv_tc", Grid: PerTile, Args: args, Shared: shared},
			{Name: "conv_tc_direct", Grid: PerTile, Args: args, Shared: shared},
		},
		Select: func(b *Base) ([]string, error) {
			kw, kh := b.Problem.KernelSize()
			return []string{tcKernel(kw, kh, split)}, nil
		},
	}
}

// tcKernel is the entry point a kw x kh filter runs.
func tcKernel(kw, kh int, split bool) string {
	if tcTensorCores(kw, kh, split) {
		return "conv_tc"
	}
	return "conv_tc_direct"
}

// tcCheckDevice refuses a device without TF32 tensor cores (compute
// capability below 8.0, where mma.sync has no TF32 form) with a
// *convolve.CapabilityError.
func tcCheckDevice(b *Base) error {
	if b.Info.Major > 0 && b.Info.Major < 8 { // 0: not known
		return &convolve.CapabilityError{Variant: b.Name, What: "device",
			Value: fmt.Sprintf("%s of compute capability %d.%d (TF32 tensor cores need 8.0)", b.Info.Name, b.Info.Major, b.Info.Minor)}
	}
	return nil
}

// tcDefines sets RX (rx), RY (16), SPLIT, BF16, ROUND_TILE (round), and
// IN_TF32 for uint8 input, whose values are TF32 already (8 significant
// bits), so that the split leaves out the product of the input's zero
// low part; TC_LO_TILE says whether tc.cu keeps a tile of low parts
// (tcLoTile), for the shared memory rule.
func tcDefines(arith tcArith, rx, round int, typ convolve.ElemType) map[string]string {
	d := map[string]string{"RX": fmt.Sprint(rx), "RY": "16", "SPLIT": "0", "BF16": "0", "IN_TF32": "0",
		"ROUND_TILE": fmt.Sprint(round), "TC_LO_TILE": "0"}
	if tcLoTile(arith.split(), round, typ) {
		d["TC_LO_TILE"] = "1"
	}
	switch arith {
	case tc3xTF32:
		d["SPLIT"] = "1"
	case tcBF16:
		d["BF16"] = "1"
	}
	if typ == convolve.Uint8 {
		d["IN_TF32"] = "1"
	}
	return d
}

// tcChunks is tc.cu's TC_Q: the 8-column chunks of one filter row's
// Toeplitz band, ceil((kw+7)/8).
func tcChunks(kw int) int { return (kw + 14) / 8 }

// tcErrorUnits is the bound derived above for a kw x kh filter, in units
// of u*absSum (u = 2^-24): 34 + 1.01*G for the 3xTF32 split, 21 + 1.01*G
// for TF32 (whose operand rounding the TF32 model covers apart), with
// G = kh*ceil((kw+7)/8) tensor-core groups per output. BF16 has TF32's
// (split false).
func tcErrorUnits(kw, kh int, split bool) float64 {
	g := float64(kh * tcChunks(kw))
	if split {
		return 34 + 1.01*g
	}
	return 21 + 1.01*g
}

// tcTensorCores reports whether a kw x kh filter runs on tensor cores:
// whether tcErrorUnits is within the summation term of the declared
// model, n = kw*kh + kw + kh units.
func tcTensorCores(kw, kh int, split bool) bool {
	return tcErrorUnits(kw, kh, split) <= float64(kw*kh+kw+kh)
}

// tcSharedBytes is the dynamic shared memory of tc.cu for block b, rx
// (RX) and a kw x kh filter: the input tile, 16*b.Y + kh - 1 rows of TC_P
// floats (the 32*rx outputs' columns plus 8*(TC_Q-1), plus 4), twice with
// a tile of low parts (loTile, tcLoTile), then kh padded filter rows of
// 8*TC_Q + 8 floats, twice with the split.
func tcSharedBytes(b convolve.Block, rx, kw, kh int, split, loTile bool) int {
	q := tcChunks(kw)
	tw := 32*rx + 8*(q-1)
	tile := (16*b.Y + kh - 1) * (tw + 4)
	if loTile {
		tile *= 2
	}
	floats := tile + kh*(8*q+8)
	if split {
		floats += kh * (8*q + 8)
	}
	return floats * 4
}
