package convolve

import "math"

// Separable reports whether f is rank one, f(i,j) = col[j]*row[i], with
// every weight reproduced within 1e-6 of the largest |weight|, and returns
// the factors. A filter with a NaN or infinite weight is not separable.
func (f *Filter) Separable() (row, col []float32, ok bool) {
	if f == nil || len(f.Weights) != f.Width*f.Height || len(f.Weights) == 0 || f.CheckFinite() != nil {
		return nil, nil, false
	}
	// Pivot on the largest weight: its row and column carry the factors.
	pi, pj, pv := 0, 0, 0.0
	for j := 0; j < f.Height; j++ {
		for i := 0; i < f.Width; i++ {
			if a := math.Abs(float64(f.At(i, j))); a > pv {
				pi, pj, pv = i, j, a
			}
		}
	}
	if pv == 0 {
		return nil, nil, false // the zero filter has rank 0
	}
	p := float64(f.At(pi, pj))
	r := make([]float64, f.Width)
	c := make([]float64, f.Height)
	for i := range r {
		r[i] = float64(f.At(i, pj))
	}
	for j := range c {
		c[j] = float64(f.At(pi, j)) / p
	}
	tol := 1e-6 * pv
	for j := 0; j < f.Height; j++ {
		for i := 0; i < f.Width; i++ {
			if math.Abs(c[j]*r[i]-float64(f.At(i, j))) > tol {
				return nil, nil, false
			}
		}
	}
	row = make([]float32, f.Width)
	col = make([]float32, f.Height)
	for i := range r {
		row[i] = float32(r[i])
	}
	for j := range c {
		col[j] = float32(c[j])
	}
	return row, col, true
}

// FilterKind tells filters apart by whether their weights are rank one.
type FilterKind string

// The filter kinds.
const (
	DenseFilter     FilterKind = "dense"     // not rank one
	SeparableFilter FilterKind = "separable" // rank one (Filter.Separable)
)

// Kind is SeparableFilter when f is Separable, DenseFilter otherwise.
func (f *Filter) Kind() FilterKind {
	if _, _, ok := f.Separable(); ok {
		return SeparableFilter
	}
	return DenseFilter
}
