package testimage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"strings"

	"github.com/convbench/convbench/convolve"
)

// ErrFormat is the error, wrapped, of ReadImage for data in a format it
// does not know.
var ErrFormat = errors.New("testimage: unknown image format")

// A format is a file format that ReadImage tells by its first bytes.
type format struct {
	name  string // as image.Decode names formats
	magic string // the first bytes
	read  func(io.Reader) (*convolve.Image, error)
}

// formats are the formats this package reads itself, tried before those
// registered with the image package.
var formats = []format{
	{"png", "\x89PNG\r\n\x1a\n", ReadPNG},
	{"tiff", "II*\x00", ReadTIFF},
	{"tiff", "MM\x00*", ReadTIFF},
	{"pgm", "P5", ReadPGM},
	{"ppm", "P6", ReadPPM},
}

// sniffLen is how many first bytes ReadImage looks at.
const sniffLen = 8

// ReadImage reads an image of a format it tells from the first bytes of
// r and returns it with the format's name: "png" (ReadPNG), "tiff"
// (ReadTIFF), "pgm" (ReadPGM), "ppm" (ReadPPM), or the name of a format
// registered with the image package, read into a packed, interleaved u8
// image as ReadPNG converts PNG kinds. Size limits apply from the header
// as for every reader here. Other data is refused with an error that wraps
// ErrFormat and shows the first bytes.
func ReadImage(r io.Reader) (*convolve.Image, string, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, "", fmt.Errorf("testimage: reading the header: %w", err)
	}
	for _, f := range formats {
		if bytes.HasPrefix(head, []byte(f.magic)) {
			im, err := f.read(br)
			return im, f.name, err
		}
	}
	return readRegistered(br, head)
}

// readRegistered reads an image of a format registered with the image
// package; head is the first bytes of br.
func readRegistered(br *bufio.Reader, head []byte) (*convolve.Image, string, error) {
	var hdr bytes.Buffer
	cfg, name, err := image.DecodeConfig(io.TeeReader(br, &hdr))
	if errors.Is(err, image.ErrFormat) {
		return nil, "", fmt.Errorf("%w: first bytes %q (want PNG, TIFF, PGM (P5), PPM (P6) or a format registered with the image package)", ErrFormat, head)
	}
	kind := strings.ToUpper(name)
	if err != nil {
		return nil, name, fmt.Errorf("testimage: %s: %w", kind, err)
	}
	im, err := decodeChecked(kind, cfg, io.MultiReader(&hdr, br), func(r io.Reader) (image.Image, error) {
		m, _, err := image.Decode(r)
		return m, err
	})
	return im, name, err
}

// imageChannels is the channel count a decoded image is read into: 1 for
// gray, 4 for NRGBA, else 3 when opaque and 4 when not.
func imageChannels(m image.Image) int {
	switch m := m.(type) {
	case *image.Gray, *image.Gray16:
		return 1
	case *image.NRGBA:
		return 4
	case interface{ Opaque() bool }:
		if m.Opaque() {
			return 3
		}
	}
	return 4
}

// modelChannels is the channel count imageChannels gives for the usual
// decoded image of a header's colour model.
func modelChannels(m color.Model) int {
	switch m {
	case color.GrayModel, color.Gray16Model:
		return 1
	case color.RGBAModel, color.RGBA64Model, color.YCbCrModel, color.CMYKModel:
		return 3
	}
	if p, ok := m.(color.Palette); ok {
		for _, c := range p {
			if _, _, _, a := c.RGBA(); a != 0xffff {
				return 4
			}
		}
		return 3
	}
	return 4
}
