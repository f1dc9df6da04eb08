package benchmarks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
)

// InputImage is a user's image that cases run on instead of noise.
type InputImage struct {
	// Name is the stable name of the file (nameValue of its base name);
	// case names carry it in the size key, as WxH@Name.
	Name  string
	Image *convolve.Image // as decoded
}

// loadImage decodes an image file with testimage.ReadImage, which tells
// its format by its first bytes: PNG, TIFF, binary PGM/PPM, or a format
// registered with the image package. Data of no such format is refused
// with an error naming the file.
func loadImage(path string) (*InputImage, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	defer fh.Close()
	im, _, err := testimage.ReadImage(fh)
	if errors.Is(err, testimage.ErrFormat) {
		return nil, fmt.Errorf("image %s: not a PNG, TIFF, PGM (P5) or PPM (P6) file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	return &InputImage{Name: nameValue(filepath.Base(path)), Image: im}, nil
}

// As returns the image in geometry g, which must have the image's width
// and height: elements are converted to g's type at the same fraction of
// full scale (255 for u8, 32767 for i16, 1.0 for f32) and stored in g's
// layout. Channels are converted where g's count differs: colour (3 or 4
// channels) to gray by BT.601 luma (0.299 R + 0.587 G + 0.114 B), gray to
// more channels by copies, and 4 to 3 by dropping the fourth; other
// counts are an error.
func (in *InputImage) As(g convolve.Geometry) (*convolve.Image, error) {
	src := in.Image
	if g.Width != src.Width || g.Height != src.Height {
		return nil, fmt.Errorf("image %s is %dx%d, not %dx%d", in.Name, src.Width, src.Height, g.Width, g.Height)
	}
	var pixel func(x, y, c int) float64
	switch {
	case g.Channels == src.Channels, src.Channels == 4 && g.Channels == 3:
		pixel = src.At
	case src.Channels == 1:
		pixel = func(x, y, _ int) float64 { return src.At(x, y, 0) }
	case g.Channels == 1 && src.Channels >= 3:
		pixel = func(x, y, _ int) float64 {
			return 0.299*src.At(x, y, 0) + 0.587*src.At(x, y, 1) + 0.114*src.At(x, y, 2)
		}
	default:
		return nil, fmt.Errorf("image %s has %d channels: it converts to 1 (gray) or from 1, or from 4 to 3, not to %d", in.Name, src.Channels, g.Channels)
	}
	dst, err := convolve.NewImage(g)
	if err != nil {
		return nil, err
	}
	scale := testimage.FullScale(g.Type) / testimage.FullScale(src.Type)
	for c := 0; c < g.Channels; c++ {
		for y := 0; y < g.Height; y++ {
			for x := 0; x < g.Width; x++ {
				dst.Set(x, y, c, pixel(x, y, c)*scale)
			}
		}
	}
	return dst, nil
}
