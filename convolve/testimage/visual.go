package testimage

import (
	"fmt"
	"math"

	"github.com/convbench/convbench/convolve"
)

// ToUint8Clamp converts an image to a packed, interleaved u8 image,
// rounding each value to nearest and clamping it to 0..255 (NaN is 0).
func ToUint8Clamp(im *convolve.Image) (*convolve.Image, error) {
	return toUint8(im, convolve.SaturateUint8)
}

// ToUint8Normalize maps the range of an image's values, over all
// channels, linearly onto 0..255; with abs it maps |v| from 0..max|v|.
// NaN and infinities are left out of the range; NaN maps to 0, +Inf to
// 255 and -Inf to 0 (abs: 255). A constant image maps to 0.
func ToUint8Normalize(im *convolve.Image, abs bool) (*convolve.Image, error) {
	if err := im.Check(); err != nil {
		return nil, fmt.Errorf("testimage: %w", err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	if abs {
		lo = 0
	}
	forEach(im.Geometry, func(x, y, c int) {
		v := im.At(x, y, c)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if abs {
			v = math.Abs(v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	})
	scale := 0.0
	if hi > lo {
		scale = 255 / (hi - lo)
	}
	return toUint8(im, func(v float64) uint8 {
		if abs {
			v = math.Abs(v)
		}
		if math.IsInf(v, 1) {
			return 255
		}
		return convolve.SaturateUint8((v - lo) * scale) // NaN and -Inf give 0
	})
}

func toUint8(im *convolve.Image, conv func(float64) uint8) (*convolve.Image, error) {
	if err := im.Check(); err != nil {
		return nil, fmt.Errorf("testimage: %w", err)
	}
	out, err := convolve.NewImage(convolve.Geometry{Width: im.Width, Height: im.Height, Channels: im.Channels, Type: convolve.Uint8})
	if err != nil {
		return nil, err
	}
	i := 0
	forEach(im.Geometry, func(x, y, c int) {
		out.U8[i] = conv(im.At(x, y, c))
		i++
	})
	return out, nil
}
