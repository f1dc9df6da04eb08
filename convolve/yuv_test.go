package convolve

import "testing"

func TestRGBToYUVPixel(t *testing.T) {
	// Worked by hand from the formula in yuv.go; >> floors negative sums.
	//  red:   Y = (66*255+128)>>8 + 16 = 16958>>8 + 16 = 66+16 = 82
	//         U = (-38*255+128)>>8 + 128 = -9562>>8 + 128 = -38+128 = 90
	//         V = (112*255+128)>>8 + 128 = 28688>>8 + 128 = 112+128 = 240
	//  green: Y = 33023>>8 + 16 = 144; U = -18742>>8 + 128 = 54; V = -23842>>8 + 128 = 34
	//  blue:  Y = 6503>>8 + 16 = 41;   U = 28688>>8 + 128 = 240; V = -4462>>8 + 128 = 110
	//  white: Y = (220*255+128)>>8 + 16 = 56228>>8 + 16 = 235; U and V sum to 0 + 128 -> 128
	//  black: Y = 128>>8 + 16 = 16; U = V = 128
	tests := []struct {
		name    string
		r, g, b uint8
		y, u, v uint8
	}{
		{"black", 0, 0, 0, 16, 128, 128},
		{"white", 255, 255, 255, 235, 128, 128},
		{"red", 255, 0, 0, 82, 90, 240},
		{"green", 0, 255, 0, 144, 54, 34},
		{"blue", 0, 0, 255, 41, 240, 110},
	}
	for _, tc := range tests {
		y, u, v := RGBToYUVPixel(tc.r, tc.g, tc.b)
		if y != tc.y || u != tc.u || v != tc.v {
			t.Errorf("%s: got (%d,%d,%d), want (%d,%d,%d)", tc.name, y, u, v, tc.y, tc.u, tc.v)
		}
	}
}

func TestRGBToYUVGray(t *testing.T) {
	// Gray has no chroma: the U and V coefficients each sum to 0, so U and
	// V are (128>>8)+128 = 128, and Y rises with the level from 16 to 235.
	prev := uint8(0)
	for i := 0; i < 256; i++ {
		l := uint8(i)
		y, u, v := RGBToYUVPixel(l, l, l)
		if u != 128 || v != 128 {
			t.Fatalf("gray %d: U, V = %d, %d, want 128", i, u, v)
		}
		if y < prev || y < 16 || y > 235 {
			t.Fatalf("gray %d: Y = %d after %d", i, y, prev)
		}
		prev = y
	}
}
