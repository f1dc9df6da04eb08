package testimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// appendPNGChunk appends one PNG chunk (length, type, data, CRC) to b.
func appendPNGChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// pngHeader is a PNG whose IHDR claims a w x h image of the given bit
// depth and colour type (6: RGBA), followed by an IDAT of a few bytes of
// zlib data and IEND: a decoder that trusts the header allocates for
// w x h pixels before it finds the data missing.
func pngHeader(w, h uint32, depth, colorType byte) []byte {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, colorType
	b := appendPNGChunk([]byte("\x89PNG\r\n\x1a\n"), "IHDR", ihdr[:])
	b = appendPNGChunk(b, "IDAT", []byte{0x78, 0x9c, 0x63, 0x60, 0x00})
	return appendPNGChunk(b, "IEND", nil)
}

// hugePNG is the 62-byte PNG that claims 65535 x 65535 16-bit RGBA
// pixels (32 GiB once decoded).
func hugePNG() []byte { return pngHeader(65535, 65535, 16, 6) }

// tiffClaiming is a valid small TIFF with its ImageWidth and ImageLength
// rewritten to w and h.
func tiffClaiming(t testing.TB, w, h uint32) []byte {
	t.Helper()
	im, err := Noise(geom(3, 2, 1, convolve.Uint8), 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTIFF(&buf, im); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	ifd := int(binary.LittleEndian.Uint32(b[4:]))
	n := int(binary.LittleEndian.Uint16(b[ifd:]))
	for i := 0; i < n; i++ {
		e := ifd + 2 + 12*i
		switch binary.LittleEndian.Uint16(b[e:]) {
		case 256:
			binary.LittleEndian.PutUint32(b[e+8:], w)
		case 257:
			binary.LittleEndian.PutUint32(b[e+8:], h)
		}
	}
	return b
}

type reader func(io.Reader) (*convolve.Image, error)

func TestReadersRefuseLargeImages(t *testing.T) {
	if n := len(hugePNG()); n != 62 {
		t.Fatalf("the huge PNG has %d bytes, want 62", n)
	}
	tests := []struct {
		name   string
		read   reader
		data   []byte
		format string
		w, h   int64
	}{
		{"PNG 65535x65535 RGBA64", ReadPNG, hugePNG(), "PNG", 65535, 65535},
		{"PNG 8193x8192 gray", ReadPNG, pngHeader(8193, 8192, 8, 0), "PNG", 8193, 8192},
		{"PNG 1x2^31-1", ReadPNG, pngHeader(1, 1<<31-1, 1, 0), "PNG", 1, 1<<31 - 1},
		{"TIFF 65535x65535", ReadTIFF, tiffClaiming(t, 65535, 65535), "TIFF", 65535, 65535},
		{"TIFF 2^32-1 square", ReadTIFF, tiffClaiming(t, 1<<32-1, 1<<32-1), "TIFF", 1<<32 - 1, 1<<32 - 1},
		{"PGM 65535x65535", ReadPGM, []byte("P5\n65535 65535\n255\n"), "PGM", 65535, 65535},
		{"PPM 9999999999 square", ReadPPM, []byte("P6 9999999999 9999999999 255\n"), "PPM", 9999999999, 9999999999},
		{"PNM 1x67108865", ReadPNM, []byte("P5 1 67108865 255\n\x00"), "PGM", 1, 67108865},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			im, err := tc.read(bytes.NewReader(tc.data))
			var tl *TooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("read %v, error %v: want a *TooLargeError", im, err)
			}
			want := TooLargeError{Format: tc.format, Width: tc.w, Height: tc.h, Limit: DefaultMaxPixels}
			if *tl != want {
				t.Errorf("error %+v, want %+v", *tl, want)
			}
			for _, s := range []string{tc.format, "x", "67108864 pixels", "MaxPixels"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

// TestMaxPixels checks the limit at its boundary for every reader: an
// image of exactly MaxPixels pixels is read, one of a pixel more is not.
func TestMaxPixels(t *testing.T) {
	defer func(old int64) { MaxPixels = old }(MaxPixels)
	MaxPixels = 12
	files := func(w, h int) map[string][]byte {
		gray, _ := Noise(geom(w, h, 1, convolve.Uint8), 1)
		rgb, _ := Noise(geom(w, h, 3, convolve.Float32), 1)
		u8rgb, _ := Noise(geom(w, h, 3, convolve.Uint8), 1)
		var p, ti, pg, pp bytes.Buffer
		if err := WritePNG(&p, gray); err != nil {
			t.Fatal(err)
		}
		if err := WriteTIFF(&ti, rgb); err != nil {
			t.Fatal(err)
		}
		WritePGM(&pg, gray)
		WritePPM(&pp, u8rgb)
		return map[string][]byte{"PNG": p.Bytes(), "TIFF": ti.Bytes(), "PGM": pg.Bytes(), "PPM": pp.Bytes()}
	}
	readers := map[string]reader{"PNG": ReadPNG, "TIFF": ReadTIFF, "PGM": ReadPGM, "PPM": ReadPPM}
	for format, b := range files(4, 3) {
		if _, err := readers[format](bytes.NewReader(b)); err != nil {
			t.Errorf("%s of 4x3 pixels under a limit of 12: %v", format, err)
		}
	}
	for format, b := range files(13, 1) {
		_, err := readers[format](bytes.NewReader(b))
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Width != 13 || tl.Height != 1 || tl.Limit != 12 {
			t.Errorf("%s of 13x1 pixels under a limit of 12: %v", format, err)
		}
	}
}

// TestPNGHeaderPassesLimit checks pngHeader itself: under the limit the
// decoder gets past the header and fails on the missing data.
func TestPNGHeaderPassesLimit(t *testing.T) {
	_, err := ReadPNG(bytes.NewReader(pngHeader(2, 2, 8, 0)))
	var tl *TooLargeError
	if err == nil || errors.As(err, &tl) {
		t.Errorf("a 2x2 PNG with too little data: %v, want a decoding error", err)
	}
}
