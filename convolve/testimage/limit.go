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

// MaxPixels is the largest image, in pixels (width times height), that
// ReadPNG, ReadTIFF, ReadPGM, ReadPPM and ReadPNM accept. Each reads the
// file's header first and refuses a larger image with a *TooLargeError
// before it allocates anything for the pixels, so that a short file with
// a huge header cannot exhaust memory. Raise it to read larger files; set
// it before reading, not while reads run in other goroutines.
var MaxPixels = DefaultMaxPixels

// TooLargeError is the error of a reader that found an image over its
// pixel limit in a file's header.
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

// checkHeader refuses, from a file's header, a w x h image (w, h > 0) of
// more than MaxPixels pixels with a *TooLargeError, and one whose data, in
// channels samples of type t a pixel, would be larger than
// convolve.MaxImageBytes with its *convolve.SizeError (wrapped).
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
// of channels samples of type t a pixel whose data would be larger than
// convolve.MaxImageBytes.
func checkBytes(w, h int64, channels int, t convolve.ElemType) error {
	if w > math.MaxInt || h > math.MaxInt {
		return fmt.Errorf("image %dx%d: a side is larger than the largest int", w, h)
	}
	g := convolve.Geometry{Width: int(w), Height: int(h), Channels: channels, Type: t}
	return g.Validate()
}
