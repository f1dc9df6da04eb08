package testimage

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"slices"

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
	if slices.Contains(channels, im.Channels) {
		return nil
	}
	return fmt.Errorf("testimage: %s cannot store %d channels (want %v)", format, im.Channels, channels)
}

// WritePNG writes a u8 image as an 8-bit PNG: gray for 1 channel, RGB for
// 3, non-premultiplied RGBA for 4 (kept even where opaque).
func WritePNG(w io.Writer, im *convolve.Image) error {
	if err := checkU8("PNG", im, 1, 3, 4); err != nil {
		return err
	}
	r := image.Rect(0, 0, im.Width, im.Height)
	var buf bytes.Buffer
	buf.Grow(im.Width * im.Height * im.Channels)
	writeSamples(&buf, im) // a bytes.Buffer never fails to write
	px := buf.Bytes()
	var m image.Image
	switch im.Channels {
	case 1:
		m = &image.Gray{Pix: px, Stride: im.Width, Rect: r}
	case 3:
		// image/png writes an opaque RGBA image as 8-bit RGB.
		rgba := image.NewRGBA(r)
		for i, j := 0, 0; i < len(px); i, j = i+3, j+4 {
			copy(rgba.Pix[j:j+3], px[i:i+3])
			rgba.Pix[j+3] = 255
		}
		m = rgba
	default:
		m = withAlpha{&image.NRGBA{Pix: px, Stride: 4 * im.Width, Rect: r}}
	}
	if err := png.Encode(w, m); err != nil {
		return fmt.Errorf("testimage: PNG: %w", err)
	}
	return nil
}

// withAlpha is an NRGBA image that image/png does not write as RGB.
type withAlpha struct{ *image.NRGBA }

func (withAlpha) Opaque() bool { return false }

// ReadPNG reads a PNG into a packed, interleaved u8 image: 8-bit gray
// gives 1 channel, opaque truecolour 3 and truecolour with alpha 4. Other
// kinds are converted to 8-bit: 1 channel for gray ones, else 3 when every
// pixel is opaque and 4 when not. An image over MaxPixels or
// convolve.MaxImageBytes is refused from the header.
func ReadPNG(r io.Reader) (*convolve.Image, error) {
	var head bytes.Buffer
	cfg, err := png.DecodeConfig(io.TeeReader(r, &head))
	if err != nil {
		return nil, fmt.Errorf("testimage: PNG: %w", err)
	}
	return decodeChecked("PNG", cfg, io.MultiReader(&head, r), png.Decode)
}

// decodeChecked checks the size in cfg, the file's header (checkHeader),
// then decodes data, the whole file, into a packed, interleaved u8 image.
func decodeChecked(kind string, cfg image.Config, data io.Reader, decode func(io.Reader) (image.Image, error)) (*convolve.Image, error) {
	if err := checkHeader(kind, int64(cfg.Width), int64(cfg.Height), modelChannels(cfg.ColorModel), convolve.Uint8); err != nil {
		return nil, err
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("testimage: %s: %w", kind, err)
	}
	return fromImage(m, imageChannels(m))
}

// fromImage copies m into a packed, interleaved u8 image of 1 (gray), 3
// or 4 (RGB, RGBA) channels: the samples of 8-bit gray, RGBA and NRGBA
// images as they are, other images converted through image/color.
func fromImage(m image.Image, channels int) (*convolve.Image, error) {
	b := m.Bounds()
	im, err := newImage(convolve.Geometry{Width: b.Dx(), Height: b.Dy(), Channels: channels, Type: convolve.Uint8})
	if err != nil {
		return nil, err
	}
	w, px := b.Dx(), im.U8
	// Fast paths for the common types: the samples as they are.
	var pix []uint8 // the pixels of a Gray, RGBA or NRGBA image
	var stride, spp int
	switch m := m.(type) {
	case *image.Gray:
		pix, stride, spp = m.Pix, m.Stride, 1
	case *image.RGBA:
		pix, stride, spp = m.Pix, m.Stride, 4
	case *image.NRGBA:
		pix, stride, spp = m.Pix, m.Stride, 4
	}
	if pix != nil && (spp == 1) == (channels == 1) {
		i := 0
		for y := 0; y < b.Dy(); y++ {
			row := pix[y*stride:]
			for x := 0; x < w; x++ {
				i += copy(px[i:i+channels], row[spp*x:spp*x+channels])
			}
		}
		return im, nil
	}
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := m.At(x, y)
			if c == nil { // a palette index past the palette
				c = color.Transparent
			}
			if channels == 1 {
				px[i] = color.GrayModel.Convert(c).(color.Gray).Y
				i++
				continue
			}
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			i += copy(px[i:i+channels], []uint8{n.R, n.G, n.B, n.A})
		}
	}
	return im, nil
}
