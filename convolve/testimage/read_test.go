package testimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/convbench/convbench/convolve"
)

// encoded returns what enc writes of m.
func encoded(t *testing.T, enc func(io.Writer, image.Image) error, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := enc(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// written returns what write writes of im.
func written(t *testing.T, write func(io.Writer, *convolve.Image) error, im *convolve.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, im); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gifClaiming is a small GIF whose logical screen is rewritten to w x h.
func gifClaiming(t *testing.T, w, h uint16) []byte {
	t.Helper()
	b := encoded(t, func(w io.Writer, m image.Image) error { return gif.Encode(w, m, nil) }, image.NewGray(image.Rect(0, 0, 3, 2)))
	binary.LittleEndian.PutUint16(b[6:], w)
	binary.LittleEndian.PutUint16(b[8:], h)
	return b
}

func TestReadImage(t *testing.T) {
	gray := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(gray.Pix, []uint8{0, 50, 100, 150, 200, 250})
	nrgba := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	copy(nrgba.Pix, []uint8{1, 2, 3, 4, 5, 6, 7, 8})
	u8, _ := Noise(geom(4, 3, 1, convolve.Uint8), 1)
	rgb, _ := Noise(geom(4, 3, 3, convolve.Uint8), 2)
	f32, _ := Noise(geom(5, 2, 2, convolve.Float32), 3)
	pngEnc := func(w io.Writer, m image.Image) error { return png.Encode(w, m) }
	tiffEnc := func(w io.Writer, m image.Image) error { return tiff.Encode(w, m, nil) }
	jpegEnc := func(w io.Writer, m image.Image) error { return jpeg.Encode(w, m, nil) }
	gifEnc := func(w io.Writer, m image.Image) error { return gif.Encode(w, m, nil) }

	tests := []struct {
		name   string
		data   []byte
		format string
		g      convolve.Geometry
		want   []uint8 // the u8 pixels, where the format keeps them exactly
	}{
		{"PNG gray", encoded(t, pngEnc, gray), "png", geom(3, 2, 1, convolve.Uint8), gray.Pix},
		{"PNG RGBA", encoded(t, pngEnc, nrgba), "png", geom(2, 1, 4, convolve.Uint8), nrgba.Pix},
		{"TIFF of x/image/tiff", encoded(t, tiffEnc, gray), "tiff", geom(3, 2, 1, convolve.Uint8), gray.Pix},
		{"TIFF of WriteTIFF, u8", written(t, WriteTIFF, u8), "tiff", u8.Geometry, u8.U8},
		{"TIFF of WriteTIFF, 2-channel f32", written(t, WriteTIFF, f32), "tiff", f32.Geometry, nil},
		{"PGM", written(t, WritePGM, u8), "pgm", u8.Geometry, u8.U8},
		{"PPM", written(t, WritePPM, rgb), "ppm", rgb.Geometry, rgb.U8},
		{"JPEG, registered by image/jpeg", encoded(t, jpegEnc, gray), "jpeg", geom(3, 2, 1, convolve.Uint8), nil},
		{"GIF, registered by image/gif", encoded(t, gifEnc, gray), "gif", geom(3, 2, 3, convolve.Uint8), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			im, format, err := ReadImage(bytes.NewReader(tc.data))
			if err != nil {
				t.Fatalf("ReadImage: %v", err)
			}
			if format != tc.format || im.Geometry != tc.g {
				t.Errorf("ReadImage = %v, %q; want %v, %q", im.Geometry, format, tc.g, tc.format)
			}
			if tc.want != nil && !bytes.Equal(im.U8, tc.want) {
				t.Errorf("pixels %v, want %v", im.U8, tc.want)
			}
			if tc.g.Type == convolve.Float32 {
				if x, y, c, ok := samePixels(im, f32); !ok {
					t.Errorf("pixel (%d, %d, %d) differs from what was written", x, y, c)
				}
			}
		})
	}
}

// TestReadImageRefusesFromHeader: a header that claims a large image is
// refused before the pixels are decoded, with a *TooLargeError over
// MaxPixels and a *convolve.SizeError over convolve.MaxImageBytes.
func TestReadImageRefusesFromHeader(t *testing.T) {
	tests := []struct {
		name      string
		maxPixels int64
		data      []byte
		format    string
		tooLarge  bool // a *TooLargeError; else a *convolve.SizeError
	}{
		{"PNG over MaxPixels", DefaultMaxPixels, hugePNG(), "png", true},
		{"TIFF over MaxPixels", DefaultMaxPixels, tiffClaiming(t, 65535, 65535), "tiff", true},
		{"PGM over MaxPixels", DefaultMaxPixels, []byte("P5\n65535 65535\n255\n"), "pgm", true},
		{"GIF over MaxPixels", DefaultMaxPixels, gifClaiming(t, 65535, 65535), "gif", true},
		// With MaxPixels out of the way, MaxImageBytes (16 GiB) refuses:
		// 2^20 x 2^20 RGBA is 4 TiB, which a decoder trusting the header
		// would try to allocate.
		{"PNG over MaxImageBytes", 1 << 62, pngHeader(1<<20, 1<<20, 8, 6), "png", false},
		{"TIFF over MaxImageBytes", 1 << 62, tiffClaiming(t, 1<<20, 1<<20), "tiff", false},
		{"PGM over MaxImageBytes", 1 << 62, []byte("P5\n1048576 1048576\n255\n"), "pgm", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func(old int64) { MaxPixels = old }(MaxPixels)
			MaxPixels = tc.maxPixels
			im, format, err := ReadImage(bytes.NewReader(tc.data))
			if err == nil {
				t.Fatalf("ReadImage = %v, %q, nil; want an error", im.Geometry, format)
			}
			if format != tc.format {
				t.Errorf("format %q, want %q", format, tc.format)
			}
			var tl *TooLargeError
			var se *convolve.SizeError
			switch {
			case tc.tooLarge && !errors.As(err, &tl):
				t.Errorf("error %v: want a *TooLargeError", err)
			case !tc.tooLarge && !errors.As(err, &se):
				t.Errorf("error %v: want a *convolve.SizeError", err)
			case !tc.tooLarge && se.Bytes.Int64() <= convolve.MaxImageBytes:
				t.Errorf("SizeError of %v bytes, within the limit", se.Bytes)
			}
		})
	}
}

func TestReadImageUnknownFormat(t *testing.T) {
	tests := []struct {
		name, data, shown string
	}{
		{"text", "hello, world", `"hello, w"`},
		{"short", "BM", `"BM"`},
		{"empty", "", `""`},
		{"ASCII PGM", "P2\n1 1\n255\n0\n", `"P2\n1 1\n2"`},
		{"TIFF magic in the wrong byte order", "IM*\x00\x08\x00\x00\x00", `"IM*\x00\b\x00\x00\x00"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			im, format, err := ReadImage(strings.NewReader(tc.data))
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("ReadImage = %v, %q, %v; want an error wrapping ErrFormat", im, format, err)
			}
			if format != "" || !strings.Contains(err.Error(), tc.shown) {
				t.Errorf("format %q, error %q; want no format and an error showing %s", format, err, tc.shown)
			}
		})
	}
}

// TestReadImageBadData: data that starts as a known format but is not one
// is that format's error, under its name.
func TestReadImageBadData(t *testing.T) {
	tests := []struct {
		name, data, format, want string
	}{
		{"PNG", "\x89PNG\r\n\x1a\nrest", "png", "testimage: PNG: "},
		{"TIFF", "II*\x00\xff\xff\xff\xff", "tiff", "testimage: TIFF: "},
		{"PGM", "P5\n4 4\n65535\n", "pgm", "testimage: P5 maxval 65535"},
		{"GIF", "GIF89a\x01", "gif", "testimage: GIF: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, format, err := ReadImage(strings.NewReader(tc.data))
			if err == nil || format != tc.format || !strings.HasPrefix(err.Error(), tc.want) || errors.Is(err, ErrFormat) {
				t.Errorf("ReadImage = %q, %v; want %q and an error starting %q", format, err, tc.format, tc.want)
			}
		})
	}
}

// TestModelChannels: modelChannels agrees with the channels of the image
// decoded from a header of that model.
func TestModelChannels(t *testing.T) {
	opaque := color.Palette{color.Black, color.White}
	clear := color.Palette{color.Black, color.Transparent}
	tests := []struct {
		m    color.Model
		want int
	}{
		{color.GrayModel, 1},
		{color.Gray16Model, 1},
		{color.RGBAModel, 3},
		{color.YCbCrModel, 3},
		{color.NRGBAModel, 4},
		{color.NRGBA64Model, 4},
		{opaque, 3},
		{clear, 4},
	}
	for _, tc := range tests {
		if got := modelChannels(tc.m); got != tc.want {
			t.Errorf("modelChannels(%T %v) = %d, want %d", tc.m, tc.m, got, tc.want)
		}
	}
}
