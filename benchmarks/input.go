package benchmarks

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
)

// NewInput allocates the input image of p and fills every element with
// deterministic noise from seed: 0..255 for u8, -2048..2047 for i16 and
// [-1, 1) for f32. The reports benchmark on random images with a fixed
// seed; this generator is a splitmix64 stream so that even the largest
// cases (3e9 elements) fill in seconds.
func NewInput(p convolve.Problem, seed uint64) (*convolve.Image, error) {
	im, err := convolve.NewImage(p.Input)
	if err != nil {
		return nil, fmt.Errorf("benchmarks: input of %v: %w", p, err)
	}
	s := seed
	next := func() uint64 {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	switch im.Type {
	case convolve.Uint8:
		for i := 0; i < len(im.U8); i += 8 {
			r := next()
			for j := 0; j < 8 && i+j < len(im.U8); j++ {
				im.U8[i+j] = uint8(r >> (8 * j))
			}
		}
	case convolve.Int16:
		for i := 0; i < len(im.I16); i += 4 {
			r := next()
			for j := 0; j < 4 && i+j < len(im.I16); j++ {
				im.I16[i+j] = int16(r>>(16*j)&0xfff) - 2048
			}
		}
	default:
		for i := 0; i < len(im.F32); i += 2 {
			r := next()
			for j := 0; j < 2 && i+j < len(im.F32); j++ {
				// 24 random bits scaled to [-1, 1).
				im.F32[i+j] = float32(int32(r>>(32*j)&0xffffff)-(1<<23)) / (1 << 23)
			}
		}
	}
	return im, nil
}
