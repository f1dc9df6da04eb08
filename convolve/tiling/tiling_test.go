package tiling_test

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/tiling"
)

func TestDefaultRY(t *testing.T) {
	box := func(kw, kh int) *convolve.Filter {
		f, err := convolve.NewFilter("box", kw, kh, make([]float32, kw*kh))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	prob := func(w, h, kw, kh int) convolve.Problem {
		return convolve.Problem{Op: convolve.Filter2D, Filter: box(kw, kh),
			Input: convolve.Geometry{Width: w, Height: h, Channels: 1, Type: convolve.Float32}}
	}
	b32x8 := convolve.Block{X: 32, Y: 8}
	const h100 = 132
	tests := []struct {
		name  string
		p     convolve.Problem
		block convolve.Block
		sms   int
		want  int
	}{
		{"2048 3x3", prob(2048, 2048, 3, 3), b32x8, h100, 8}, // 64x32 = 2048 blocks at ry=8
		{"4096 7x7", prob(4096, 4096, 7, 7), b32x8, h100, 8},
		{"1024 5x5: 512 blocks at ry=8", prob(1024, 1024, 5, 5), b32x8, h100, 4},
		{"1024 5x5 on 40 SMs", prob(1024, 1024, 5, 5), b32x8, 40, 8},
		{"256 5x5", prob(256, 256, 5, 5), b32x8, h100, 4},
		{"2048 9x9", prob(2048, 2048, 9, 9), b32x8, h100, 4},
		{"2048 15x15", prob(2048, 2048, 15, 15), b32x8, h100, 4},
		{"2048 23x23", prob(2048, 2048, 23, 23), b32x8, h100, 4},
		{"2048 31x31: body 28*31*4 = 3472", prob(2048, 2048, 31, 31), b32x8, h100, 4},
		{"2048 33x33: body 30*33*4 = 3960", prob(2048, 2048, 33, 33), b32x8, h100, 4},
		{"2048 35x35: ry=4 body 4256, ry=2 2380", prob(2048, 2048, 35, 35), b32x8, h100, 2},
		{"2048 63x63: ry=1 body 3969", prob(2048, 2048, 63, 63), b32x8, h100, 1},
		{"2048 101x101", prob(2048, 2048, 101, 101), b32x8, h100, 1},
		{"2048 125x1", prob(2048, 2048, 125, 1), b32x8, h100, 4},
		{"2048 1x125", prob(2048, 2048, 1, 125), b32x8, h100, 4},
	}
	for _, tt := range tests {
		got := tiling.DefaultRY(tt.p, tt.block, tt.sms)
		if got != tt.want {
			t.Errorf("%s: DefaultRY = %d, want %d", tt.name, got, tt.want)
		}
		kw, kh := tt.p.Filter.Width, tt.p.Filter.Height
		if got > 1 && !tiling.Unrolled(kw, kh, got) {
			t.Errorf("%s: ry=%d leaves the row walk rolled", tt.name, got)
		}
	}
}
