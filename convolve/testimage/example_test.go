package testimage_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
)

func ExampleNoise() {
	g := convolve.Geometry{Width: 1920, Height: 1080, Channels: 3, Type: convolve.Uint8}
	a, _ := testimage.Noise(g, testimage.DefaultSeed)
	b, _ := testimage.Noise(g, testimage.DefaultSeed)
	fmt.Println(a.Geometry, bytes.Equal(a.U8, b.U8))
	// Output: 1920x1080x3 u8 interleaved stride 5760 true
}

func ExampleCheckerboard() {
	im, _ := testimage.Checkerboard(convolve.Geometry{Width: 6, Height: 2, Channels: 1, Type: convolve.Uint8}, 2)
	fmt.Println(im.U8)
	// Output: [0 0 255 255 0 0 0 0 255 255 0 0]
}

func ExampleImpulse() {
	im, _ := testimage.Impulse(convolve.Geometry{Width: 3, Height: 3, Channels: 1}, 1, 1)
	fmt.Println(im.F32)
	// Output: [0 0 0 0 1 0 0 0 0]
}

func ExampleWritePGM() {
	im, _ := testimage.Gradient(convolve.Geometry{Width: 4, Height: 1, Channels: 1, Type: convolve.Uint8})
	var buf bytes.Buffer
	if err := testimage.WritePGM(&buf, im); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%q\n", buf.String())
	back, _ := testimage.ReadPGM(&buf)
	fmt.Println(back.U8)
	// Output:
	// "P5\n4 1\n255\n\x00U\xaa\xff"
	// [0 85 170 255]
}

func ExampleWriteTIFF() {
	im, _ := testimage.Noise(convolve.Geometry{Width: 64, Height: 64, Channels: 1, Type: convolve.Float32}, 1)
	var buf bytes.Buffer
	testimage.WriteTIFF(&buf, im)
	back, err := testimage.ReadTIFF(&buf)
	fmt.Println(back.Geometry, err, back.F32[0] == im.F32[0])
	// Output: 64x64x1 f32 interleaved stride 64 <nil> true
}

func ExampleToUint8Normalize() {
	// A signed edge response: -2..2 maps onto 0..255, or |v| onto 0..255.
	edges, _ := convolve.WrapFloat32(convolve.Geometry{Width: 3, Height: 1, Channels: 1}, []float32{-2, 0, 2})
	full, _ := testimage.ToUint8Normalize(edges, false)
	mag, _ := testimage.ToUint8Normalize(edges, true)
	fmt.Println(full.U8, mag.U8)
	// Output: [0 128 255] [255 0 255]
}

// A reader refuses a file whose header claims more than MaxPixels pixels
// before it reads or allocates any pixel.
func ExampleTooLargeError() {
	_, err := testimage.ReadPGM(strings.NewReader("P5\n65535 65535\n255\n"))
	var tl *testimage.TooLargeError
	if errors.As(err, &tl) {
		fmt.Println(tl.Width, tl.Height, tl.Limit == testimage.MaxPixels)
	}
	fmt.Println(err)
	// Output:
	// 65535 65535 true
	// testimage: PGM image 65535x65535 has 4294836225 pixels, more than the limit of 67108864 pixels (testimage.MaxPixels)
}

// ReadImage tells the format from the first bytes; data in none it knows
// is an error that shows them.
func ExampleReadImage() {
	im, _ := testimage.Gradient(convolve.Geometry{Width: 4, Height: 1, Channels: 1, Type: convolve.Uint8})
	var buf bytes.Buffer
	testimage.WritePNG(&buf, im)
	back, format, err := testimage.ReadImage(&buf)
	fmt.Println(format, back.Geometry, back.U8, err)

	_, _, err = testimage.ReadImage(strings.NewReader("BM\x1e\x00\x00\x00"))
	fmt.Println(errors.Is(err, testimage.ErrFormat))
	fmt.Println(err)
	// Output:
	// png 4x1x1 u8 interleaved stride 4 [0 85 170 255] <nil>
	// true
	// testimage: unknown image format: first bytes "BM\x1e\x00\x00\x00" (want PNG, TIFF, PGM (P5), PPM (P6) or a format registered with the image package)
}
