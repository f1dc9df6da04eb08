package testimage

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/convbench/convbench/convolve"
)

// planarStrided returns im's pixels in a planar image with padded rows, to
// check that writers honour layout and stride.
func planarStrided(t *testing.T, im *convolve.Image) *convolve.Image {
	t.Helper()
	g := im.Geometry
	g.Layout, g.Stride = convolve.Planar, g.Width+3
	p, err := convolve.NewImage(g)
	if err != nil {
		t.Fatal(err)
	}
	p.Fill(77) // padding that must not reach the file
	copyPixels(p, im)
	return p
}

func TestPNGRoundTrip(t *testing.T) {
	for _, ch := range []int{1, 3, 4} {
		src, _ := Noise(geom(13, 9, ch, convolve.Uint8), int64(ch))
		for _, in := range []*convolve.Image{src, planarStrided(t, src)} {
			var buf bytes.Buffer
			if err := WritePNG(&buf, in); err != nil {
				t.Fatal(err)
			}
			// The standard decoder accepts the file.
			if _, err := png.Decode(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatalf("%d channels: image/png rejects the file: %v", ch, err)
			}
			out, err := ReadPNG(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if out.Channels != ch || out.Type != convolve.Uint8 || out.Layout != convolve.Interleaved {
				t.Fatalf("read back %v, want %d channels", out.Geometry, ch)
			}
			if x, y, c, ok := samePixels(src, out); !ok {
				t.Errorf("%d channels, %v: differs at (%d,%d,%d)", ch, in.Layout, x, y, c)
			}
		}
	}
	// An opaque RGBA image stays RGBA.
	op, _ := NewOpaque(t)
	var buf bytes.Buffer
	WritePNG(&buf, op)
	if back, err := ReadPNG(&buf); err != nil || back.Channels != 4 {
		t.Errorf("opaque RGBA read back as %v, %v", back, err)
	}
}

// NewOpaque returns a 4-channel u8 image whose alpha is 255 everywhere.
func NewOpaque(t *testing.T) (*convolve.Image, error) {
	im, err := Gradient(geom(4, 4, 4, convolve.Uint8))
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			im.Set(x, y, 3, 255)
		}
	}
	return im, nil
}

func TestPNGRefuses(t *testing.T) {
	f, _ := Noise(geom(2, 2, 1, convolve.Float32), 1)
	two, _ := Noise(geom(2, 2, 2, convolve.Uint8), 1)
	s, _ := Noise(geom(2, 2, 3, convolve.Int16), 1)
	for _, tc := range []struct {
		im   *convolve.Image
		want string
	}{{f, "not f32"}, {s, "not i16"}, {two, "2 channels"}, {nil, "nil image"}} {
		var buf bytes.Buffer
		if err := WritePNG(&buf, tc.im); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WritePNG: %v, want %q", err, tc.want)
		}
	}
	if _, err := ReadPNG(strings.NewReader("\x89PNG\r\n\x1a\n garbage")); err == nil {
		t.Error("ReadPNG accepted garbage")
	}
}

func TestReadPNGOtherKinds(t *testing.T) {
	// Paletted (opaque) -> 3 channels; 16-bit gray -> 1 channel 8-bit.
	pal := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.RGBA{10, 20, 30, 255}, color.RGBA{200, 100, 50, 255}})
	pal.Pix = []uint8{0, 1}
	g16 := image.NewGray16(image.Rect(0, 0, 2, 1))
	g16.SetGray16(0, 0, color.Gray16{Y: 0x1234})
	g16.SetGray16(1, 0, color.Gray16{Y: 0xffff})
	tests := []struct {
		m    image.Image
		ch   int
		want []uint8
	}{
		{pal, 3, []uint8{10, 20, 30, 200, 100, 50}},
		{g16, 1, []uint8{0x12, 0xff}},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := png.Encode(&buf, tc.m); err != nil {
			t.Fatal(err)
		}
		im, err := ReadPNG(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if im.Channels != tc.ch || !bytes.Equal(im.U8, tc.want) {
			t.Errorf("%T: %d channels %v, want %d %v", tc.m, im.Channels, im.U8, tc.ch, tc.want)
		}
	}
}

func TestPNMRoundTrip(t *testing.T) {
	gray, _ := Noise(geom(7, 5, 1, convolve.Uint8), 3)
	rgb, _ := Noise(geom(7, 5, 3, convolve.Uint8), 4)
	for _, tc := range []struct {
		im    *convolve.Image
		write func(*bytes.Buffer, *convolve.Image) error
		read  func(*bytes.Buffer) (*convolve.Image, error)
		magic string
	}{
		{gray, func(b *bytes.Buffer, im *convolve.Image) error { return WritePGM(b, im) }, func(b *bytes.Buffer) (*convolve.Image, error) { return ReadPGM(b) }, "P5\n7 5\n255\n"},
		{rgb, func(b *bytes.Buffer, im *convolve.Image) error { return WritePPM(b, im) }, func(b *bytes.Buffer) (*convolve.Image, error) { return ReadPPM(b) }, "P6\n7 5\n255\n"},
		{rgb, func(b *bytes.Buffer, im *convolve.Image) error { return WritePPM(b, im) }, func(b *bytes.Buffer) (*convolve.Image, error) { return ReadPNM(b) }, "P6\n7 5\n255\n"},
	} {
		for _, in := range []*convolve.Image{tc.im, planarStrided(t, tc.im)} {
			var buf bytes.Buffer
			if err := tc.write(&buf, in); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(buf.String(), tc.magic) || buf.Len() != len(tc.magic)+35*tc.im.Channels {
				t.Fatalf("file starts %q, %d bytes", buf.String()[:12], buf.Len())
			}
			out, err := tc.read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if x, y, c, ok := samePixels(tc.im, out); !ok || out.Channels != tc.im.Channels {
				t.Errorf("%s: differs at (%d,%d,%d)", tc.magic[:2], x, y, c)
			}
		}
	}
}

func TestReadPNMHeader(t *testing.T) {
	im, err := ReadPGM(strings.NewReader("P5 # a comment\n# another\n 2\t2 #x\n255\n\x01\x02\x03\x04"))
	if err != nil {
		t.Fatal(err)
	}
	if im.Width != 2 || im.Height != 2 || !bytes.Equal(im.U8, []byte{1, 2, 3, 4}) {
		t.Errorf("got %v %v", im.Geometry, im.U8)
	}
}

func TestReadPNMErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
		read             func(r *strings.Reader) (*convolve.Image, error)
	}{
		{"empty", "", "header", nil},
		{"magic", "P2\n2 2\n255\n", `magic "P2"`, nil},
		{"P6 as PGM", "P6\n1 1\n255\n\x00\x00\x00", "want P5", nil},
		{"P5 as PPM", "P5\n1 1\n255\n\x00", "want P6", func(r *strings.Reader) (*convolve.Image, error) { return ReadPPM(r) }},
		{"maxval", "P5\n2 2\n65535\n", "maxval 65535", nil},
		{"maxval 15", "P5\n2 2\n15\n", "maxval 15", nil},
		{"zero width", "P5\n0 2\n255\n", "width 0", nil},
		{"short header", "P5\n2 ", "height", nil},
		{"letters", "P5\nab 2\n255\n", "unexpected byte 'a'", nil},
		{"no space", "P5\n1 1\n255#\x00", "no whitespace", nil},
		{"ends at maxval", "P5\n1 1\n255", "maxval: header ends early", nil},
		{"truncated", "P5\n3 2\n255\n\x01\x02\x03", "truncated: 3 of 6", nil},
		{"huge and short", "P5\n1000000 1000000\n255\n\x00", "PGM image 1000000x1000000 has 1000000000000 pixels, more than the limit", nil},
		{"long number", "P5\n12345678901 1\n255\n", "too long", nil},
		{"comment to EOF", "P5\n# no end", "comment", nil},
	}
	for _, tc := range tests {
		read := tc.read
		if read == nil {
			read = func(r *strings.Reader) (*convolve.Image, error) { return ReadPGM(r) }
		}
		im, err := read(strings.NewReader(tc.data))
		if err == nil {
			t.Errorf("%s: read %v", tc.name, im.Geometry)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
	}
	f, _ := Noise(geom(2, 2, 1, convolve.Float32), 1)
	rgb, _ := Noise(geom(2, 2, 3, convolve.Uint8), 1)
	var buf bytes.Buffer
	if err := WritePGM(&buf, f); err == nil || !strings.Contains(err.Error(), "not f32") {
		t.Errorf("WritePGM f32: %v", err)
	}
	if err := WritePGM(&buf, rgb); err == nil || !strings.Contains(err.Error(), "3 channels") {
		t.Errorf("WritePGM rgb: %v", err)
	}
	if err := WritePPM(&buf, f); err == nil || !strings.Contains(err.Error(), "not f32") {
		t.Errorf("WritePPM f32: %v", err)
	}
}

func TestTIFFRoundTrip(t *testing.T) {
	for _, typ := range convolve.ElemTypes {
		for ch := 1; ch <= 4; ch++ {
			src, _ := Noise(geom(9, 6, ch, typ), int64(ch))
			if typ == convolve.Float32 {
				// Special values survive bit for bit.
				src.F32[0] = float32(math.NaN())
				src.F32[1] = float32(math.Inf(-1))
				src.F32[2] = float32(math.Copysign(0, -1))
				src.F32[3] = math.SmallestNonzeroFloat32
			}
			for _, in := range []*convolve.Image{src, planarStrided(t, src)} {
				var buf bytes.Buffer
				if err := WriteTIFF(&buf, in); err != nil {
					t.Fatal(err)
				}
				out, err := ReadTIFF(&buf)
				if err != nil {
					t.Fatalf("%v %d channels: %v", typ, ch, err)
				}
				if out.Geometry != src.Geometry.Packed() {
					t.Fatalf("read back %v, want %v", out.Geometry, src.Geometry)
				}
				if x, y, c, ok := samePixels(src, out); !ok {
					t.Errorf("%v %d channels %v: differs at (%d,%d,%d)", typ, ch, in.Layout, x, y, c)
				}
			}
		}
	}
}

// tiffFile writes a small TIFF and returns it with the offset of the
// value field of each IFD entry, by tag.
func tiffFile(t *testing.T, im *convolve.Image) ([]byte, map[uint16]int) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTIFF(&buf, im); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	ifd := int(binary.LittleEndian.Uint32(b[4:]))
	n := int(binary.LittleEndian.Uint16(b[ifd:]))
	at := map[uint16]int{}
	for i := 0; i < n; i++ {
		e := ifd + 2 + 12*i
		at[binary.LittleEndian.Uint16(b[e:])] = e + 8
	}
	return b, at
}

func TestReadTIFFErrors(t *testing.T) {
	// A 2-channel f32 file, which x/image/tiff does not read.
	raw, _ := Noise(geom(4, 3, 2, convolve.Float32), 5)
	patch := func(tag uint16, v uint16) func([]byte, map[uint16]int) {
		return func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint16(b[at[tag]:], v) }
	}
	// perSample patches both values of a per-sample field.
	perSample := func(tag uint16, v uint16) func([]byte, map[uint16]int) {
		return func(b []byte, at map[uint16]int) {
			binary.LittleEndian.PutUint16(b[at[tag]:], v)
			binary.LittleEndian.PutUint16(b[at[tag]+2:], v)
		}
	}
	tests := []struct {
		name string
		edit func([]byte, map[uint16]int)
		want string
	}{
		{"compressed LZW", patch(tagCompression, 5), "compression 5"},
		{"compressed deflate", patch(tagCompression, 8), "compression 8"},
		{"planar", patch(tagPlanarConfig, 2), "planar configuration 2"},
		{"palette", patch(tagPhotometric, 3), "photometric interpretation 3"},
		{"16-bit unsigned", func(b []byte, at map[uint16]int) {
			perSample(tagBitsPerSample, 16)(b, at)
			perSample(tagSampleFormat, 1)(b, at)
		}, "16-bit samples of format 1"},
		{"float 8-bit", perSample(tagBitsPerSample, 8), "8-bit samples of format 3"},
		{"samples differ", patch(tagBitsPerSample, 16), "BitsPerSample [16 32]: samples differ"},
		{"five samples", patch(tagSamplesPerPixel, 5), "5 samples per pixel"},
		{"zero width", func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint32(b[at[tagImageWidth]:], 0) }, "width 0"},
		{"strip past end", func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint32(b[at[tagStripOffsets]:], 1<<30) }, "past the end"},
		{"strip too small", func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint32(b[at[tagStripByteCounts]:], 11) }, "strips hold 11 bytes"},
		{"rows per strip", func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint32(b[at[tagRowsPerStrip]:], 1) }, "1 strip offsets and 1 byte counts for 3 strips"},
		{"not tiff", func(b []byte, _ map[uint16]int) { copy(b, "GIF8") }, "not a TIFF"},
		{"BigTIFF", func(b []byte, _ map[uint16]int) { b[2] = 43 }, "magic number 43"},
		{"IFD past end", func(b []byte, _ map[uint16]int) { binary.LittleEndian.PutUint32(b[4:], 1<<31) }, "first IFD"},
		{"width as ASCII", func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint16(b[at[tagImageWidth]-6:], typeASCII) }, "type 2"},
		{"missing width", func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint16(b[at[tagImageWidth]-8:], 999) }, "missing ImageWidth"},
	}
	for _, tc := range tests {
		b, at := tiffFile(t, raw)
		tc.edit(b, at)
		im, err := ReadTIFF(bytes.NewReader(b))
		if err == nil {
			t.Errorf("%s: read %v", tc.name, im.Geometry)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
	}
	// Every truncation fails cleanly, of a file read here and of one
	// x/image/tiff reads.
	gray, _ := Noise(geom(4, 3, 1, convolve.Uint8), 5)
	for _, im := range []*convolve.Image{raw, gray} {
		b, _ := tiffFile(t, im)
		for n := 0; n < len(b); n++ {
			if _, err := ReadTIFF(bytes.NewReader(b[:n])); err == nil {
				t.Fatalf("%v: file cut to %d of %d bytes was accepted", im.Geometry, n, len(b))
			}
		}
		if _, err := ReadTIFF(bytes.NewReader(b)); err != nil {
			t.Fatalf("%v: untouched file: %v", im.Geometry, err)
		}
	}
	// x/image/tiff's errors come back as TIFF errors.
	for _, tc := range []struct {
		name string
		edit func([]byte, map[uint16]int)
	}{
		{"LZW garbage", patch(tagCompression, 5)},
		{"CMYK", patch(tagPhotometric, 5)},
		{"strip past end", func(b []byte, at map[uint16]int) { binary.LittleEndian.PutUint32(b[at[tagStripOffsets]:], 1<<30) }},
	} {
		b, at := tiffFile(t, gray)
		tc.edit(b, at)
		if im, err := ReadTIFF(bytes.NewReader(b)); err == nil || !strings.HasPrefix(err.Error(), "testimage: TIFF: ") {
			t.Errorf("u8 gray, %s: read %v, error %v", tc.name, im, err)
		}
	}
}

// tiffEntry is one IFD entry of a file built by buildTIFF: SHORT or LONG
// values, or ASCII text.
type tiffEntry struct {
	tag, typ uint16
	values   []uint32
}

// buildTIFF writes a TIFF in the given byte order: one IFD of the entries
// (sorted by tag) and then data, whose offset replaces the value of a
// StripOffsets entry.
func buildTIFF(order binary.AppendByteOrder, entries []tiffEntry, data []byte) []byte {
	mark := "II"
	if order == binary.BigEndian {
		mark = "MM"
	}
	b := []byte(mark)
	b = order.AppendUint16(b, 42)
	b = order.AppendUint32(b, 8)
	b = order.AppendUint16(b, uint16(len(entries)))
	extraAt := 8 + 2 + 12*len(entries) + 4
	var extra []byte
	dataAt := uint32(extraAt)
	for _, e := range entries {
		if n := len(e.values) * map[uint16]int{typeShort: 2, typeLong: 4}[e.typ]; n > 4 {
			dataAt += uint32(n)
		}
	}
	for _, e := range entries {
		var v []byte
		for _, x := range e.values {
			if e.tag == tagStripOffsets {
				x = dataAt
			}
			if e.typ == typeShort {
				v = order.AppendUint16(v, uint16(x))
			} else {
				v = order.AppendUint32(v, x)
			}
		}
		b = order.AppendUint16(b, e.tag)
		b = order.AppendUint16(b, e.typ)
		b = order.AppendUint32(b, uint32(len(e.values)))
		if len(v) > 4 {
			b = order.AppendUint32(b, uint32(extraAt+len(extra)))
			extra = append(extra, v...)
		} else {
			b = append(b, append(v, make([]byte, 4-len(v))...)...)
		}
	}
	b = order.AppendUint32(b, 0)
	b = append(b, extra...)
	return append(b, data...)
}

// TestReadTIFFOtherKinds reads files that WriteTIFF does not write:
// compressed, predicted, palette, 16-bit and associated-alpha files
// written by x/image/tiff, and big-endian files.
func TestReadTIFFOtherKinds(t *testing.T) {
	r := image.Rect(0, 0, 3, 2)
	gray := &image.Gray{Pix: []uint8{0, 50, 100, 150, 200, 250}, Stride: 3, Rect: r}
	nrgba := &image.NRGBA{Pix: make([]uint8, 24), Stride: 12, Rect: r}
	rgba := &image.RGBA{Pix: make([]uint8, 24), Stride: 12, Rect: r}
	for i := range nrgba.Pix {
		nrgba.Pix[i] = uint8(17 * i)
		rgba.Pix[i] = uint8(min(10*i, 255*(i%4+1)/4)) // premultiplied: colour <= alpha
		if i%4 == 3 {
			rgba.Pix[i] = uint8(10 * i)
		}
	}
	pal := image.NewPaletted(r, color.Palette{color.RGBA{10, 20, 30, 255}, color.RGBA{200, 100, 50, 255}})
	copy(pal.Pix, []uint8{0, 1, 1, 0, 1, 0})
	g16 := image.NewGray16(r)
	for i := range 6 {
		g16.SetGray16(i%3, i/3, color.Gray16{Y: uint16(0x1234 * (i + 1))})
	}
	tests := []struct {
		name string
		m    image.Image
		opt  *tiff.Options
		ch   int
		want []uint8
	}{
		{"gray deflate", gray, &tiff.Options{Compression: tiff.Deflate}, 1, gray.Pix},
		{"gray deflate predictor", gray, &tiff.Options{Compression: tiff.Deflate, Predictor: true}, 1, gray.Pix},
		{"NRGBA deflate", nrgba, &tiff.Options{Compression: tiff.Deflate}, 4, nrgba.Pix},
		{"RGBA associated alpha", rgba, nil, 4, rgba.Pix},
		{"palette", pal, nil, 3, []uint8{10, 20, 30, 200, 100, 50, 200, 100, 50, 10, 20, 30, 200, 100, 50, 10, 20, 30}},
		{"16-bit gray", g16, nil, 1, []uint8{0x12, 0x24, 0x36, 0x48, 0x5b, 0x6d}},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := tiff.Encode(&buf, tc.m, tc.opt); err != nil {
			t.Fatal(err)
		}
		im, err := ReadTIFF(&buf)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if im.Width != 3 || im.Height != 2 || im.Channels != tc.ch || im.Type != convolve.Uint8 || !bytes.Equal(im.U8, tc.want) {
			t.Errorf("%s: read %v %v, want %d channels %v", tc.name, im.Geometry, im.U8, tc.ch, tc.want)
		}
	}

	// Big-endian files: RGB u8 (read by x/image/tiff) and 2-channel f32
	// and 1-channel i16 (read here).
	f32 := []float32{1.5, -2, float32(math.Inf(1)), 0, 3e-40, 7}
	var f32Data, i16Data []byte
	for _, v := range f32 {
		f32Data = binary.BigEndian.AppendUint32(f32Data, math.Float32bits(v))
	}
	for _, v := range []int16{-32768, -1, 0, 1, 300, 32767} {
		i16Data = binary.BigEndian.AppendUint16(i16Data, uint16(v))
	}
	rgbData := []uint8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
	be := func(w, h, spp, photometric, bits, format uint32, data []byte) []byte {
		rep := func(v uint32) []uint32 {
			s := make([]uint32, spp)
			for i := range s {
				s[i] = v
			}
			return s
		}
		return buildTIFF(binary.BigEndian, []tiffEntry{
			{tagImageWidth, typeLong, []uint32{w}},
			{tagImageLength, typeLong, []uint32{h}},
			{tagBitsPerSample, typeShort, rep(bits)},
			{tagCompression, typeShort, []uint32{1}},
			{tagPhotometric, typeShort, []uint32{photometric}},
			{tagStripOffsets, typeLong, []uint32{0}},
			{tagSamplesPerPixel, typeShort, []uint32{spp}},
			{tagRowsPerStrip, typeLong, []uint32{h}},
			{tagStripByteCounts, typeLong, []uint32{uint32(len(data))}},
			{tagSampleFormat, typeShort, rep(format)},
		}, data)
	}
	bigEndian := []struct {
		name string
		b    []byte
		g    convolve.Geometry
		want func(im *convolve.Image) bool
	}{
		{"RGB u8", be(3, 2, 3, 2, 8, 1, rgbData), geom(3, 2, 3, convolve.Uint8),
			func(im *convolve.Image) bool { return bytes.Equal(im.U8, rgbData) }},
		{"gray+extra f32", be(3, 1, 2, 1, 32, 3, f32Data), geom(3, 1, 2, convolve.Float32),
			func(im *convolve.Image) bool {
				for i, v := range f32 {
					if math.Float32bits(im.F32[i]) != math.Float32bits(v) {
						return false
					}
				}
				return true
			}},
		{"gray i16", be(2, 3, 1, 1, 16, 2, i16Data), geom(2, 3, 1, convolve.Int16),
			func(im *convolve.Image) bool { return slices.Equal(im.I16, []int16{-32768, -1, 0, 1, 300, 32767}) }},
	}
	for _, tc := range bigEndian {
		im, err := ReadTIFF(bytes.NewReader(tc.b))
		if err != nil {
			t.Errorf("big-endian %s: %v", tc.name, err)
			continue
		}
		if im.Geometry != tc.g || !tc.want(im) {
			t.Errorf("big-endian %s: read %v %v %v %v", tc.name, im.Geometry, im.U8, im.I16, im.F32)
		}
	}
}

// TestReadTIFFStrips reads a file whose pixels are split into strips of
// one row, written by hand from WriteTIFF's single strip.
func TestReadTIFFStrips(t *testing.T) {
	im, _ := Noise(geom(3, 2, 1, convolve.Uint8), 9)
	b, at := tiffFile(t, im)
	data := binary.LittleEndian.Uint32(b[at[tagStripOffsets]:])
	// Append the two offsets and two counts as out-of-line LONG arrays.
	arr := uint32(len(b))
	b = append(b, make([]byte, 16)...)
	binary.LittleEndian.PutUint32(b[arr:], data)
	binary.LittleEndian.PutUint32(b[arr+4:], data+3)
	binary.LittleEndian.PutUint32(b[arr+8:], 3)
	binary.LittleEndian.PutUint32(b[arr+12:], 3)
	for tag, off := range map[uint16]uint32{tagStripOffsets: arr, tagStripByteCounts: arr + 8} {
		binary.LittleEndian.PutUint32(b[at[tag]-4:], 2) // count
		binary.LittleEndian.PutUint32(b[at[tag]:], off)
	}
	binary.LittleEndian.PutUint32(b[at[tagRowsPerStrip]:], 1)
	out, err := ReadTIFF(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.U8, im.U8) {
		t.Errorf("got %v, want %v", out.U8, im.U8)
	}
}

// copyPixels copies the pixels of src into dst, an image of the same
// width, height, channels and type in any layout and stride.
func copyPixels(dst, src *convolve.Image) {
	for c := 0; c < src.Channels; c++ {
		for y := 0; y < src.Height; y++ {
			for x := 0; x < src.Width; x++ {
				i, j := dst.Offset(x, y, c), src.Offset(x, y, c)
				switch src.Type {
				case convolve.Uint8:
					dst.U8[i] = src.U8[j]
				case convolve.Int16:
					dst.I16[i] = src.I16[j]
				default:
					dst.F32[i] = src.F32[j]
				}
			}
		}
	}
}
