package testimage

import (
	"fmt"
	"io"

	"github.com/convbench/convbench/convolve"
)

// DefaultSeed is the seed report 001 uses for its cached random images.
const DefaultSeed int64 = 12345

// Checkerboard returns squares of cell x cell pixels alternating between 0
// and FullScale in every channel; the square at the top-left corner is 0.
func Checkerboard(g convolve.Geometry, cell int) (*convolve.Image, error) {
	if cell <= 0 {
		return nil, fmt.Errorf("testimage: checkerboard cell %d: must be positive", cell)
	}
	return fill(g, func(x, y, _ int) float64 {
		return float64((x/cell + y/cell) % 2)
	})
}

// ReadPNM reads either a P5 or a P6 file, under MaxPixels as ReadPGM.
func ReadPNM(r io.Reader) (*convolve.Image, error) { return readPNM(r, "") }
