package testimage

import (
	"fmt"
	"math/big"
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
	Format        string // "PNG", "TIFF", "PGM" or "PPM"
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
