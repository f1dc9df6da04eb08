package variants

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// TunableShared is the gpu-separable tunable that picks the passes: 1 (the
// default) the shared-memory row and column passes, 0 the naive ones.
const TunableShared = "shared"

func init() {
	caps := directCaps()
	caps.SeparableOnly = true
	caps.ReferenceOrder = false // two 1-D passes: a different (equally valid) sum
	caps.Tunables = []string{TunableShared}
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
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-separable", Report: "004",
			Summary: "rank-1 filters: row pass then column pass through a float32 intermediate (shared=0/1 picks naive or shared-memory passes)",
			Caps:    caps},
		Setup: setupSeparable,
	})
}

func setupSeparable(b *Base) error {
	shared := 1
	if v, ok := b.Config.Tunables[TunableShared]; ok {
		shared = v
	}
	if shared != 0 && shared != 1 {
		return fmt.Errorf("variants: %s: tunable %s=%d: want 0 (naive passes) or 1 (shared-memory passes)", b.Name, TunableShared, shared)
	}
	row, col, ok := b.Filter.Separable()
	if !ok {
		return &convolve.CapabilityError{Variant: b.Name, What: "non-separable filter", Value: b.Filter.Name}
	}
	if err := b.CheckConstant(len(row) + len(col)); err != nil {
		return err
	}
	in := b.Problem.Input
	rowShared, colShared := 0, 0
	rowName, colName := "sep_rows", "sep_cols"
	if shared == 1 {
		rowShared = b.Block.Y * (b.Block.X + len(row) - 1) * 4
		colShared = (b.Block.Y + len(col) - 1) * b.Block.X * 4
		if err := b.CheckShared(max(rowShared, colShared)); err != nil {
			return err
		}
		rowName, colName = "sep_rows_shared", "sep_cols_shared"
	}
	tmp, err := b.Alloc(int64(in.Width) * int64(in.Height) * int64(in.Channels) * 4)
	if err != nil {
		return fmt.Errorf("intermediate: %w", err)
	}
	mod, err := b.Compile("separable", nil)
	if err != nil {
		return err
	}
	rowFn, err := b.Function(mod, rowName, rowShared)
	if err != nil {
		return err
	}
	colFn, err := b.Function(mod, colName, colShared)
	if err != nil {
		return err
	}
	if err := b.SetConstant(mod, "c_row", row); err != nil {
		return err
	}
	if err := b.SetConstant(mod, "c_col", col); err != nil {
		return err
	}
	grid, block := b.Grid()
	w, h := b.Dims()
	b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
		if err := x.Launch(rowFn, grid, block, rowShared, s, b.In, tmp, w, h, b.Stride()); err != nil {
			return err
		}
		return x.Launch(colFn, grid, block, colShared, s, tmp, b.Out, w, h)
	}
	return nil
}
