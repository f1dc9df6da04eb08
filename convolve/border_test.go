package convolve

import (
	"slices"
	"strings"
	"testing"
)

// TestBorderIndex checks Border.Index against hand-written extensions of a
// row of n pixels named a, b, c, ... ('0' marks a pixel Zero reads as 0).
// Each want string lists the pixel read for coordinates from..from+len-1.
//
// The expectations are those of OpenCV's borderInterpolate and of
// scipy.ndimage's filter modes, which agree for every coordinate:
//
//	Zero       BORDER_CONSTANT (0)  mode="constant", cval=0
//	Replicate  BORDER_REPLICATE     mode="nearest"
//	Reflect    BORDER_REFLECT       mode="reflect"   (edge pixel repeated)
//	Mirror     BORDER_REFLECT_101   mode="mirror"    (edge pixel not repeated)
//	Wrap       BORDER_WRAP          mode="wrap" ("grid-wrap")
//
// OpenCV reflects repeatedly until the coordinate lands inside, scipy
// extends periodically; both give period 2n for Reflect, 2n-2 for Mirror
// and n for Wrap, so coordinates several image widths outside (filters
// larger than the image) are covered as well. For n=1 both return the one
// pixel in every mode but constant.
func TestBorderIndex(t *testing.T) {
	tests := []struct {
		b    Border
		n    int
		from int
		want string
	}{
		// n = 6, two periods either side.
		{Zero, 6, -12, "000000000000abcdef000000000000"},
		{Replicate, 6, -12, "aaaaaaaaaaaaabcdefffffffffffff"},
		{Reflect, 6, -12, "abcdeffedcba" + "abcdeffedcba" + "abcdeffedcba"},
		{Mirror, 6, -10, "abcdefedcb" + "abcdefedcb" + "abcdefedcb"},
		{Wrap, 6, -12, "abcdef" + "abcdef" + "abcdef" + "abcdef" + "abcdef"},
		// Far away: from -100 (Reflect: -100 mod 12 = 8 -> 11-8 = 3 'd').
		{Reflect, 6, -100, "dcbaabcdef"},
		{Mirror, 6, -100, "abcdefedcb"}, // -100 mod 10 = 0
		{Wrap, 6, -100, "cdefab"},       // -100 mod 6 = 2
		{Replicate, 6, 100, "fff"},
		{Zero, 6, 100, "000"},
		// n = 1: every mode but Zero reads the single pixel.
		{Zero, 1, -3, "000a000"},
		{Replicate, 1, -3, "aaaaaaa"},
		{Reflect, 1, -3, "aaaaaaa"},
		{Mirror, 1, -3, "aaaaaaa"},
		{Wrap, 1, -3, "aaaaaaa"},
		// n = 2.
		{Zero, 2, -4, "0000ab0000"},
		{Replicate, 2, -4, "aaaaabbbbb"},
		{Reflect, 2, -4, "abba" + "abba" + "ab"},
		{Mirror, 2, -4, "ababababab"},
		{Wrap, 2, -4, "ababababab"},
		// n = 3.
		{Reflect, 3, -6, "abccba" + "abccba" + "abccba"},
		{Mirror, 3, -4, "abcb" + "abcb" + "abcb"},
		{Wrap, 3, -6, "abcabcabcabc"},
	}
	for _, tc := range tests {
		var got strings.Builder
		for i := tc.from; i < tc.from+len(tc.want); i++ {
			j, ok := tc.b.Index(i, tc.n)
			switch {
			case !ok && j == -1:
				got.WriteByte('0')
			case ok && j >= 0 && j < tc.n:
				got.WriteByte(byte('a' + j))
			default:
				t.Fatalf("%v.Index(%d, %d) = (%d, %v): out of contract", tc.b, i, tc.n, j, ok)
			}
		}
		if got.String() != tc.want {
			t.Errorf("%v n=%d from %d:\n got %s\nwant %s", tc.b, tc.n, tc.from, got.String(), tc.want)
		}
	}
}

func TestBorderIndexInside(t *testing.T) {
	for _, b := range Borders {
		for n := 1; n <= 5; n++ {
			for i := range n {
				if j, ok := b.Index(i, n); j != i || !ok {
					t.Errorf("%v.Index(%d, %d) = (%d, %v), want (%d, true)", b, i, n, j, ok, i)
				}
			}
		}
	}
}

// TestBorderIndexEmpty: a row of no pixels maps every coordinate outside,
// under every border, without dividing by zero.
func TestBorderIndexEmpty(t *testing.T) {
	for _, b := range append(slices.Clone(Borders), Border(99)) {
		for _, n := range []int{0, -1, -7} {
			for _, i := range []int{-3, 0, 2} {
				if j, ok := b.Index(i, n); j != -1 || ok {
					t.Errorf("%v.Index(%d, %d) = (%d, %v), want (-1, false)", b, i, n, j, ok)
				}
			}
		}
	}
}

func TestBorderNamesAndModes(t *testing.T) {
	for _, b := range Borders {
		got, err := ParseBorder(b.String())
		if err != nil || got != b || !b.Valid() {
			t.Errorf("ParseBorder(%q) = %v, %v", b.String(), got, err)
		}
	}
	if _, err := ParseBorder("reflect101"); err == nil || !strings.Contains(err.Error(), `"reflect101"`) {
		t.Errorf("ParseBorder(reflect101) error = %v", err)
	}
	if Border(5).Valid() || Border(-1).Valid() || Border(5).String() != "Border(5)" {
		t.Error("Border(5) or Border(-1) treated as valid")
	}
	if Correlate.String() != "correlate" || Convolve.String() != "convolve" || Mode(2).Valid() || Mode(2).String() != "Mode(2)" {
		t.Error("mode names or validity wrong")
	}
}
