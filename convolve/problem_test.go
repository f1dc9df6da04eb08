package convolve

import (
	"errors"
	"strings"
	"testing"
)

// TestProblemValidateSize checks that a problem is refused when its input
// or the output it implies is over MaxImageBytes, and that the error says
// which image and how many bytes.
func TestProblemValidateSize(t *testing.T) {
	box, err := Box(3)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   Geometry
		op   Operation
		want string // "" for a valid problem
	}{
		{"2^20 square input", Geometry{Width: 1 << 20, Height: 1 << 20, Channels: 1, Type: Uint8}, Filter2D, "1099511627776 bytes"},
		// 8 GiB of u8 input is within the limit, its 32 GiB f32 output
		// is not.
		{"f32 output of u8 input", Geometry{Width: 1 << 17, Height: 1 << 16, Channels: 1, Type: Uint8}, Filter2D, "convolve: filter2d of a 131072x65536x1 u8 interleaved stride 131072 image: output: image 131072x65536x1 f32 interleaved stride 131072: 34359738368 bytes"},
		{"sobel output of i16 input", Geometry{Width: 1 << 16, Height: 1 << 16, Channels: 2, Type: Int16, Stride: 1 << 17}, SobelMagnitude, "output"},
		{"u8 input, output at the limit", Geometry{Width: 1 << 16, Height: 1 << 16, Channels: 1, Type: Uint8}, Filter2D, ""},
		{"rgb2yuv keeps u8", Geometry{Width: 1 << 16, Height: 1 << 16, Channels: 3, Type: Uint8}, RGBToYUV, ""},
	}
	for _, tc := range tests {
		p := Problem{Op: tc.op, Input: tc.in, Filter: box}
		err := p.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestSizeErrorTyped checks that every way to meet an image over
// MaxImageBytes returns a *SizeError that gives the image and its size.
func TestSizeErrorTyped(t *testing.T) {
	box, err := Box(3)
	if err != nil {
		t.Fatal(err)
	}
	big := Geometry{Width: 1 << 20, Height: 1 << 20, Channels: 1, Type: Uint8}
	u8ToF32 := Geometry{Width: 1 << 17, Height: 1 << 16, Channels: 1, Type: Uint8}
	tests := []struct {
		name  string
		err   func() error
		geom  Geometry
		bytes string
	}{
		{"Geometry.Validate", big.Validate, big, "1099511627776"},
		{"NewImage", func() error { _, err := NewImage(big); return err }, big, "1099511627776"},
		{"Problem.Validate input", Problem{Op: Filter2D, Input: big, Filter: box}.Validate, big, "1099511627776"},
		{"Problem.Validate output", Problem{Op: Filter2D, Input: u8ToF32, Filter: box}.Validate,
			Geometry{Width: 1 << 17, Height: 1 << 16, Channels: 1, Type: Float32}, "34359738368"},
	}
	for _, tc := range tests {
		err := tc.err()
		var se *SizeError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v (%T), want a *SizeError", tc.name, err, err)
			continue
		}
		if se.Geometry != tc.geom || se.Bytes.String() != tc.bytes || se.Limit != MaxImageBytes {
			t.Errorf("%s: SizeError{%v, %v, %d}, want {%v, %s, %d}", tc.name, se.Geometry, se.Bytes, se.Limit, tc.geom, tc.bytes, MaxImageBytes)
		}
	}
}
