package convolve

import (
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
		{"f32 output of u8 input", Geometry{Width: 1 << 17, Height: 1 << 16, Channels: 1, Type: Uint8}, Filter2D, "output: convolve: image 131072x65536x1 f32 interleaved stride 131072: 34359738368 bytes"},
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
