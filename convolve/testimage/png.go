package testimage

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"

	"github.com/convbench/convbench/convolve"
)

// checkU8 reports an image WritePNG/WritePGM/WritePPM cannot store.
func checkU8(format string, im *convolve.Image, channels ...int) error {
	if err := im.Check(); err != nil {
		return fmt.Errorf("testimage: %s: %w", format, err)
	}
	if im.Type != convolve.Uint8 {
		return fmt.Errorf("testimage: %s stores u8 images only, not %v", format, im.Type)
	}
	for _, c := range channels {
		if im.Channels == c {
			return nil
		}
	}
	return fmt.Errorf("testimage: %s cannot store %d channels (want %v)", format, im.Channels, channels)
}

// interleavedBytes returns the u8 pixels of im row by row, channels
// interleaved, without padding.
func interleavedBytes(im *convolve.Image) []byte {
	b := make([]byte, 0, im.Width*im.Height*im.Channels)
	for y := 0; y < im.Height; y++ {
		if im.Layout == convolve.Interleaved {
			o := im.Offset(0, y, 0)
			b = append(b, im.U8[o:o+im.Width*im.Channels]...)
			continue
		}
		for x := 0; x < im.Width; x++ {
			for c := 0; c < im.Channels; c++ {
				b = append(b, im.U8[im.Offset(x, y, c)])
			}
		}
	}
	return b
}

// WritePNG writes a u8 image as an 8-bit PNG: gray for 1 channel, RGB for
// 3, RGBA (non-premultiplied) for 4. Other types and channel counts are
// refused with an error naming them. The channel count is kept exactly:
// an RGBA image with an opaque alpha stays RGBA.
func WritePNG(w io.Writer, im *convolve.Image) error {
	if err := checkU8("PNG", im, 1, 3, 4); err != nil {
		return err
	}
	colorType := map[int]byte{1: 0, 3: 2, 4: 6}[im.Channels]
	bw := bufio.NewWriter(w)
	if _, err := bw.Write([]byte("\x89PNG\r\n\x1a\n")); err != nil {
		return err
	}
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(im.Width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(im.Height))
	ihdr[8], ihdr[9] = 8, colorType // depth 8; compression, filter, interlace 0
	if err := pngChunk(bw, "IHDR", ihdr[:]); err != nil {
		return err
	}
	// Each row: filter type 1 (Sub), which suits smooth images.
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	px := interleavedBytes(im)
	rowLen, bpp := im.Width*im.Channels, im.Channels
	row := make([]byte, 1+rowLen)
	row[0] = 1
	for y := 0; y < im.Height; y++ {
		src := px[y*rowLen : (y+1)*rowLen]
		for i := range src {
			if i < bpp {
				row[1+i] = src[i]
			} else {
				row[1+i] = src[i] - src[i-bpp]
			}
		}
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := pngChunk(bw, "IDAT", z.Bytes()); err != nil {
		return err
	}
	if err := pngChunk(bw, "IEND", nil); err != nil {
		return err
	}
	return bw.Flush()
}

func pngChunk(w io.Writer, typ string, data []byte) error {
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
	copy(hdr[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(hdr[4:])
	crc.Write(data)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc.Sum32())
	for _, b := range [][]byte{hdr[:], data, sum[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// ReadPNG reads a PNG into a packed, interleaved u8 image: 8-bit gray
// gives 1 channel, opaque truecolour 3 and truecolour with alpha 4. Other
// PNG kinds (palette, 16-bit, gray with alpha) are converted to 8-bit: 1
// channel for gray ones, else 3 when every pixel is opaque and 4 when not.
//
// The header is read first: an image of more than MaxPixels pixels is
// refused with a *TooLargeError before its pixels are decoded.
func ReadPNG(r io.Reader) (*convolve.Image, error) {
	var head bytes.Buffer
	cfg, err := png.DecodeConfig(io.TeeReader(r, &head))
	if err != nil {
		return nil, fmt.Errorf("testimage: PNG: %w", err)
	}
	if err := checkPixels("PNG", int64(cfg.Width), int64(cfg.Height), MaxPixels); err != nil {
		return nil, err
	}
	m, err := png.Decode(io.MultiReader(&head, r))
	if err != nil {
		return nil, fmt.Errorf("testimage: PNG: %w", err)
	}
	b := m.Bounds()
	g := convolve.Geometry{Width: b.Dx(), Height: b.Dy(), Type: convolve.Uint8}
	switch m := m.(type) {
	case *image.Gray:
		g.Channels = 1
		im, err := newImage(g)
		if err != nil {
			return nil, err
		}
		for y := 0; y < g.Height; y++ {
			copy(im.U8[y*g.Width:], m.Pix[y*m.Stride:y*m.Stride+g.Width])
		}
		return im, nil
	case *image.RGBA: // the decoder's type for opaque truecolour
		if m.Opaque() {
			return fromRGBA(g, 3, func(x, y int) color.NRGBA {
				i := m.PixOffset(x+b.Min.X, y+b.Min.Y)
				return color.NRGBA{m.Pix[i], m.Pix[i+1], m.Pix[i+2], 255}
			})
		}
	case *image.NRGBA:
		return fromRGBA(g, 4, func(x, y int) color.NRGBA {
			i := m.PixOffset(x+b.Min.X, y+b.Min.Y)
			return color.NRGBA{m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]}
		})
	}
	if m.ColorModel() == color.GrayModel || m.ColorModel() == color.Gray16Model {
		g.Channels = 1
		im, err := newImage(g)
		if err != nil {
			return nil, err
		}
		for y := 0; y < g.Height; y++ {
			for x := 0; x < g.Width; x++ {
				im.U8[y*g.Width+x] = color.GrayModel.Convert(m.At(x+b.Min.X, y+b.Min.Y)).(color.Gray).Y
			}
		}
		return im, nil
	}
	ch := 3
	if o, ok := m.(interface{ Opaque() bool }); !ok || !o.Opaque() {
		ch = 4
	}
	return fromRGBA(g, ch, func(x, y int) color.NRGBA {
		return color.NRGBAModel.Convert(m.At(x+b.Min.X, y+b.Min.Y)).(color.NRGBA)
	})
}

func fromRGBA(g convolve.Geometry, channels int, at func(x, y int) color.NRGBA) (*convolve.Image, error) {
	g.Channels = channels
	im, err := newImage(g)
	if err != nil {
		return nil, err
	}
	i := 0
	for y := 0; y < g.Height; y++ {
		for x := 0; x < g.Width; x++ {
			c := at(x, y)
			copy(im.U8[i:], []uint8{c.R, c.G, c.B, c.A}[:channels])
			i += channels
		}
	}
	return im, nil
}
