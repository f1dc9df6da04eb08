// Package imagetest makes and compares images for the tests of the variants.
package imagetest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/convbench/convbench/convolve"
)

// Values says what Random draws.
type Values int

const (
	Mixed     Values = iota // float32 normal scaled by 100; the whole uint8 and int16 ranges
	NonZero                 // float32 of magnitude in [1/64, 100], either sign; no zero uint8 or int16
	NonFinite               // Mixed with about one float32 in 50 NaN or an infinity
)

// Random allocates an image of geometry g and fills every element, row
// padding included, with values drawn from r as v says. It panics on an
// invalid geometry.
func Random(r *rand.Rand, g convolve.Geometry, v Values) *convolve.Image {
	im, err := convolve.NewImage(g)
	if err != nil {
		panic(fmt.Sprintf("imagetest.Random: %v", err))
	}
	for i := range im.F32 {
		im.F32[i] = float32(r.NormFloat64() * 100)
		switch v {
		case NonZero:
			im.F32[i] = Weight(r) * float32(1+r.IntN(100))
		case NonFinite:
			switch r.IntN(50) {
			case 0:
				im.F32[i] = float32(math.NaN())
			case 1:
				im.F32[i] = float32(math.Inf(1 - 2*r.IntN(2)))
			}
		}
	}
	for i := range im.U8 {
		im.U8[i] = uint8(r.IntN(256))
		if v == NonZero && im.U8[i] == 0 {
			im.U8[i] = 1
		}
	}
	for i := range im.I16 {
		im.I16[i] = int16(r.IntN(1<<16) - 1<<15)
		if v == NonZero && im.I16[i] == 0 {
			im.I16[i] = 1
		}
	}
	return im
}

// Weight returns a float32 of magnitude in [1/64, 1] and either sign
// drawn from r.
func Weight(r *rand.Rand) float32 {
	w := float32(1.0/64 + r.Float64()*(1-1.0/64))
	if r.IntN(2) == 0 {
		w = -w
	}
	return w
}

// RandomFilter returns a kw x kh filter of weights drawn from r (Weight).
func RandomFilter(r *rand.Rand, kw, kh int) *convolve.Filter {
	w := make([]float32, kw*kh)
	for i := range w {
		w[i] = Weight(r)
	}
	return &convolve.Filter{Name: fmt.Sprintf("random%dx%d", kw, kh), Width: kw, Height: kh, Weights: w}
}

// SeparableFilter returns the kw x kh outer product of a column and a row
// of weights drawn from r (Weight), each product rounded to float32.
func SeparableFilter(r *rand.Rand, kw, kh int) *convolve.Filter {
	row, col := make([]float64, kw), make([]float64, kh)
	for i := range row {
		row[i] = float64(Weight(r))
	}
	for j := range col {
		col[j] = float64(Weight(r))
	}
	w := make([]float32, kw*kh)
	for j := range col {
		for i := range row {
			w[j*kw+i] = float32(col[j] * row[i])
		}
	}
	return &convolve.Filter{Name: fmt.Sprintf("separable%dx%d", kw, kh), Width: kw, Height: kh, Weights: w}
}

// PoisonF32 is the float32 Poison writes: a quiet NaN with a payload no
// arithmetic produces.
var PoisonF32 = math.Float32frombits(0x7fc0dead)

// Poison fills every element of im, row padding included, with a value
// no plan computes (PoisonF32, 0xa5 for uint8, -0x5a5b for int16).
func Poison(im *convolve.Image) {
	for i := range im.F32 {
		im.F32[i] = PoisonF32
	}
	for i := range im.U8 {
		im.U8[i] = 0xa5
	}
	for i := range im.I16 {
		im.I16[i] = -0x5a5b
	}
}

// BitDiff compares the pixels of got and want (row padding aside) bit for
// bit and describes the first that differs, or returns nil.
func BitDiff(got, want *convolve.Image) error {
	if got.Width != want.Width || got.Height != want.Height || got.Channels != want.Channels || got.Type != want.Type {
		return fmt.Errorf("got a %dx%dx%d %v image, want %dx%dx%d %v",
			got.Width, got.Height, got.Channels, got.Type, want.Width, want.Height, want.Channels, want.Type)
	}
	for y := range want.Height {
		for c := range want.Channels {
			for x := range want.Width {
				g, w := got.At(x, y, c), want.At(x, y, c)
				if math.Float64bits(g) != math.Float64bits(w) {
					return fmt.Errorf("(x=%d, y=%d, c=%d): got %v (%#x), want %v (%#x)",
						x, y, c, g, math.Float64bits(g), w, math.Float64bits(w))
				}
			}
		}
	}
	return nil
}
