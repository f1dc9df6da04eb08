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
	"slices"

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
	tagTileWidth       = 322
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
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, uint16(x))
	}
	return b
}

func longs(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// WriteTIFF writes im as an uncompressed little-endian baseline TIFF in
// one strip, samples interleaved: u8, i16 or f32 (SampleFormat 3) with 1
// to 4 channels; 1 and 2 channels are gray, 3 and 4 RGB, a second or
// fourth channel an unspecified extra sample. Any layout and stride is
// accepted. It is this package's own because golang.org/x/image/tiff's
// encoder writes unsigned samples only, no 2-channel images and no fourth
// channel other than alpha.
func WriteTIFF(w io.Writer, im *convolve.Image) error {
	if err := im.Check(); err != nil {
		return fmt.Errorf("testimage: TIFF: %w", err)
	}
	g := im.Geometry
	bits, format := tiffSample(g.Type)
	spp := uint32(g.Channels)
	dataLen := g.Bytes()
	if int64(g.Width) > math.MaxUint32 || int64(g.Height) > math.MaxUint32 || dataLen > math.MaxUint32-1<<20 {
		return fmt.Errorf("testimage: TIFF: %v image of %d bytes exceeds the 4 GiB of a classic TIFF", g, dataLen)
	}
	photometric := uint32(1)
	if spp >= 3 {
		photometric = 2
	}
	perSample := func(v uint32) []byte { return shorts(slices.Repeat([]uint32{v}, int(spp))...) }
	entries := []ifdEntry{
		{tagImageWidth, typeLong, 1, longs(uint32(g.Width))},
		{tagImageLength, typeLong, 1, longs(uint32(g.Height))},
		{tagBitsPerSample, typeShort, spp, perSample(bits)},
		{tagCompression, typeShort, 1, shorts(1)},
		{tagPhotometric, typeShort, 1, shorts(photometric)},
		{tagStripOffsets, typeLong, 1, nil}, // set below
		{tagSamplesPerPixel, typeShort, 1, shorts(spp)},
		{tagRowsPerStrip, typeLong, 1, longs(uint32(g.Height))},
		{tagStripByteCounts, typeLong, 1, longs(uint32(dataLen))},
		{tagXResolution, typeRational, 1, longs(72, 1)},
		{tagYResolution, typeRational, 1, longs(72, 1)},
		{tagPlanarConfig, typeShort, 1, shorts(1)},
		{tagResolutionUnit, typeShort, 1, shorts(2)},
	}
	if spp == 2 || spp == 4 {
		entries = append(entries, ifdEntry{tagExtraSamples, typeShort, 1, shorts(0)})
	}
	entries = append(entries, ifdEntry{tagSampleFormat, typeShort, spp, perSample(format)})

	// Header, IFD, the values longer than 4 bytes (all of even length),
	// then the pixel data.
	extraAt := 8 + 2 + 12*len(entries) + 4
	dataAt := extraAt
	for _, e := range entries {
		if len(e.data) > 4 {
			dataAt += len(e.data)
		}
	}
	entries[5].data = longs(uint32(dataAt))
	le := binary.LittleEndian
	b := le.AppendUint32([]byte("II*\x00"), 8)
	b = le.AppendUint16(b, uint16(len(entries)))
	var extra []byte
	for _, e := range entries {
		b = le.AppendUint16(b, e.tag)
		b = le.AppendUint16(b, e.typ)
		b = le.AppendUint32(b, e.count)
		if len(e.data) > 4 {
			b = le.AppendUint32(b, uint32(extraAt+len(extra)))
			extra = append(extra, e.data...)
		} else {
			b = append(b, append(e.data, make([]byte, 4-len(e.data))...)...)
		}
	}
	b = le.AppendUint32(b, 0) // no next IFD
	bw := bufio.NewWriter(w)
	bw.Write(b)
	bw.Write(extra)
	if err := writeSamples(bw, im); err != nil {
		return err
	}
	return bw.Flush()
}

// writeSamples writes the samples of im row by row, channels
// interleaved, without padding, in little-endian byte order: the pixel
// data of WriteTIFF, WritePNG and WritePGM/WritePPM.
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
// Files of unsigned samples, gray or palette (1 sample per pixel) or RGB
// (3, or 4 with alpha), are decoded by golang.org/x/image/tiff with every
// compression and layout it supports: 8-bit gray and RGB(A) give u8
// images of the file's samples; other depths are converted to 8-bit and
// palettes to RGB, as ReadPNG does. The files it refuses but WriteTIFF
// writes (i16 and f32 samples, 2 channels, a fourth channel that is not
// alpha) are read here from uncompressed, chunky strips in either byte
// order; other files are refused with an error that says what they hold.
//
// An image over MaxPixels (*TooLargeError) or convolve.MaxImageBytes
// (*convolve.SizeError, wrapped) is refused from the header.
func ReadTIFF(r io.Reader) (*convolve.Image, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("testimage: TIFF: %w", err)
	}
	im, err := decodeTIFF(b)
	if _, tl := errors.AsType[*TooLargeError](err); err != nil && !tl {
		return nil, fmt.Errorf("testimage: TIFF: %w", err)
	}
	return im, err
}

var errTIFFShort = errors.New("file too short")

type tiffField struct {
	typ   uint32
	count uint64
	at    uint64 // offset of the values
}

// tiffHeader is the first IFD of a TIFF file, parsed.
type tiffHeader struct {
	b             []byte
	order         binary.ByteOrder
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
	size := map[uint32]uint64{typeShort: 2, typeLong: 4}[f.typ]
	if size == 0 {
		return nil, fmt.Errorf("tag %d has type %d, want SHORT or LONG", tag, f.typ)
	}
	if f.count > uint64(len(h.b)) || f.at+f.count*size > uint64(len(h.b)) {
		return nil, fmt.Errorf("tag %d: %d values beyond the end of the file", tag, f.count)
	}
	v := make([]uint32, f.count)
	for i := range v {
		if p := h.b[f.at+uint64(i)*size:]; size == 2 {
			v[i] = uint32(h.order.Uint16(p))
		} else {
			v[i] = h.order.Uint32(p)
		}
	}
	return v, nil
}

// value returns the value of a SHORT or LONG field of n equal values, or
// def when the field is absent and not required.
func (h *tiffHeader) value(tag uint32, name string, def, n uint32, required bool) (uint32, error) {
	v, err := h.field(tag)
	switch {
	case err != nil:
		return 0, err
	case v == nil && required:
		return 0, fmt.Errorf("missing %s (tag %d)", name, tag)
	case v == nil:
		return def, nil
	case len(v) != int(n):
		return 0, fmt.Errorf("%s has %d values, want %d", name, len(v), n)
	case slices.ContainsFunc(v, func(x uint32) bool { return x != v[0] }):
		return 0, fmt.Errorf("%s %v: samples differ", name, v)
	}
	return v[0], nil
}

// parseTIFFHeader reads the byte order, the first IFD, the image size and
// the samples per pixel.
func parseTIFFHeader(b []byte) (*tiffHeader, error) {
	if len(b) < 8 {
		return nil, errTIFFShort
	}
	h := &tiffHeader{b: b, fields: map[uint32]tiffField{}}
	switch string(b[:2]) {
	case "II":
		h.order = binary.LittleEndian
	case "MM":
		h.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("byte order mark %q: not a TIFF file", b[:2])
	}
	if m := h.order.Uint16(b[2:]); m != 42 {
		return nil, fmt.Errorf("magic number %d: want 42 (BigTIFF is not supported)", m)
	}
	ifd := uint64(h.order.Uint32(b[4:]))
	if ifd+2 > uint64(len(b)) {
		return nil, fmt.Errorf("first IFD at %d: %w", ifd, errTIFFShort)
	}
	n := uint64(h.order.Uint16(b[ifd:]))
	for i := range n {
		e := ifd + 2 + 12*i
		if e+12 > uint64(len(b)) {
			return nil, fmt.Errorf("IFD entry %d of %d: %w", i, n, errTIFFShort)
		}
		typ := uint32(h.order.Uint16(b[e+2:]))
		f := tiffField{typ: typ, count: uint64(h.order.Uint32(b[e+4:])), at: e + 8}
		size := map[uint32]uint64{1: 1, typeASCII: 1, typeShort: 2, typeLong: 4, typeRational: 8}[typ]
		if size*f.count > 4 {
			f.at = uint64(h.order.Uint32(b[e+8:]))
		}
		h.fields[uint32(h.order.Uint16(b[e:]))] = f
	}
	var err error
	if h.width, err = h.value(tagImageWidth, "ImageWidth", 0, 1, true); err != nil {
		return nil, err
	}
	if h.height, err = h.value(tagImageLength, "ImageLength", 0, 1, true); err != nil {
		return nil, err
	}
	if h.spp, err = h.value(tagSamplesPerPixel, "SamplesPerPixel", 1, 1, false); err != nil {
		return nil, err
	}
	if h.spp < 1 || h.spp > convolve.MaxChannels {
		return nil, fmt.Errorf("%d samples per pixel: want 1 to %d", h.spp, convolve.MaxChannels)
	}
	return h, nil
}

// forXImage reports whether golang.org/x/image/tiff decodes the file
// right: it reads every sample as unsigned (SampleFormat 1) and takes
// gray and palette pixels of one sample, RGB ones of 3, or 4 with an
// alpha (ExtraSamples 1 or 2).
func (h *tiffHeader) forXImage() (bool, error) {
	formats, err := h.field(tagSampleFormat)
	if err != nil || slices.ContainsFunc(formats, func(x uint32) bool { return x != 1 }) {
		return false, err
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

// decodeTIFF decodes a TIFF file under MaxPixels; only a *TooLargeError
// comes back with the "testimage: TIFF: " prefix of its own.
func decodeTIFF(b []byte) (*convolve.Image, error) {
	h, err := parseTIFFHeader(b)
	if err != nil {
		return nil, err
	}
	if err := checkPixels("TIFF", int64(h.width), int64(h.height), MaxPixels); err != nil {
		return nil, err
	}
	if x, err := h.forXImage(); err != nil {
		return nil, err
	} else if !x {
		return h.decodeRaw()
	}
	cfg, err := tiff.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	channels := int(h.spp)
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
	var none convolve.Geometry
	if c, err := h.value(tagCompression, "Compression", 1, 1, false); err != nil {
		return none, err
	} else if c != 1 {
		return none, fmt.Errorf("compression %d: only uncompressed (1) files of signed, float or 2-channel samples are supported", c)
	}
	if p, err := h.value(tagPlanarConfig, "PlanarConfiguration", 1, 1, false); err != nil {
		return none, err
	} else if p != 1 && h.spp > 1 {
		return none, fmt.Errorf("planar configuration %d: only chunky (1) files of signed, float or 2-channel samples are supported", p)
	}
	if _, tiled := h.fields[tagTileWidth]; tiled {
		return none, errors.New("tiled files of signed, float or 2-channel samples are not supported")
	}
	photometric, err := h.value(tagPhotometric, "PhotometricInterpretation", 0, 1, true)
	if err != nil {
		return none, err
	}
	if !(photometric == 1 && h.spp <= 2 || photometric == 2 && h.spp >= 3) {
		return none, fmt.Errorf("photometric interpretation %d with %d samples per pixel: want 1 (gray, 1-2 samples) or 2 (RGB, 3-4)", photometric, h.spp)
	}
	bits, err := h.value(tagBitsPerSample, "BitsPerSample", 1, h.spp, false)
	if err != nil {
		return none, err
	}
	format, err := h.value(tagSampleFormat, "SampleFormat", 1, h.spp, false)
	if err != nil {
		return none, err
	}
	g := convolve.Geometry{Width: int(h.width), Height: int(h.height), Channels: int(h.spp)}
	for _, t := range convolve.ElemTypes {
		if b, f := tiffSample(t); b == bits && f == format {
			g.Type = t
			return g, g.Validate()
		}
	}
	return none, fmt.Errorf("%d-bit samples of format %d: want 8-bit unsigned, 16-bit signed or 32-bit float", bits, format)
}

// stripBytes are the bytes of the image of geometry g, read from the
// file's strips, each checked against the file's end.
func (h *tiffHeader) stripBytes(g convolve.Geometry) ([]byte, error) {
	rowsPerStrip, err := h.value(tagRowsPerStrip, "RowsPerStrip", h.height, 1, false)
	if err != nil {
		return nil, err
	}
	offs, err := h.field(tagStripOffsets)
	if err != nil {
		return nil, err
	}
	counts, err := h.field(tagStripByteCounts)
	if err != nil {
		return nil, err
	}
	if offs == nil || counts == nil {
		return nil, errors.New("missing StripOffsets or StripByteCounts")
	}
	if rowsPerStrip == 0 {
		return nil, errors.New("RowsPerStrip 0")
	}
	strips := (uint64(h.height) + uint64(rowsPerStrip) - 1) / uint64(rowsPerStrip)
	if uint64(len(offs)) != strips || uint64(len(counts)) != strips {
		return nil, fmt.Errorf("%d strip offsets and %d byte counts for %d strips", len(offs), len(counts), strips)
	}
	need := uint64(g.Len()) * uint64(g.Type.Size())
	var total uint64
	for i := range offs {
		if uint64(offs[i])+uint64(counts[i]) > uint64(len(h.b)) {
			return nil, fmt.Errorf("strip %d (%d bytes at %d) runs past the end of the %d-byte file", i, counts[i], offs[i], len(h.b))
		}
		total += uint64(counts[i])
	}
	if total < need || need > uint64(len(h.b)) {
		return nil, fmt.Errorf("strips hold %d bytes, the %v image needs %d", total, g, need)
	}
	raw := make([]byte, 0, need)
	for i := range offs {
		k := min(uint64(counts[i]), need-uint64(len(raw)))
		raw = append(raw, h.b[offs[i]:uint64(offs[i])+k]...)
	}
	return raw, nil
}
