package refimpl

import (
	"fmt"
	"math"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// variantNames are the variants this package registers.
var variantNames = []string{"reference", "cpu-naive", "cpu-fast"}

// ramp43 is the 4x3 test image a(x, y) = 1 + x + 4y.
var ramp43 = []float64{
	1, 2, 3, 4,
	5, 6, 7, 8,
	9, 10, 11, 12,
}

// pow23 is the 2x3 test image b(x, y) = 2^x * 4^y: a box sum over it is
// the product of a column count term and a row count term, so every
// border's index multiplicities show in the result.
var pow23 = []float64{
	1, 2,
	4, 8,
	16, 32,
}

func mustFilter(f *convolve.Filter, err error) *convolve.Filter {
	if err != nil {
		panic(err)
	}
	return f
}

func newFilter(name string, kw, kh int, w ...float32) *convolve.Filter {
	return mustFilter(convolve.NewFilter(name, kw, kh, w))
}

func scaled(s float64, v ...float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}

// handCase is one operation on a small single-channel image with its
// output worked out by hand (row-major, width w).
type handCase struct {
	name   string
	op     convolve.Operation
	w, h   int
	img    []float64
	filter *convolve.Filter
	border convolve.Border
	mode   convolve.Mode
	want   []float64
}

func handCases() []handCase {
	box3 := mustFilter(convolve.Box(3))
	box7 := mustFilter(convolve.Box(7))
	row123 := newFilter("row123", 3, 1, 1, 2, 3)
	col123 := newFilter("col123", 1, 3, 1, 2, 3)
	// out = in(x, y-1) + 2*in(x+2, y) + 3*in(x-2, y+1) under correlation.
	sparse53 := newFilter("sparse5x3", 5, 3,
		0, 0, 1, 0, 0,
		0, 0, 0, 0, 2,
		3, 0, 0, 0, 0)
	sq := math.Sqrt
	return []handCase{
		// 3x3 box: the horizontal 3-sums of each row, then the vertical
		// 3-sum of those, over 9.
		{"box3/zero", convolve.Filter2D, 4, 3, ramp43, box3, convolve.Zero, convolve.Correlate, scaled(1.0/9,
			14, 24, 30, 22,
			33, 54, 63, 45,
			30, 48, 54, 38)},
		{"box3/replicate", convolve.Filter2D, 4, 3, ramp43, box3, convolve.Replicate, convolve.Correlate, scaled(1.0/9,
			24, 30, 39, 45,
			48, 54, 63, 69,
			72, 78, 87, 93)},
		// One pixel beyond the edge Reflect repeats the edge as Replicate.
		{"box3/reflect", convolve.Filter2D, 4, 3, ramp43, box3, convolve.Reflect, convolve.Correlate, scaled(1.0/9,
			24, 30, 39, 45,
			48, 54, 63, 69,
			72, 78, 87, 93)},
		{"box3/mirror", convolve.Filter2D, 4, 3, ramp43, box3, convolve.Mirror, convolve.Correlate, scaled(1.0/9,
			39, 42, 51, 54,
			51, 54, 63, 66,
			63, 66, 75, 78)},
		// Three rows wrapped: every output sums all three rows.
		{"box3/wrap", convolve.Filter2D, 4, 3, ramp43, box3, convolve.Wrap, convolve.Correlate, scaled(1.0/9,
			57, 54, 63, 60,
			57, 54, 63, 60,
			57, 54, 63, 60)},
		{"box3/1x1/zero", convolve.Filter2D, 1, 1, []float64{7}, box3, convolve.Zero, convolve.Correlate, []float64{7.0 / 9}},
		{"box3/1x1/replicate", convolve.Filter2D, 1, 1, []float64{7}, box3, convolve.Replicate, convolve.Correlate, []float64{7}},
		{"box3/1x1/reflect", convolve.Filter2D, 1, 1, []float64{7}, box3, convolve.Reflect, convolve.Correlate, []float64{7}},
		{"box3/1x1/mirror", convolve.Filter2D, 1, 1, []float64{7}, box3, convolve.Mirror, convolve.Correlate, []float64{7}},
		{"box3/1x1/wrap", convolve.Filter2D, 1, 1, []float64{7}, box3, convolve.Wrap, convolve.Correlate, []float64{7}},
		// Sobel X: [1 2 1] vertically over the horizontal difference
		// in(x+1) - in(x-1).
		{"sobel-x/zero", convolve.Filter2D, 4, 3, ramp43, convolve.SobelX(), convolve.Zero, convolve.Correlate, []float64{
			10, 6, 6, -13,
			24, 8, 8, -28,
			26, 6, 6, -29}},
		{"sobel-x/replicate", convolve.Filter2D, 4, 3, ramp43, convolve.SobelX(), convolve.Replicate, convolve.Correlate, []float64{
			4, 8, 8, 4,
			4, 8, 8, 4,
			4, 8, 8, 4}},
		// Convolve flips Sobel X, which negates it.
		{"sobel-x/replicate/convolve", convolve.Filter2D, 4, 3, ramp43, convolve.SobelX(), convolve.Replicate, convolve.Convolve, []float64{
			-4, -8, -8, -4,
			-4, -8, -8, -4,
			-4, -8, -8, -4}},
		// Laplacian: up + down + left + right - 4*centre.
		{"laplacian/zero", convolve.Filter2D, 4, 3, ramp43, convolve.Laplacian(), convolve.Zero, convolve.Correlate, []float64{
			3, 2, 1, -5,
			-4, 0, 0, -9,
			-21, -14, -15, -29}},
		{"laplacian/mirror", convolve.Filter2D, 4, 3, ramp43, convolve.Laplacian(), convolve.Mirror, convolve.Correlate, []float64{
			10, 8, 8, 6,
			2, 0, 0, -2,
			-6, -8, -8, -10}},
		{"laplacian/wrap", convolve.Filter2D, 4, 3, ramp43, convolve.Laplacian(), convolve.Wrap, convolve.Correlate, []float64{
			16, 12, 12, 8,
			4, 0, 0, -4,
			-8, -12, -12, -16}},
		{"laplacian/1x1/zero", convolve.Filter2D, 1, 1, []float64{7}, convolve.Laplacian(), convolve.Zero, convolve.Correlate, []float64{-28}},
		{"laplacian/1x1/mirror", convolve.Filter2D, 1, 1, []float64{7}, convolve.Laplacian(), convolve.Mirror, convolve.Correlate, []float64{0}},
		// 1x3 [1 2 3]: in(x-1) + 2in(x) + 3in(x+1); convolve uses [3 2 1].
		{"row123/reflect", convolve.Filter2D, 4, 3, ramp43, row123, convolve.Reflect, convolve.Correlate, []float64{
			9, 14, 20, 23,
			33, 38, 44, 47,
			57, 62, 68, 71}},
		{"row123/reflect/convolve", convolve.Filter2D, 4, 3, ramp43, row123, convolve.Reflect, convolve.Convolve, []float64{
			7, 10, 16, 21,
			31, 34, 40, 45,
			55, 58, 64, 69}},
		// 3x1 [1; 2; 3]: in(y-1) + 2in(y) + 3in(y+1); convolve uses [3; 2; 1].
		{"col123/replicate", convolve.Filter2D, 4, 3, ramp43, col123, convolve.Replicate, convolve.Correlate, []float64{
			18, 24, 30, 36,
			38, 44, 50, 56,
			50, 56, 62, 68}},
		{"col123/replicate/convolve", convolve.Filter2D, 4, 3, ramp43, col123, convolve.Replicate, convolve.Convolve, []float64{
			10, 16, 22, 28,
			22, 28, 34, 40,
			42, 48, 54, 60}},
		// 5x3: in(x, y-1) + 2in(x+2, y) + 3in(x-2, y+1).
		{"sparse5x3/wrap", convolve.Filter2D, 4, 3, ramp43, sparse53, convolve.Wrap, convolve.Correlate, []float64{
			36, 42, 28, 34,
			48, 54, 40, 46,
			36, 42, 28, 34}},
		{"sparse5x3/zero", convolve.Filter2D, 4, 3, ramp43, sparse53, convolve.Zero, convolve.Correlate, []float64{
			6, 8, 15, 18,
			15, 18, 30, 34,
			27, 30, 7, 8}},
		// Flipped: in(x, y+1) + 2in(x-2, y) + 3in(x+2, y-1).
		{"sparse5x3/zero/convolve", convolve.Filter2D, 4, 3, ramp43, sparse53, convolve.Zero, convolve.Convolve, []float64{
			5, 6, 9, 12,
			18, 22, 21, 24,
			21, 24, 18, 20}},
		// 7x7 box on 2x3: the sum is X(x)*Y(y) with X = n0 + 2n1 from the
		// counts n0, n1 of the 7 columns x-3..x+3 that map to columns 0
		// and 1, and Y = m0 + 4m1 + 16m2 from the rows y-3..y+3.
		// Replicate: n = (4,3),(3,4); m = (4,1,2),(3,1,3),(2,1,4).
		{"box7/2x3/zero", convolve.Filter2D, 2, 3, pow23, box7, convolve.Zero, convolve.Correlate, scaled(1.0/49,
			63, 63,
			63, 63,
			63, 63)},
		{"box7/2x3/replicate", convolve.Filter2D, 2, 3, pow23, box7, convolve.Replicate, convolve.Correlate, scaled(1.0/49,
			400, 440,
			550, 605,
			700, 770)},
		// Reflect: n = (3,4),(4,3); m = (2,2,3),(2,3,2),(3,2,2).
		{"box7/2x3/reflect", convolve.Filter2D, 2, 3, pow23, box7, convolve.Reflect, convolve.Correlate, scaled(1.0/49,
			638, 580,
			506, 460,
			473, 430)},
		// Mirror: n = (3,4),(4,3); m = (1,4,2),(2,3,2),(2,4,1).
		{"box7/2x3/mirror", convolve.Filter2D, 2, 3, pow23, box7, convolve.Mirror, convolve.Correlate, scaled(1.0/49,
			539, 490,
			506, 460,
			374, 340)},
		// Wrap: n = (3,4),(4,3); m = (3,2,2),(2,3,2),(2,2,3).
		{"box7/2x3/wrap", convolve.Filter2D, 2, 3, pow23, box7, convolve.Wrap, convolve.Correlate, scaled(1.0/49,
			473, 430,
			506, 460,
			638, 580)},
		// Sobel magnitude of the ramp: gx as in sobel-x above; gy is
		// [1 2 1] horizontally over in(y+1) - in(y-1).
		{"sobel-mag/zero", convolve.SobelMagnitude, 4, 3, ramp43, nil, convolve.Zero, convolve.Correlate, []float64{
			sq(10*10 + 16*16), sq(6*6 + 24*24), sq(6*6 + 28*28), sq(13*13 + 23*23),
			sq(24*24 + 24*24), sq(8*8 + 32*32), sq(8*8 + 32*32), sq(28*28 + 24*24),
			sq(26*26 + 16*16), sq(6*6 + 24*24), sq(6*6 + 28*28), sq(29*29 + 23*23)}},
		{"sobel-mag/replicate", convolve.SobelMagnitude, 4, 3, ramp43, nil, convolve.Replicate, convolve.Correlate, []float64{
			sq(4*4 + 16*16), sq(8*8 + 16*16), sq(8*8 + 16*16), sq(4*4 + 16*16),
			sq(4*4 + 32*32), sq(8*8 + 32*32), sq(8*8 + 32*32), sq(4*4 + 32*32),
			sq(4*4 + 16*16), sq(8*8 + 16*16), sq(8*8 + 16*16), sq(4*4 + 16*16)}},
		// Mode does not apply to the magnitude.
		{"sobel-mag/replicate/convolve", convolve.SobelMagnitude, 4, 3, ramp43, nil, convolve.Replicate, convolve.Convolve, []float64{
			sq(4*4 + 16*16), sq(8*8 + 16*16), sq(8*8 + 16*16), sq(4*4 + 16*16),
			sq(4*4 + 32*32), sq(8*8 + 32*32), sq(8*8 + 32*32), sq(4*4 + 32*32),
			sq(4*4 + 16*16), sq(8*8 + 16*16), sq(8*8 + 16*16), sq(4*4 + 16*16)}},
	}
}

// handImage builds the case's image with the given type, channel count and
// layout; channel c holds (c+1) times the hand values, so the expected
// output of channel c is (c+1) times want (both operations are positively
// homogeneous).
func handImage(tc handCase, typ convolve.ElemType, channels int, layout convolve.Layout, stride int) *convolve.Image {
	g := convolve.Geometry{Width: tc.w, Height: tc.h, Channels: channels, Type: typ, Layout: layout}
	if stride > 0 {
		g.Stride = g.RowElems() + stride
	}
	im, err := convolve.NewImage(g)
	if err != nil {
		panic(err)
	}
	im.Fill(99) // padding holds something other than the image
	forEach(g, func(x, y, c int) { im.Set(x, y, c, float64(c+1)*tc.img[y*tc.w+x]) })
	return im
}

// TestHandComputed checks every variant and Expect against the outputs
// worked out by hand, for each element type, 1 and 3 channels, both
// layouts, packed and padded rows.
func TestHandComputed(t *testing.T) {
	type shape struct {
		typ      convolve.ElemType
		channels int
		layout   convolve.Layout
		stride   int
	}
	shapes := []shape{
		{convolve.Float32, 1, convolve.Interleaved, 0},
		{convolve.Uint8, 1, convolve.Planar, 3},
		{convolve.Int16, 1, convolve.Interleaved, 1},
		{convolve.Float32, 3, convolve.Interleaved, 2},
		{convolve.Int16, 3, convolve.Planar, 0},
		{convolve.Uint8, 2, convolve.Planar, 1},
	}
	for _, tc := range handCases() {
		for _, sh := range shapes {
			name := fmt.Sprintf("%s/%v/c%d/%v/s%d", tc.name, sh.typ, sh.channels, sh.layout, sh.stride)
			t.Run(name, func(t *testing.T) {
				in := handImage(tc, sh.typ, sh.channels, sh.layout, sh.stride)
				p := convolve.Problem{Op: tc.op, Input: in.Geometry, Filter: tc.filter, Border: tc.border, Mode: tc.mode}
				ref, _, err := Expect(p, in)
				if err != nil {
					t.Fatal(err)
				}
				checkHand(t, "Expect", tc, ref)
				for _, vn := range variantNames {
					out := runVariant(t, vn, p, in)
					checkHand(t, vn, tc, out)
				}
			})
		}
	}
}

// checkHand compares out with the case's want, scaled per channel, within
// a few float32 roundings.
func checkHand(t *testing.T, who string, tc handCase, out *convolve.Image) {
	t.Helper()
	forEach(out.Geometry, func(x, y, c int) {
		want := float64(c+1) * tc.want[y*tc.w+x]
		got := out.At(x, y, c)
		if math.Abs(got-want) > 4e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: (x=%d,y=%d,c=%d) = %v, want %v", who, x, y, c, got, want)
		}
	})
}

// runVariant plans p on the named variant, runs it on in into a
// NaN-poisoned output and returns the output.
func runVariant(t *testing.T, name string, p convolve.Problem, in *convolve.Image) *convolve.Image {
	t.Helper()
	v, err := convolve.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		t.Fatalf("%s: plan %v: %v", name, p, err)
	}
	defer plan.Close()
	out, err := p.NewOutput()
	if err != nil {
		t.Fatal(err)
	}
	out.Fill(math.NaN())
	if err := plan.Run(in, out); err != nil {
		t.Fatalf("%s: run %v: %v", name, p, err)
	}
	return out
}

// TestRGBToYUVPixels converts black, white and the primaries, whose BT.601
// studio-swing values are well known, in both input layouts.
func TestRGBToYUVPixels(t *testing.T) {
	rgb := [][3]uint8{{0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}}
	want := [][3]uint8{{16, 128, 128}, {235, 128, 128}, {82, 90, 240}, {144, 54, 34}, {41, 240, 110}}
	for _, layout := range convolve.Layouts {
		g := convolve.Geometry{Width: 2, Height: 3, Channels: 3, Type: convolve.Uint8, Layout: layout}
		g.Stride = g.RowElems() + 1
		in, err := convolve.NewImage(g)
		if err != nil {
			t.Fatal(err)
		}
		// Pixel k at (k%2, k/2); the sixth pixel repeats red.
		for k := 0; k < 6; k++ {
			for c := 0; c < 3; c++ {
				in.Set(k%2, k/2, c, float64(rgb[k%len(rgb)][c]))
			}
		}
		p := convolve.Problem{Op: convolve.RGBToYUV, Input: g}
		ref, tol, err := Expect(p, in)
		if err != nil {
			t.Fatal(err)
		}
		outs := map[string]*convolve.Image{"Expect": ref}
		for _, vn := range variantNames {
			outs[vn] = runVariant(t, vn, p, in)
		}
		for who, out := range outs {
			if out.Type != convolve.Uint8 || out.Layout != convolve.Planar {
				t.Errorf("%v %s: output %v, want u8 planar", layout, who, out.Geometry)
			}
			for k := 0; k < 6; k++ {
				for c := 0; c < 3; c++ {
					if got := out.At(k%2, k/2, c); got != float64(want[k%len(want)][c]) {
						t.Errorf("%v %s: pixel %v channel %d = %v, want %d", layout, who, rgb[k%len(rgb)], c, got, want[k%len(want)][c])
					}
				}
			}
		}
		forEach(tol.Geometry, func(x, y, c int) {
			if tol.At(x, y, c) != 0 {
				t.Errorf("%v: tolerance at (%d,%d,%d) = %v, want 0", layout, x, y, c, tol.At(x, y, c))
			}
		})
	}
}
