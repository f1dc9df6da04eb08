// Package testimage makes the images the tests and benchmarks run on and
// moves them to and from files.
//
// Generators are deterministic: the same geometry and seed give the same
// pixels on every platform, in every layout and row stride. Float32 images
// hold values in [0, 1] (noise in [-1, 1)), Uint8 0..255, Int16 0..32767
// (noise over all of int16).
//
// Files: PNG, binary PGM/PPM and TIFF. ReadImage tells them, and formats
// registered with the image package, by their first bytes. Every reader
// refuses an image over MaxPixels (*TooLargeError) or
// convolve.MaxImageBytes (*convolve.SizeError) from its header, before it
// allocates.
package testimage

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/convbench/convbench/convolve"
)

// pcgStream is the second word of the PCG seed.
const pcgStream = 0x636f6e7662656e63 // "convbenc"

// newImage validates g and allocates a zeroed image.
func newImage(g convolve.Geometry) (*convolve.Image, error) {
	im, err := convolve.NewImage(g)
	if err != nil {
		return nil, fmt.Errorf("testimage: %w", err)
	}
	return im, nil
}

// Noise returns uniform random noise: Float32 in [-1, 1) (multiples of
// 2^-23), Uint8 over 0..255, Int16 over -32768..32767. Values are the top
// bits of a PCG generator's outputs, drawn in the order y, x, c, so they
// do not change with the Go version.
func Noise(g convolve.Geometry, seed int64) (*convolve.Image, error) {
	im, err := newImage(g)
	if err != nil {
		return nil, err
	}
	src := rand.NewPCG(uint64(seed), pcgStream)
	forEach(g, func(x, y, c int) {
		r := src.Uint64()
		i := im.Offset(x, y, c)
		switch g.Type {
		case convolve.Float32:
			im.F32[i] = float32(int32(r>>40)-(1<<23)) / (1 << 23)
		case convolve.Uint8:
			im.U8[i] = uint8(r >> 56)
		case convolve.Int16:
			im.I16[i] = int16(uint16(r >> 48))
		}
	})
	return im, nil
}

// forEach calls f for every sample of g, in the order y, x, c.
func forEach(g convolve.Geometry, f func(x, y, c int)) {
	for y := 0; y < g.Height; y++ {
		for x := 0; x < g.Width; x++ {
			for c := 0; c < g.Channels; c++ {
				f(x, y, c)
			}
		}
	}
}

// FullScale is the value of a full-intensity element of type t: 255 for
// u8, 32767 for i16, 1 for f32.
func FullScale(t convolve.ElemType) float64 {
	switch t {
	case convolve.Uint8:
		return 255
	case convolve.Int16:
		return 32767
	}
	return 1
}

// fill sets every pixel of a new image to f(x, y, c) * FullScale.
func fill(g convolve.Geometry, f func(x, y, c int) float64) (*convolve.Image, error) {
	im, err := newImage(g)
	if err != nil {
		return nil, err
	}
	h := FullScale(g.Type)
	forEach(g, func(x, y, c int) { im.Set(x, y, c, f(x, y, c)*h) })
	return im, nil
}

// Gradient returns linear ramps from 0 to FullScale: channel 0 rises from
// the top-left to the bottom-right corner, channel 1 from top-right, 2
// from bottom-left and 3 from bottom-right. A 1x1 image is 0.
func Gradient(g convolve.Geometry) (*convolve.Image, error) {
	span := float64(g.Width - 1 + g.Height - 1)
	return fill(g, func(x, y, c int) float64 {
		if span == 0 {
			return 0
		}
		if c == 1 || c == 3 {
			x = g.Width - 1 - x
		}
		if c >= 2 {
			y = g.Height - 1 - y
		}
		return float64(x+y) / span
	})
}

// Impulse returns an image that is 0 except for a 1 (not FullScale) at
// (x, y) in every channel.
func Impulse(g convolve.Geometry, x, y int) (*convolve.Image, error) {
	im, err := newImage(g)
	if err != nil {
		return nil, err
	}
	if x < 0 || x >= g.Width || y < 0 || y >= g.Height {
		return nil, fmt.Errorf("testimage: impulse at (%d, %d) outside the %dx%d image", x, y, g.Width, g.Height)
	}
	for c := 0; c < g.Channels; c++ {
		im.Set(x, y, c, 1)
	}
	return im, nil
}

// Scene returns a synthetic photograph-like scene for galleries of filter
// outputs: sky and ground, a sun disc, a house, a fan of one-pixel lines,
// a zone plate and rows of glyphs, placed relative to the image size.
// Channels 0..2 are R, G, B; a fourth is an opaque alpha.
func Scene(g convolve.Geometry) (*convolve.Image, error) {
	w, h := float64(g.Width), float64(g.Height)
	s := math.Min(w, h)
	glyph := max(1, int(s/160)) // glyph pixel size
	return fill(g, func(x, y, c int) float64 {
		if c == 3 {
			return 1
		}
		px, py := float64(x)+0.5, float64(y)+0.5
		u, v := px/w, py/h
		// Sky above the horizon, ground below.
		var rgb [3]float64
		if v < 0.6 {
			t := v / 0.6
			rgb = [3]float64{0.35 + 0.4*t, 0.55 + 0.3*t, 0.95 - 0.15*t}
		} else {
			t := (v - 0.6) / 0.4
			rgb = [3]float64{0.35 - 0.2*t + 0.1*u, 0.45 - 0.15*t, 0.2 - 0.1*t}
		}
		// Sun: a disc with a soft two-pixel rim.
		d := math.Hypot(px-0.78*w, py-0.2*h) - 0.1*s
		if a := math.Min(1, math.Max(0, 0.5-d/2)); a > 0 {
			rgb = mix(rgb, [3]float64{1, 0.9, 0.4}, a)
		}
		// House: a rectangle with a triangular roof.
		rx0, rx1, ry0, ry1 := 0.12*w, 0.38*w, 0.45*h, 0.75*h
		if px >= rx0 && px < rx1 && py >= ry0 && py < ry1 {
			rgb = [3]float64{0.8, 0.75, 0.65}
			// Windows with one-pixel frames.
			wx := math.Mod(px-rx0, 0.065*w)
			wy := math.Mod(py-ry0, 0.1*h)
			if wx > 0.02*w && wx < 0.05*w && wy > 0.03*h && wy < 0.07*h {
				rgb = [3]float64{0.2, 0.3, 0.45}
				if wx < 0.02*w+1 || wy < 0.03*h+1 {
					rgb = [3]float64{0.1, 0.1, 0.1}
				}
			}
		}
		if py >= 0.3*h && py < ry0 {
			half := (py - 0.3*h) / (ry0 - 0.3*h) * (rx1 - rx0) * 0.55
			if math.Abs(px-(rx0+rx1)/2) < half {
				rgb = [3]float64{0.6, 0.15, 0.1}
			}
		}
		// Thin lines: a fan of one-pixel lines from the bottom right.
		ox, oy := 0.95*w, 0.98*h
		for k := 0; k < 6; k++ {
			a := math.Pi + 0.15 + 0.12*float64(k)
			dx, dy := math.Cos(a), math.Sin(a)
			along := (px-ox)*dx + (py-oy)*dy
			across := math.Abs(-(px-ox)*dy + (py-oy)*dx)
			if along > 0 && along < 0.4*s && across < 0.5 {
				rgb = [3]float64{0.05, 0.05, 0.05}
			}
		}
		// Zone plate: rings whose frequency rises with the radius.
		zx, zy, zr := 0.55*w, 0.78*h, 0.12*s
		if r := math.Hypot(px-zx, py-zy); r < zr {
			l := 0.5 + 0.5*math.Cos(math.Pi*r*r/(zr*2))
			rgb = [3]float64{l, l, l}
		}
		// Text-like glyph rows in the upper left.
		if ink, ok := textAt(x, y, int(0.05*w), int(0.06*h), glyph, int(0.55*w)); ok {
			if ink {
				rgb = [3]float64{0.02, 0.02, 0.1}
			} else {
				rgb = [3]float64{0.97, 0.97, 0.93}
			}
		}
		return rgb[c%3]
	})
}

func mix(a, b [3]float64, t float64) [3]float64 {
	for i := range a {
		a[i] += (b[i] - a[i]) * t
	}
	return a
}

// font is a 3x5 bitmap font for sceneLines: five rows of three bits, bit
// 2 the left column.
var font = map[byte][5]uint8{
	'C': {7, 4, 4, 4, 7}, 'O': {7, 5, 5, 5, 7}, 'N': {6, 5, 5, 5, 5}, 'V': {5, 5, 5, 5, 2},
	'B': {6, 5, 6, 5, 6}, 'E': {7, 4, 6, 4, 7}, 'H': {5, 5, 7, 5, 5}, 'G': {7, 4, 5, 5, 7},
	'P': {7, 5, 7, 4, 4}, 'U': {5, 5, 5, 5, 7}, 'K': {5, 5, 6, 5, 5}, 'L': {4, 4, 4, 4, 7},
	'D': {6, 5, 5, 5, 6}, 'R': {6, 5, 6, 5, 5},
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 3, 1, 7},
	'4': {5, 5, 7, 1, 1}, '5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1},
	'8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7}, ' ': {0, 0, 0, 0, 0},
}

var sceneLines = []string{"CONVBENCH 2D", "GPU KERNEL 3 5 7", "0123456789"}

// textAt reports whether (x, y) lies in the text box at (x0, y0), of
// glyphs of 3x5 cells of p x p pixels clipped at width maxW, and whether
// it is ink.
func textAt(x, y, x0, y0, p, maxW int) (ink, inBox bool) {
	if x < x0 || y < y0 || x >= x0+maxW {
		return false, false
	}
	col, row := (x-x0)/p, (y-y0)/p
	line := row / 7
	if line >= len(sceneLines) {
		return false, false
	}
	text := sceneLines[line]
	ch, cx, cy := col/4, col%4, row%7
	if ch >= len(text) {
		return false, false
	}
	if cx == 3 || cy >= 5 {
		return false, true // spacing inside the box
	}
	bits := font[text[ch]]
	return bits[cy]&(4>>cx) != 0, true
}
