package testimage

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/convbench/convbench/convolve"
)

// The fuzz targets read under a limit of 2^20 pixels so that every input
// decodes in bounded memory and time; the limit's code is the same at any
// value.
const fuzzMaxPixels = 1 << 20

func fuzzLimit(f *testing.F) {
	old := MaxPixels
	MaxPixels = fuzzMaxPixels
	f.Cleanup(func() { MaxPixels = old })
}

// checkRead holds for every input: a read either fails, with a
// *TooLargeError only for an image over the limit, or returns a
// consistent image within the limit that write, after a round trip
// through the same format, gives back unchanged.
func checkRead(t *testing.T, im *convolve.Image, err error, write func(io.Writer, *convolve.Image) error, read func(io.Reader) (*convolve.Image, error)) {
	t.Helper()
	var tl *TooLargeError
	if errors.As(err, &tl) {
		if tl.Width <= 0 || tl.Height <= 0 || tl.Height <= tl.Limit/tl.Width || tl.Limit != fuzzMaxPixels {
			t.Fatalf("TooLargeError for an image within the limit: %+v", *tl)
		}
		return
	}
	if err != nil {
		return
	}
	if err := im.Check(); err != nil {
		t.Fatalf("accepted an inconsistent image: %v", err)
	}
	if int64(im.Width)*int64(im.Height) > fuzzMaxPixels {
		t.Fatalf("accepted a %dx%d image over the limit of %d pixels", im.Width, im.Height, fuzzMaxPixels)
	}
	var out bytes.Buffer
	if err := write(&out, im); err != nil {
		t.Fatalf("cannot write back what was read (%v): %v", im.Geometry, err)
	}
	back, err := read(&out)
	if err != nil {
		t.Fatalf("cannot read back what was written (%v): %v", im.Geometry, err)
	}
	if back.Geometry != im.Geometry {
		t.Fatalf("rewrite changed the geometry from %v to %v", im.Geometry, back.Geometry)
	}
	if x, y, c, ok := samePixels(im, back); !ok {
		t.Fatalf("rewrite changed the pixel at (%d,%d,%d)", x, y, c)
	}
}

func FuzzReadPNG(f *testing.F) {
	fuzzLimit(f)
	f.Add(hugePNG())
	f.Add(pngHeader(1025, 1024, 8, 0))
	f.Add(pngHeader(1, 1<<31-1, 1, 0))
	f.Add(pngHeader(2, 2, 8, 2))
	for ch := 1; ch <= 4; ch++ {
		if ch == 2 {
			continue
		}
		im, _ := Noise(geom(5, 3, ch, convolve.Uint8), int64(ch))
		var buf bytes.Buffer
		WritePNG(&buf, im)
		f.Add(buf.Bytes())
	}
	r := image.Rect(0, 0, 3, 2)
	pal := image.NewPaletted(r, color.Palette{color.RGBA{10, 20, 30, 255}, color.NRGBA{200, 100, 50, 128}})
	copy(pal.Pix, []uint8{0, 1, 1, 0, 1, 0})
	g16 := image.NewGray16(r)
	g16.SetGray16(1, 1, color.Gray16{Y: 0xabcd})
	ga := image.NewNRGBA(r)
	ga.SetNRGBA(0, 0, color.NRGBA{7, 7, 7, 9})
	for _, m := range []image.Image{pal, g16, image.NewRGBA64(r), image.NewNRGBA64(r), ga} {
		var buf bytes.Buffer
		png.Encode(&buf, m)
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := ReadPNG(bytes.NewReader(data))
		checkRead(t, im, err, WritePNG, ReadPNG)
	})
}

func FuzzReadTIFF(f *testing.F) {
	fuzzLimit(f)
	f.Add(tiffClaiming(f, 65535, 65535))
	f.Add(tiffClaiming(f, 1<<32-1, 1<<32-1))
	f.Add(tiffClaiming(f, 1025, 1024))
	for _, typ := range convolve.ElemTypes {
		for ch := 1; ch <= 4; ch++ {
			im, _ := Noise(geom(3, 2, ch, typ), 1)
			var buf bytes.Buffer
			WriteTIFF(&buf, im)
			f.Add(buf.Bytes())
		}
	}
	r := image.Rect(0, 0, 3, 2)
	pal := image.NewPaletted(r, color.Palette{color.Black, color.White})
	for _, m := range []image.Image{image.NewGray(r), image.NewNRGBA(r), image.NewRGBA(r), image.NewGray16(r), image.NewRGBA64(r), pal} {
		for _, opt := range []*tiff.Options{nil, {Compression: tiff.Deflate, Predictor: true}} {
			var buf bytes.Buffer
			tiff.Encode(&buf, m, opt)
			f.Add(buf.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := ReadTIFF(bytes.NewReader(data))
		checkRead(t, im, err, WriteTIFF, ReadTIFF)
	})
}

// pnmSeeds are seeds for both PNM targets: valid files of each kind and
// headers that claim more than the limit.
func pnmSeeds(f *testing.F) {
	gray, _ := Noise(geom(3, 2, 1, convolve.Uint8), 1)
	rgb, _ := Noise(geom(2, 2, 3, convolve.Uint8), 1)
	var a, b bytes.Buffer
	WritePGM(&a, gray)
	WritePPM(&b, rgb)
	f.Add(a.Bytes())
	f.Add(b.Bytes())
	f.Add([]byte("P5 #c\n1 1 255 x"))
	f.Add([]byte("P5\n65535 65535\n255\n"))
	f.Add([]byte("P6 9999999999 9999999999 255\n"))
	f.Add([]byte("P5\n1025 1024\n255\n\x00"))
}

func FuzzReadPGM(f *testing.F) {
	fuzzLimit(f)
	pnmSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := ReadPGM(bytes.NewReader(data))
		checkRead(t, im, err, WritePGM, ReadPGM)
		// ReadPNM reads every P5 file ReadPGM reads, the same way.
		pnm, err2 := ReadPNM(bytes.NewReader(data))
		if err == nil && (err2 != nil || pnm.Geometry != im.Geometry || !bytes.Equal(pnm.U8, im.U8)) {
			t.Fatalf("ReadPGM read %v, ReadPNM %v, %v", im.Geometry, pnm, err2)
		}
	})
}

func FuzzReadPPM(f *testing.F) {
	fuzzLimit(f)
	pnmSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := ReadPPM(bytes.NewReader(data))
		checkRead(t, im, err, WritePPM, ReadPPM)
		pnm, err2 := ReadPNM(bytes.NewReader(data))
		if err == nil && (err2 != nil || pnm.Geometry != im.Geometry || !bytes.Equal(pnm.U8, im.U8)) {
			t.Fatalf("ReadPPM read %v, ReadPNM %v, %v", im.Geometry, pnm, err2)
		}
	})
}
