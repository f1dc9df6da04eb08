package convolve

import "fmt"

// Border says how a filter reads pixels outside the image. For a row
// "abcdef" of n=6 pixels the modes extend it as:
//
//	Zero       000000|abcdef|000000   OpenCV BORDER_CONSTANT (value 0); scipy.ndimage mode="constant", cval=0
//	Replicate  aaaaaa|abcdef|ffffff   OpenCV BORDER_REPLICATE;             scipy.ndimage mode="nearest"
//	Reflect    fedcba|abcdef|fedcba   OpenCV BORDER_REFLECT;               scipy.ndimage mode="reflect"
//	Mirror     gfedcb|abcdef|edcba    OpenCV BORDER_REFLECT_101 (default); scipy.ndimage mode="mirror"
//	Wrap       abcdef|abcdef|abcdef   OpenCV BORDER_WRAP;                  scipy.ndimage mode="wrap"
//
// The extension is periodic, so filters larger than the image are well
// defined. Mirror of a one-pixel row repeats that pixel.
type Border int

const (
	Zero Border = iota
	Replicate
	Reflect
	Mirror
	Wrap
)

// Borders lists every border mode.
var Borders = []Border{Zero, Replicate, Reflect, Mirror, Wrap}

func (b Border) String() string {
	return enumString("Border", b, "zero", "replicate", "reflect", "mirror", "wrap")
}

// Valid reports whether b is one of the defined border modes.
func (b Border) Valid() bool { return b >= Zero && b <= Wrap }

// ParseBorder parses the names String returns.
func ParseBorder(s string) (Border, error) {
	for _, b := range Borders {
		if b.String() == s {
			return b, nil
		}
	}
	return 0, fmt.Errorf("convolve: unknown border %q (want zero, replicate, reflect, mirror or wrap)", s)
}

// Index maps coordinate i of a row or column of n pixels into 0..n-1.
// For Zero and i outside the image it returns (-1, false): the pixel
// reads as 0, and the tap still counts as a term w*0 of the sum. It
// returns (-1, false) for n < 1 too, and for i outside under an unknown
// border. The CUDA kernels mirror it (gpu/kernels/border.cuh).
func (b Border) Index(i, n int) (int, bool) {
	if n < 1 {
		return -1, false
	}
	if i >= 0 && i < n {
		return i, true
	}
	switch b {
	case Replicate:
		return min(max(i, 0), n-1), true
	case Reflect:
		m := mod(i, 2*n)
		return min(m, 2*n-1-m), true
	case Mirror:
		if n == 1 {
			return 0, true
		}
		m := mod(i, 2*n-2)
		return min(m, 2*n-2-m), true
	case Wrap:
		return mod(i, n), true
	}
	return -1, false
}

// mod is i modulo n in 0..n-1.
func mod(i, n int) int { return (i%n + n) % n }

// Mode says whether the filter is applied as a correlation or a convolution.
type Mode int

const (
	// Correlate computes out(x,y) = sum w(i,j) * in(x+i-ax, y+j-ay), with
	// the anchor (ax, ay) = (KW/2, KH/2), as OpenCV's filter2D does.
	Correlate Mode = iota
	// Convolve flips the filter in both axes first, as
	// scipy.ndimage.convolve does.
	Convolve
)

// Modes lists both modes.
var Modes = []Mode{Correlate, Convolve}

func (m Mode) String() string { return enumString("Mode", m, "correlate", "convolve") }

// Valid reports whether m is Correlate or Convolve.
func (m Mode) Valid() bool { return m == Correlate || m == Convolve }
