package variants

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
)

// tunableShared is the gpu-separable tunable that picks the passes: 1 (the
// default) the shared-memory row and column passes, 0 the naive ones.
const tunableShared = "shared"

func init() {
	caps := directCaps()
	caps.SeparableOnly = true
	caps.ReferenceOrder = false // two 1-D passes: a different (equally valid) sum
	caps.Tunables = []string{tunableShared}
	// FiniteInput: the two passes multiply each pixel by a row factor and
	// the row sum by a column factor, and Filter.Separable's factors
	// reproduce each weight only within 1e-6 of the largest one. A tiny
	// weight whose factor product is 0 (or the reverse), or whose product
	// has another sign, meets an infinite pixel as 0 x Inf = NaN where the
	// 2-D sum has +-Inf (or the reverse); and a row sum can overflow to
	// Inf where the 2-D sum stays finite. So NaN and infinite input would
	// not give the reference's classes: plans refuse them (non-finite
	// weights are never separable anyway).
	caps.FiniteInput = true
	// The row pass writes the scratch buffer, a packed float plane per
	// channel; the column pass reads it.
	rowArgs := []Arg{ArgIn, argScratch, ArgWidth, ArgHeight, ArgStride}
	colArgs := []Arg{argScratch, ArgOut, ArgWidth, ArgHeight}
	convolve.Register(Declare(Decl{
		Desc: convolve.Description{Name: "gpu-separable", Report: "004",
			Summary: "rank-1 filters: row pass then column pass through a float32 intermediate (shared=0/1 picks naive or shared-memory passes)",
			Caps:    caps},
		Family: "separable",
		Check: func(b *Base) error {
			if _, _, ok := b.Filter.Separable(); !ok {
				return &convolve.CapabilityError{Variant: b.Name, What: "non-separable filter", Value: b.Filter.Name}
			}
			return nil
		},
		Constants: []Constant{
			{Name: "c_row", Values: func(b *Base) ([]float32, error) { row, _, _ := b.Filter.Separable(); return row, nil }},
			{Name: "c_col", Values: func(b *Base) ([]float32, error) { _, col, _ := b.Filter.Separable(); return col, nil }},
		},
		Scratch: func(b *Base) int64 {
			in := b.Problem.Input
			return int64(in.Width) * int64(in.Height) * int64(in.Channels)
		},
		Kernels: []Kernel{
			{Name: "sep_rows", Grid: PerPixel, Args: rowArgs},
			{Name: "sep_cols", Grid: PerPixel, Args: colArgs},
			{Name: "sep_rows_shared", Grid: PerPixel, Shared: Tile.RowPassBytes, Args: rowArgs},
			{Name: "sep_cols_shared", Grid: PerPixel, Shared: Tile.ColPassBytes, Args: colArgs},
		},
		Select: func(b *Base) ([]string, error) {
			shared := 1
			if v, ok := b.Config.Tunables[tunableShared]; ok {
				shared = v
			}
			switch shared {
			case 0:
				return []string{"sep_rows", "sep_cols"}, nil
			case 1:
				return []string{"sep_rows_shared", "sep_cols_shared"}, nil
			}
			return nil, fmt.Errorf("variants: %s: tunable %s=%d: want 0 (naive passes) or 1 (shared-memory passes)", b.Name, tunableShared, shared)
		},
	}))
}
