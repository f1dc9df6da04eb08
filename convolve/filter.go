package convolve

import (
	"fmt"
	"math"
	"slices"
)

// MaxFilterSide bounds KW and KH of any filter.
const MaxFilterSide = 1023

// Filter is a KW x KH array of float32 weights, row-major, with odd sides.
// The anchor is the centre (KW/2, KH/2).
type Filter struct {
	Name    string
	Width   int       // KW, odd
	Height  int       // KH, odd
	Weights []float32 // Height rows of Width weights
}

// NewFilter validates and builds a filter; the weights are copied.
func NewFilter(name string, width, height int, weights []float32) (*Filter, error) {
	f := &Filter{Name: name, Width: width, Height: height, Weights: slices.Clone(weights)}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// Validate checks the sizes and the number of weights and names the first
// bad value. Weights may be NaN or infinite.
func (f *Filter) Validate() error {
	if f == nil {
		return fmt.Errorf("convolve: nil filter")
	}
	if f.Width < 1 || f.Width%2 == 0 || f.Width > MaxFilterSide {
		return fmt.Errorf("convolve: filter %q width %d: must be odd, 1 to %d", f.Name, f.Width, MaxFilterSide)
	}
	if f.Height < 1 || f.Height%2 == 0 || f.Height > MaxFilterSide {
		return fmt.Errorf("convolve: filter %q height %d: must be odd, 1 to %d", f.Name, f.Height, MaxFilterSide)
	}
	if len(f.Weights) != f.Width*f.Height {
		return fmt.Errorf("convolve: filter %q has %d weights, want %dx%d=%d", f.Name, len(f.Weights), f.Width, f.Height, f.Width*f.Height)
	}
	return nil
}

// CheckFinite returns a *NonFiniteError naming the first NaN or infinite
// weight of f, or nil when every weight is finite.
func (f *Filter) CheckFinite() error {
	for i, w := range f.Weights {
		if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
			return &NonFiniteError{What: fmt.Sprintf("filter %q weight %d (row %d, col %d)", f.Name, i, i/f.Width, i%f.Width), Value: float64(w)}
		}
	}
	return nil
}

// Clone returns a deep copy of f.
func (f *Filter) Clone() *Filter {
	if f == nil {
		return nil
	}
	c := *f
	c.Weights = append([]float32(nil), f.Weights...)
	return &c
}

// At returns the weight in row j, column i.
func (f *Filter) At(i, j int) float32 { return f.Weights[j*f.Width+i] }

// Taps is KW*KH.
func (f *Filter) Taps() int { return f.Width * f.Height }

// Flipped returns the filter rotated by 180 degrees: running Correlate with
// it equals running Convolve with f.
func (f *Filter) Flipped() *Filter {
	w := slices.Clone(f.Weights)
	slices.Reverse(w)
	return &Filter{Name: f.Name + "-flipped", Width: f.Width, Height: f.Height, Weights: w}
}

// Oriented returns the weights correlation applies for mode m: f for
// Correlate, f.Flipped() for Convolve.
func (f *Filter) Oriented(m Mode) *Filter {
	if m == Convolve {
		return f.Flipped()
	}
	return f
}

func (f *Filter) String() string {
	return fmt.Sprintf("%s %dx%d", f.Name, f.Width, f.Height)
}
