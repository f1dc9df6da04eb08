package convtest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// edgeCases is the fixed table that runs beside the random cases: the
// degenerate shapes random draws rarely hit, under every border and both
// modes, each checked for agreement with the reference.
func edgeCases() []testCase {
	// Six filter sizes serve every shape, so that a GPU variant compiles
	// six kernels a border for the table, not one a shape.
	shapes := []struct{ w, h, kw, kh int }{
		{1, 1, 1, 1},   // a single pixel, a single tap
		{1, 1, 3, 3},   // every tap but the centre outside
		{1, 1, 7, 5},   // rectangular, all outside but one
		{1, 17, 7, 5},  // one column
		{23, 1, 7, 5},  // one row
		{1, 9, 1, 7},   // column filter on a column
		{9, 1, 7, 1},   // row filter on a row
		{3, 2, 7, 5},   // filter larger than both sides
		{2, 3, 31, 31}, // much larger: the periodic borders wrap many times
		{7, 4, 7, 5},   // filter as wide as the image
		{33, 17, 3, 3}, // just past a 32-wide tile
	}
	var cs []testCase
	seed := int64(1)
	for _, s := range shapes {
		for _, b := range convolve.Borders {
			for _, m := range convolve.Modes {
				cs = append(cs, testCase{Op: convolve.Filter2D, W: s.w, H: s.h, Channels: 1, KW: s.kw, KH: s.kh,
					Weights: randomWeights, Border: b, Mode: m, Seed: seed})
				seed++
			}
		}
	}
	// Types, channels, layouts and padding on one awkward shape.
	for _, t := range convolve.ElemTypes {
		for _, l := range convolve.Layouts {
			cs = append(cs, testCase{Op: convolve.Filter2D, W: 7, H: 2, Channels: 3, Type: t, Layout: l, Pad: 3,
				KW: 7, KH: 5, Weights: integerWeights, Border: convolve.Mirror, Seed: seed})
			seed++
		}
	}
	for _, b := range convolve.Borders {
		cs = append(cs,
			testCase{Op: convolve.SobelMagnitude, W: 1, H: 1, Channels: 1, KW: 3, KH: 3, Border: b, Seed: seed},
			testCase{Op: convolve.SobelMagnitude, W: 2, H: 7, Channels: 2, Type: convolve.Uint8, KW: 3, KH: 3, Border: b, Seed: seed + 1})
		seed += 2
	}
	cs = append(cs,
		testCase{Op: convolve.RGBToYUV, W: 1, H: 1, Channels: 3, Type: convolve.Uint8, KW: 1, KH: 1, Seed: seed},
		testCase{Op: convolve.RGBToYUV, W: 5, H: 3, Channels: 3, Type: convolve.Uint8, Layout: convolve.Planar, Pad: 2, KW: 1, KH: 1, Seed: seed + 1})
	return cs
}

// adapt moves an edge case into the capabilities where only its element
// type, channel count, layout or weights are outside them, so that every
// variant runs every shape.
func adapt(c testCase, caps convolve.Capabilities) testCase {
	if c.Op != convolve.RGBToYUV {
		if len(caps.Types) > 0 && !slices.Contains(caps.Types, c.Type) {
			c.Type = caps.Types[0]
		}
		if len(caps.Channels) > 0 && !slices.Contains(caps.Channels, c.Channels) {
			c.Channels = caps.Channels[0]
		}
		if len(caps.Layouts) > 0 && !slices.Contains(caps.Layouts, c.Layout) {
			c.Layout = caps.Layouts[0]
		}
	}
	if c.Op == convolve.Filter2D && caps.SeparableOnly {
		c.Weights = outerWeights // a rank-one filter of the same size
	}
	return c.normalize()
}

// edgeCasesFor is the edge-case table adapted to caps (adapt), and the
// number of its cases that stay outside them or that the validity rule r
// (nil: none) refuses.
func edgeCasesFor(caps convolve.Capabilities, r *rule) (cases []testCase, outside int) {
	d := newDomain(caps, nil, nil)
	d.rule = r
	d.maxSide, d.budget = 1<<20, 1<<40
	for _, c := range edgeCases() {
		if c = adapt(c, caps); d.specValid(c) {
			cases = append(cases, c)
		} else {
			outside++
		}
	}
	return cases, outside
}

// testEdgeCases checks e's variant on the fixed table and returns the
// number of cases that passed; cases outside its capabilities are counted
// and skipped.
func testEdgeCases(t *testing.T, e *env) int {
	cases, outside := edgeCasesFor(e.desc.Caps, e.rule)
	ran, refused := 0, 0
	for _, c := range cases {
		unlock := e.shared()
		err := safely(func() error { return checkAgreement(e, c) })
		unlock()
		var rf *refusedError
		switch {
		case errors.As(err, &rf):
			refused++
		case err != nil:
			t.Errorf("edge case %v: %v", c, err)
		default:
			ran++
		}
	}
	msg := fmt.Sprintf("variant=%s edge cases: %d passed, %d outside its capabilities or its validity rule, %d refused at plan time", e.name, ran, outside, refused)
	if ran == 0 {
		t.Errorf("%s: no edge case within the capabilities", msg)
	}
	t.Log(msg)
	return ran
}
