package testimage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"

	"golang.org/x/image/tiff"

	"github.com/convbench/convbench/convolve"
)

// TIFF tags and field types used by the writer and the reader.
const (
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagXResolution     = 282
	tagYResolution     = 283
	tagPlanarConfig    = 284
	tagResolutionUnit  = 296
	tagExtraSamples    = 338
	tagSampleFormat    = 339

	typeASCII    = 2
	typeShort    = 3
	typeLong     = 4
	typeRational = 5
)

// tiffSample returns the bits per sample and the SampleFormat code (1
// unsigned, 2 signed, 3 IEEE float) of an element type.
func tiffSample(t convolve.ElemType) (bits, format uint32) {
	switch t {
	case convolve.Uint8:
		return 8, 1
	case convolve.Int16:
		return 16, 2
	}
	return 32, 3
}

type ifdEntry struct {
	tag, typ uint16
	count    uint32
	data     []byte // little-endian values
}

func shorts(v ...uint32) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return b
}

func longs(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// WriteTIFF writes im as an uncompressed little-endian baseline TIFF in
// one strip, samples interleaved: u8 (8-bit unsigned), i16 (16-bit signed)
// or f32 (32-bit IEEE float, SampleFormat 3) with 1 to 4 channels; 1 and
// 2 channels are gray (BlackIsZero), 3 and 4 RGB, a second or fourth
// channel an unspecified extra sample. Any layout and stride is accepted;
// the file holds the pixels only.
//
// The writer is this package's own because golang.org/x/image/tiff's
// encoder writes unsigned samples only, no 2-channel images and no
// fourth channel other than alpha.
func WriteTIFF(w io.Writer, im *convolve.Image) error {
	if err := im.Check(); err != nil {
		return fmt.Errorf("testimage: TIFF: %w", err)
	}
	g := im.Geometry
	bits, format := tiffSample(g.Type)
	spp := uint32(g.Channels)
	dataLen := int64(g.Width) * int64(g.Height) * int64(g.Channels) * int64(g.Type.Size())
	if int64(g.Width) > math.MaxUint32 || int64(g.Height) > math.MaxUint32 || dataLen > math.MaxUint32-1<<20 {
		return fmt.Errorf("testimage: TIFF: %v image of %d bytes exceeds the 4 GiB of a classic TIFF", g, dataLen)
	}
	photometric := uint32(1)
	if spp >= 3 {
		photometric = 2
	}
	rep := func(v uint32) []uint32 {
		s := make([]uint32, spp)
		for i := range s {
			s[i] = v
		}
		return s
	}
	entries := []ifdEntry{
		{tagImageWidth, typeLong, 1, longs(uint32(g.Width))},
		{tagImageLength, typeLong, 1, longs(uint32(g.Height))},
		{tagBitsPerSample, typeShort, spp, shorts(rep(bits)...)},
		{tagCompression, typeShort, 1, shorts(1)},
		{tagPhotometric, typeShort, 1, shorts(photometric)},
	}
	entries = append(entries,
		ifdEntry{tagStripOffsets, typeLong, 1, longs(0)}, // patched below
		ifdEntry{tagSamplesPerPixel, typeShort, 1, shorts(spp)},
		ifdEntry{tagRowsPerStrip, typeLong, 1, longs(uint32(g.Height))},
		ifdEntry{tagStripByteCounts, typeLong, 1, longs(uint32(dataLen))},
		ifdEntry{tagXResolution, typeRational, 1, longs(72, 1)},
		ifdEntry{tagYResolution, typeRational, 1, longs(72, 1)},
		ifdEntry{tagPlanarConfig, typeShort, 1, shorts(1)},
		ifdEntry{tagResolutionUnit, typeShort, 1, shorts(2)},
	)
	if spp == 2 || spp == 4 {
		entries = append(entries, ifdEntry{tagExtraSamples, typeShort, 1, shorts(0)})
	}
	entries = append(entries, ifdEntry{tagSampleFormat, typeShort, spp, shorts(rep(format)...)})

	// Layout: header, IFD, out-of-line values, pixel data.
	ifdLen := 2 + 12*len(entries) + 4
	extra := uint32(8 + ifdLen)
	offsets := make([]uint32, len(entries))
	for i, e := range entries {
		if len(e.data) > 4 {
			offsets[i] = extra
			extra += uint32(len(e.data) + len(e.data)%2)
		}
	}
	dataOff := extra
	for i := range entries {
		if entries[i].tag == tagStripOffsets {
			entries[i].data = longs(dataOff)
		}
	}

	bw := bufio.NewWriter(w)
	bw.Write([]byte{'I', 'I', 42, 0})
	bw.Write(longs(8))
	bw.Write(shorts(uint32(len(entries))))
	for i, e := range entries {
		var ent [12]byte
		binary.LittleEndian.PutUint16(ent[0:], e.tag)
		binary.LittleEndian.PutUint16(ent[2:], e.typ)
		binary.LittleEndian.PutUint32(ent[4:], e.count)
		if len(e.data) > 4 {
			binary.LittleEndian.PutUint32(ent[8:], offsets[i])
		} else {
			copy(ent[8:], e.data)
		}
		bw.Write(ent[:])
	}
	bw.Write(longs(0)) // no next IFD
	for _, e := range entries {
		if len(e.data) > 4 {
			bw.Write(e.data)
			if len(e.data)%2 == 1 {
				bw.WriteByte(0)
			}
		}
	}
	if err := writeSamples(bw, im); err != nil {
		return err
	}
	return bw.Flush()
}

// writeSamples writes the samples of im row by row, channels
// interleaved, without padding, integers and floats in little-endian byte
// order: the pixel data of WriteTIFF, WritePNG and WritePGM/WritePPM, and
// what the Cache's checksum hashes.
func writeSamples(w io.Writer, im *convolve.Image) error {
	row := make([]byte, 0, im.Width*im.Channels*im.Type.Size())
	for y := 0; y < im.Height; y++ {
		row = row[:0]
		for x := 0; x < im.Width; x++ {
			for c := 0; c < im.Channels; c++ {
				i := im.Offset(x, y, c)
				switch im.Type {
				case convolve.Uint8:
					row = append(row, im.U8[i])
				case convolve.Int16:
					row = binary.LittleEndian.AppendUint16(row, uint16(im.I16[i]))
				default:
					row = binary.LittleEndian.AppendUint32(row, math.Float32bits(im.F32[i]))
				}
			}
		}
		if _, err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

// ReadTIFF reads a TIFF into a packed, interleaved image.
//
// Files of unsigned integer samples, gray (1 sample per pixel), palette or
// RGB (3 samples, or 4 with an alpha channel), are decoded by
// golang.org/x/image/tiff, with every compression, byte order and strip or
// tile layout it supports: 8-bit gray and RGB(A) give a u8 image of 1, 3
// or 4 channels with the file's samples; other depths are converted to
// 8-bit and palettes to 3-channel RGB, as ReadPNG does.
//
// The files x/image/tiff refuses but WriteTIFF writes are read here:
// 16-bit signed (i16) and 32-bit float (f32) samples, 2 channels, and a
// fourth channel that is not alpha, from uncompressed, chunky strips in
// either byte order. Other files are refused with an error that says what
// they hold.
//
// The header is read first: an image of more than MaxPixels pixels is
// refused with a *TooLargeError, and one whose data would be larger than
// convolve.MaxImageBytes with a *convolve.SizeError (wrapped), before its
// pixels are decoded.
func ReadTIFF(r io.Reader) (*convolve.Image, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("testimage: TIFF: %w", err)
	}
	return decodeTIFF(b, MaxPixels)
}

var errTIFFShort = errors.New("file too short")

// tiffReader reads the values of a TIFF file in its byte order.
type tiffReader struct {
	b     []byte
	order binary.ByteOrder
}

func (t tiffReader) u16(off uint64) (uint32, error) {
	if off+2 > uint64(len(t.b)) {
		return 0, errTIFFShort
	}
	return uint32(t.order.Uint16(t.b[off:])), nil
}

func (t tiffReader) u32(off uint64) (uint32, error) {
	if off+4 > uint64(len(t.b)) {
		return 0, errTIFFShort
	}
	return t.order.Uint32(t.b[off:]), nil
}

type tiffField struct {
	typ   uint32
	count uint64
	at    uint64 // offset of the values
}

// values returns a SHORT or LONG field's values.
func (t tiffReader) values(tag uint32, f tiffField) ([]uint32, error) {
	size := uint64(2)
	switch f.typ {
	case typeShort:
	case typeLong:
		size = 4
	default:
		return nil, fmt.Errorf("tag %d has type %d, want SHORT or LONG", tag, f.typ)
	}
	if f.count > uint64(len(t.b)) || f.at+f.count*size > uint64(len(t.b)) {
		return nil, fmt.Errorf("tag %d: %d values beyond the end of the file", tag, f.count)
	}
	v := make([]uint32, f.count)
	for i := range v {
		if size == 2 {
			v[i], _ = t.u16(f.at + uint64(i)*2)
		} else {
			v[i], _ = t.u32(f.at + uint64(i)*4)
		}
	}
	return v, nil
}

// tiffHeader is the first IFD of a TIFF file, parsed.
type tiffHeader struct {
	tiffReader
	fields        map[uint32]tiffField
	width, height uint32
	spp           uint32 // samples per pixel
}

// field returns the values of a SHORT or LONG field, nil when the file
// has no such field.
func (h *tiffHeader) field(tag uint32) ([]uint32, error) {
	f, ok := h.fields[tag]
	if !ok {
		return nil, nil
	}
	return h.values(tag, f)
}

// one returns the single value of a SHORT or LONG field, def when the
// field is absent and not required.
func (h *tiffHeader) one(tag uint32, name string, def uint32, required bool) (uint32, error) {
	v, err := h.field(tag)
	switch {
	case err != nil:
		return 0, err
	case v == nil && required:
		return 0, fmt.Errorf("missing %s (tag %d)", name, tag)
	case v == nil:
		return def, nil
	case len(v) != 1:
		return 0, fmt.Errorf("%s has %d values, want 1", name, len(v))
	}
	return v[0], nil
}

// perSample returns the value of a field that has one value per sample,
// all equal, or def when the field is absent.
func (h *tiffHeader) perSample(tag uint32, name string, def uint32) (uint32, error) {
	v, err := h.field(tag)
	if err != nil || v == nil {
		return def, err
	}
	if len(v) != int(h.spp) {
		return 0, fmt.Errorf("%s has %d values for %d samples", name, len(v), h.spp)
	}
	for _, x := range v[1:] {
		if x != v[0] {
			return 0, fmt.Errorf("%s %v: samples differ", name, v)
		}
	}
	return v[0], nil
}

// parseTIFFHeader reads the byte order, the first IFD, the image size,
// the samples per pixel and the ImageDescription.
func parseTIFFHeader(b []byte) (*tiffHeader, error) {
	if len(b) < 8 {
		return nil, errTIFFShort
	}
	h := &tiffHeader{tiffReader: tiffReader{b: b}, fields: map[uint32]tiffField{}}
	switch string(b[:2]) {
	case "II":
		h.order = binary.LittleEndian
	case "MM":
		h.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("byte order mark %q: not a TIFF file", b[:2])
	}
	if m, _ := h.u16(2); m != 42 {
		return nil, fmt.Errorf("magic number %d: want 42 (BigTIFF is not supported)", m)
	}
	ifd, _ := h.u32(4)
	n, err := h.u16(uint64(ifd))
	if err != nil {
		return nil, fmt.Errorf("first IFD at %d: %w", ifd, err)
	}
	for i := uint64(0); i < uint64(n); i++ {
		e := uint64(ifd) + 2 + 12*i
		tag, err1 := h.u16(e)
		typ, _ := h.u16(e + 2)
		count, _ := h.u32(e + 4)
		val, err2 := h.u32(e + 8)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("IFD entry %d of %d: %w", i, n, errTIFFShort)
		}
		f := tiffField{typ: typ, count: uint64(count), at: e + 8}
		size := map[uint32]uint64{1: 1, typeASCII: 1, typeShort: 2, typeLong: 4, typeRational: 8}[typ]
		if size*f.count > 4 {
			f.at = uint64(val)
		}
		h.fields[tag] = f
	}
	if h.width, err = h.one(tagImageWidth, "ImageWidth", 0, true); err != nil {
		return nil, err
	}
	if h.height, err = h.one(tagImageLength, "ImageLength", 0, true); err != nil {
		return nil, err
	}
	if h.spp, err = h.one(tagSamplesPerPixel, "SamplesPerPixel", 1, false); err != nil {
		return nil, err
	}
	if h.spp < 1 || h.spp > convolve.MaxChannels {
		return nil, fmt.Errorf("%d samples per pixel: want 1 to %d", h.spp, convolve.MaxChannels)
	}
	return h, nil
}

// forXImage reports whether golang.org/x/image/tiff decodes the file: it
// reads unsigned samples only (SampleFormat 1) and, beside gray and
// palette pixels of one sample, RGB pixels of 3 samples or 4 with an alpha
// (ExtraSamples 1 or 2).
func (h *tiffHeader) forXImage() (bool, error) {
	formats, err := h.field(tagSampleFormat)
	if err != nil {
		return false, err
	}
	for _, x := range formats {
		if x != 1 {
			return false, nil
		}
	}
	switch h.spp {
	case 1, 3:
		return true, nil
	case 4:
		v, err := h.field(tagExtraSamples)
		return err == nil && len(v) == 1 && (v[0] == 1 || v[0] == 2), nil
	}
	return false, nil
}

// decodeTIFF parses a TIFF and returns the image. An image of more than maxPixels pixels is refused with
// a *TooLargeError.
func decodeTIFF(b []byte, maxPixels int64) (*convolve.Image, error) {
	h, err := parseTIFFHeader(b)
	if err != nil {
		return nil, fmt.Errorf("testimage: TIFF: %w", err)
	}
	if err := checkPixels("TIFF", int64(h.width), int64(h.height), maxPixels); err != nil {
		return nil, err
	}
	x, err := h.forXImage()
	if err != nil {
		return nil, fmt.Errorf("testimage: TIFF: %w", err)
	}
	var im *convolve.Image
	if x {
		im, err = decodeXImage(b, h.spp)
	} else {
		im, err = h.decodeRaw()
	}
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return nil, err
		}
		return nil, fmt.Errorf("testimage: TIFF: %w", err)
	}
	return im, nil
}

// decodeXImage decodes a file of spp samples per pixel, its size checked
// against the pixel limit already, with golang.org/x/image/tiff, after
// checking the size of its data from the header.
func decodeXImage(b []byte, spp uint32) (*convolve.Image, error) {
	cfg, err := tiff.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	channels := int(spp)
	if _, ok := cfg.ColorModel.(color.Palette); ok {
		channels = 3
	}
	if err := checkBytes(int64(cfg.Width), int64(cfg.Height), channels, convolve.Uint8); err != nil {
		return nil, err
	}
	m, err := tiff.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if _, ok := m.(*image.Paletted); ok {
		channels = 3
	}
	return fromImage(m, channels)
}

// decodeRaw reads what x/image/tiff does not: an uncompressed, chunky,
// stripped file with 8-bit unsigned, 16-bit signed or 32-bit float
// samples, 1 to 4 per pixel.
func (h *tiffHeader) decodeRaw() (*convolve.Image, error) {
	g, err := h.rawGeometry()
	if err != nil {
		return nil, err
	}
	raw, err := h.stripBytes(g)
	if err != nil {
		return nil, err
	}
	im, err := convolve.NewImage(g)
	if err != nil {
		return nil, err
	}
	switch g.Type {
	case convolve.Uint8:
		copy(im.U8, raw)
	case convolve.Int16:
		for i := range im.I16 {
			im.I16[i] = int16(h.order.Uint16(raw[2*i:]))
		}
	default:
		for i := range im.F32 {
			im.F32[i] = math.Float32frombits(h.order.Uint32(raw[4*i:]))
		}
	}
	return im, nil
}

// rawGeometry is the geometry of an uncompressed, chunky, stripped file
// of gray or RGB samples of a type convolve has, checked.
func (h *tiffHeader) rawGeometry() (convolve.Geometry, error) {
	if c, err := h.one(tagCompression, "Compression", 1, false); err != nil {
		return convolve.Geometry{}, err
	} else if c != 1 {
		return convolve.Geometry{}, fmt.Errorf("compression %d: only uncompressed (1) files of signed, float or 2-channel samples are supported", c)
	}
	if p, err := h.one(tagPlanarConfig, "PlanarConfiguration", 1, false); err != nil {
		return convolve.Geometry{}, err
	} else if p != 1 && h.spp > 1 {
		return convolve.Geometry{}, fmt.Errorf("planar configuration %d: only chunky (1) files of signed, float or 2-channel samples are supported", p)
	}
	if _, tiled := h.fields[322]; tiled {
		return convolve.Geometry{}, errors.New("tiled files of signed, float or 2-channel samples are not supported")
	}
	photometric, err := h.one(tagPhotometric, "PhotometricInterpretation", 0, true)
	if err != nil {
		return convolve.Geometry{}, err
	}
	switch spp := h.spp; {
	case photometric == 1 && spp <= 2, photometric == 2 && spp >= 3:
	default:
		return convolve.Geometry{}, fmt.Errorf("photometric interpretation %d with %d samples per pixel: want 1 (gray, 1-2 samples) or 2 (RGB, 3-4)", photometric, spp)
	}
	bits, err := h.perSample(tagBitsPerSample, "BitsPerSample", 1)
	if err != nil {
		return convolve.Geometry{}, err
	}
	format, err := h.perSample(tagSampleFormat, "SampleFormat", 1)
	if err != nil {
		return convolve.Geometry{}, err
	}
	var typ convolve.ElemType
	switch {
	case bits == 8 && format == 1:
		typ = convolve.Uint8
	case bits == 16 && format == 2:
		typ = convolve.Int16
	case bits == 32 && format == 3:
		typ = convolve.Float32
	default:
		return convolve.Geometry{}, fmt.Errorf("%d-bit samples of format %d: want 8-bit unsigned, 16-bit signed or 32-bit float", bits, format)
	}
	g := convolve.Geometry{Width: int(h.width), Height: int(h.height), Channels: int(h.spp), Type: typ}
	if err := g.Validate(); err != nil {
		return convolve.Geometry{}, err
	}
	return g, nil
}

// stripBytes are the bytes of the image of geometry g, read from the
// file's strips, each checked against the file's end.
func (h *tiffHeader) stripBytes(g convolve.Geometry) ([]byte, error) {
	rowsPerStrip, err := h.one(tagRowsPerStrip, "RowsPerStrip", h.height, false)
	if err != nil {
		return nil, err
	}
	_, ok1 := h.fields[tagStripOffsets]
	_, ok2 := h.fields[tagStripByteCounts]
	if !ok1 || !ok2 {
		return nil, errors.New("missing StripOffsets or StripByteCounts")
	}
	offs, err := h.field(tagStripOffsets)
	if err != nil {
		return nil, err
	}
	counts, err := h.field(tagStripByteCounts)
	if err != nil {
		return nil, err
	}
	if rowsPerStrip == 0 {
		return nil, errors.New("RowsPerStrip 0")
	}
	strips := (uint64(h.height) + uint64(rowsPerStrip) - 1) / uint64(rowsPerStrip)
	if uint64(len(offs)) != strips || uint64(len(counts)) != strips {
		return nil, fmt.Errorf("%d strip offsets and %d byte counts for %d strips", len(offs), len(counts), strips)
	}
	b := h.b
	need := uint64(g.Len()) * uint64(g.Type.Size())
	var total uint64
	for i := range offs {
		if uint64(offs[i])+uint64(counts[i]) > uint64(len(b)) {
			return nil, fmt.Errorf("strip %d (%d bytes at %d) runs past the end of the %d-byte file", i, counts[i], offs[i], len(b))
		}
		total += uint64(counts[i])
	}
	if total < need || need > uint64(len(b)) {
		return nil, fmt.Errorf("strips hold %d bytes, the %v image needs %d", total, g, need)
	}
	raw := make([]byte, 0, need)
	for i := range offs {
		k := min(uint64(counts[i]), need-uint64(len(raw)))
		raw = append(raw, b[offs[i]:uint64(offs[i])+k]...)
	}
	return raw, nil
}
