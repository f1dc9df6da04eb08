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
// (In the Mirror line the edge pixel is not repeated: ...d c b | a b c d e f | e d c...)
//
// The extension is periodic for Reflect (period 2n), Mirror (period 2n-2)
// and Wrap (period n), so filters larger than the image are well defined
// and match both libraries. Mirror of a one-pixel row repeats that pixel.
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

// Index maps coordinate i of a row or column of n pixels (n >= 1) into
// 0..n-1. For Zero and i outside the image it returns (-1, false): the
// pixel reads as 0, and the tap still counts as a term w*0 of the sum
// (so a NaN or infinite weight there makes the output NaN, as IEEE
// arithmetic over every tap does). Every CPU implementation uses this
// function, and the CUDA kernels mirror it (gpu/kernels/border.cuh).
// A row of n < 1 pixels has nothing to map to: Index returns (-1, false)
// for it under every border, and so does an unknown border mode.
func (b Border) Index(i, n int) (int, bool) {
	if n < 1 {
		return -1, false
	}
	if i >= 0 && i < n {
		return i, true
	}
	switch b {
	case Replicate:
		if i < 0 {
			return 0, true
		}
		return n - 1, true
	case Reflect:
		p := 2 * n
		m := mod(i, p)
		if m >= n {
			m = p - 1 - m
		}
		return m, true
	case Mirror:
		if n == 1 {
			return 0, true
		}
		p := 2*n - 2
		m := mod(i, p)
		if m >= n {
			m = p - m
		}
		return m, true
	case Wrap:
		return mod(i, n), true
	}
	return -1, false
}

func mod(i, n int) int {
	m := i % n
	if m < 0 {
		m += n
	}
	return m
}

// Mode says whether the filter is applied as a correlation or a convolution.
type Mode int

const (
	// Correlate computes out(x,y) = sum w(i,j) * in(x+i-ax, y+j-ay), with
	// the anchor (ax, ay) = (KW/2, KH/2). This is what OpenCV's filter2D
	// and the reports' kernels compute; it is the default.
	Correlate Mode = iota
	// Convolve flips the filter in both axes first:
	// out(x,y) = sum w(i,j) * in(x-i+ax, y-j+ay), as scipy.ndimage.convolve
	// and the textbook definition do.
	Convolve
)

// Modes lists both modes.
var Modes = []Mode{Correlate, Convolve}

func (m Mode) String() string { return enumString("Mode", m, "correlate", "convolve") }

// Valid reports whether m is Correlate or Convolve.
func (m Mode) Valid() bool { return m == Correlate || m == Convolve }
