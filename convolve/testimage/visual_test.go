package testimage

import (
	"bytes"
	"math"
	"testing"

	"github.com/convbench/convbench/convolve"
)

func f32(t *testing.T, w, h, c int, v ...float32) *convolve.Image {
	t.Helper()
	im, err := convolve.WrapFloat32(geom(w, h, c, convolve.Float32), v)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

func TestToUint8Clamp(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	im := f32(t, 7, 1, 1, -5, 0.4, 0.5, 127.5, 300, nan, inf)
	out, err := ToUint8Clamp(im)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint8{0, 0, 1, 128, 255, 0, 255}; !bytes.Equal(out.U8, want) {
		t.Errorf("got %v, want %v", out.U8, want)
	}
	// i16 input, planar with stride: packed interleaved u8 output.
	g := geom(2, 1, 2, convolve.Int16)
	g.Layout, g.Stride = convolve.Planar, 3
	s, _ := convolve.NewImage(g)
	s.Set(0, 0, 0, -7)
	s.Set(1, 0, 0, 1000)
	s.Set(0, 0, 1, 12)
	s.Set(1, 0, 1, 255)
	out, _ = ToUint8Clamp(s)
	if want := []uint8{0, 12, 255, 255}; !bytes.Equal(out.U8, want) || out.Layout != convolve.Interleaved || out.Stride != 0 {
		t.Errorf("i16 planar: %v %v, want %v", out.Geometry, out.U8, want)
	}
}

func TestToUint8Normalize(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name string
		in   []float32
		abs  bool
		want []uint8
	}{
		// -2..2 onto 0..255: 0 -> 127.5 -> 128.
		{"signed", []float32{-2, 0, 2, 1}, false, []uint8{0, 128, 255, 191}},
		// |v| from 0..2: 2 -> 255, 1 -> 127.5 -> 128.
		{"abs", []float32{-2, 0, 1, 2}, true, []uint8{255, 0, 128, 255}},
		// abs keeps 0 at black even when the smallest |v| is larger.
		{"abs offset", []float32{1, 2, -1, 2}, true, []uint8{128, 255, 128, 255}},
		{"shifted", []float32{10, 20, 15, 20}, false, []uint8{0, 255, 128, 255}},
		{"constant", []float32{3, 3, 3, 3}, false, []uint8{0, 0, 0, 0}},
		{"special", []float32{nan, float32(math.Inf(-1)), 0, 1}, false, []uint8{0, 0, 0, 255}},
		{"special abs", []float32{nan, float32(math.Inf(-1)), 0, 4}, true, []uint8{0, 255, 0, 255}},
	}
	for _, tc := range tests {
		out, err := ToUint8Normalize(f32(t, 2, 2, 1, tc.in...), tc.abs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.U8, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, out.U8, tc.want)
		}
	}
	// One range for all channels: channel 1 spans only part of it.
	out, _ := ToUint8Normalize(f32(t, 2, 1, 2, 0, 1, 4, 2), false)
	if want := []uint8{0, 64, 255, 128}; !bytes.Equal(out.U8, want) || out.Channels != 2 {
		t.Errorf("two channels: %v, want %v", out.U8, want)
	}
	if _, err := ToUint8Normalize(nil, false); err == nil {
		t.Error("nil image accepted")
	}
	if _, err := ToUint8Clamp(&convolve.Image{Geometry: geom(2, 2, 1, convolve.Float32)}); err == nil {
		t.Error("image without data accepted")
	}
}
