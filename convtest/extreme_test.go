package convtest

import (
	"math"
	"testing"
)

// TestNonFiniteCasesHaveNoSubnormals: the non-finite properties must not
// let a subnormal operand meet an infinity, whose product's class depends
// on whether the variant flushes subnormals. The cases are those that
// showed it on a GPU.
func TestNonFiniteCasesHaveNoSubnormals(t *testing.T) {
	for _, s := range []string{
		"filter2d 1x16 c=3 f32 interleaved K=1x19 smooth correlate border=zero seed=2444255898121679454",
		"filter2d 7x1 c=1 f32 K=5x25 smooth convolve border=replicate seed=6574806887232836898",
	} {
		c, err := parseCase(s)
		if err != nil {
			t.Fatal(err)
		}
		p, _, _, err := nonFinitePixelsCase(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range p.Filter.Weights {
			if w != 0 && math.Abs(float64(w)) < 0x1p-126 {
				t.Errorf("%s: weight %d is subnormal (%g)", s, i, w)
			}
		}
	}
}
