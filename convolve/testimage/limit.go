package testimage

import (
	"fmt"
	"math"
	"math/big"

	"github.com/convbench/convbench/convolve"
)

// DefaultMaxPixels is the default of MaxPixels: 2^26 pixels, for example
// 8192 x 8192.
const DefaultMaxPixels int64 = 1 << 26

// MaxPixels is the largest image, in pixels, that the readers accept:
// they refuse a larger one from the header with a *TooLargeError, before
// they allocate. Set it before reading, not while reads run.
var MaxPixels = DefaultMaxPixels

// TooLargeError is the error of a reader for an image over MaxPixels.
type TooLargeError struct {
	Format        string // "PNG", "TIFF", "PGM", "PPM", or for ReadImage another registered format's name in upper case
	Width, Height int64  // as the header gives them
	Limit         int64  // the limit in pixels (MaxPixels)
}

func (e *TooLargeError) Error() string {
	pixels := new(big.Int).Mul(big.NewInt(e.Width), big.NewInt(e.Height))
	return fmt.Sprintf("testimage: %s image %dx%d has %v pixels, more than the limit of %d pixels (testimage.MaxPixels)",
		e.Format, e.Width, e.Height, pixels, e.Limit)
}

// checkPixels returns a *TooLargeError when a w x h image (w, h > 0) has
// more than limit pixels.
func checkPixels(format string, w, h, limit int64) error {
	if w > 0 && h > 0 && h > limit/w {
		return &TooLargeError{Format: format, Width: w, Height: h, Limit: limit}
	}
	return nil
}

// checkHeader refuses a w x h image (w, h > 0) over MaxPixels
// (checkPixels) or convolve.MaxImageBytes (checkBytes, wrapped).
func checkHeader(format string, w, h int64, channels int, t convolve.ElemType) error {
	if err := checkPixels(format, w, h, MaxPixels); err != nil {
		return err
	}
	if err := checkBytes(w, h, channels, t); err != nil {
		return fmt.Errorf("testimage: %s: %w", format, err)
	}
	return nil
}

// checkBytes returns the *convolve.SizeError of a w x h image (w, h > 0)
// over convolve.MaxImageBytes.
func checkBytes(w, h int64, channels int, t convolve.ElemType) error {
	if w > math.MaxInt || h > math.MaxInt {
		return fmt.Errorf("image %dx%d: a side is larger than the largest int", w, h)
	}
	g := convolve.Geometry{Width: int(w), Height: int(h), Channels: channels, Type: t}
	return g.Validate()
}
