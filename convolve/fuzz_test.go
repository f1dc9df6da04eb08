package convolve_test

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// wantBytes is the size in bytes of the data of g, computed exactly,
// and whether g's fields other than its size are valid.
func wantBytes(g convolve.Geometry) (*big.Int, bool) {
	if g.Width <= 0 || g.Height <= 0 || g.Channels < 1 || g.Channels > convolve.MaxChannels ||
		!g.Type.Valid() || !g.Layout.Valid() || g.Stride < 0 {
		return nil, false
	}
	w, h, c := big.NewInt(int64(g.Width)), big.NewInt(int64(g.Height)), big.NewInt(int64(g.Channels))
	one := big.NewInt(1)
	// Interleaved: (h-1)*s + w*c; planar: (c*h-1)*s + w.
	row, rows := new(big.Int).Mul(w, c), new(big.Int).Sub(h, one)
	if g.Layout == convolve.Planar {
		row = w
		rows = new(big.Int).Sub(new(big.Int).Mul(c, h), one)
	}
	s := big.NewInt(int64(g.Stride))
	if g.Stride == 0 {
		s = row
	} else if s.Cmp(row) < 0 {
		return nil, false // a stride shorter than a row
	}
	n := new(big.Int).Add(new(big.Int).Mul(rows, s), row)
	return n.Mul(n, big.NewInt(int64(g.Type.Size()))), true
}

// fuzzFilter is a kw x kh filter of ones when that is small, else one
// without weights (which Validate refuses), or nil when kw is 0.
func fuzzFilter(kw, kh int) *convolve.Filter {
	if kw == 0 {
		return nil
	}
	f := &convolve.Filter{Name: "fuzz", Width: kw, Height: kh}
	if kw > 0 && kh > 0 && kw <= 64 && kh <= 64 {
		f.Weights = make([]float32, kw*kh)
		for i := range f.Weights {
			f.Weights[i] = 1
		}
	}
	return f
}

// FuzzValidate checks Geometry.Validate, NewImage and Problem.Validate on
// any geometry: nothing panics; a geometry is valid exactly when its
// fields are and its data, computed exactly, fits MaxImageBytes; the
// element count and offsets of a valid one are consistent; NewImage
// refuses with Validate's error and, for the small valid ones it is
// asked to allocate, returns data of Len elements; a valid problem has a
// valid output geometry.
func FuzzValidate(f *testing.F) {
	u8, f32, i16 := int(convolve.Uint8), int(convolve.Float32), int(convolve.Int16)
	inter, planar := int(convolve.Interleaved), int(convolve.Planar)
	filter2d, sobel, yuv := int(convolve.Filter2D), int(convolve.SobelMagnitude), int(convolve.RGBToYUV)
	// width, height, channels, type, layout, stride, op, border, mode, kw, kh
	f.Add(1<<20, 1<<20, 1, u8, inter, 0, filter2d, 0, 0, 3, 3)
	f.Add(1<<20, 1<<20, 4, f32, planar, 0, sobel, 1, 0, 0, 0)
	f.Add(1<<17, 1<<16, 1, u8, inter, 0, filter2d, 0, 0, 3, 3)  // output over the limit
	f.Add(1<<16, 1<<16, 1, f32, inter, 0, filter2d, 0, 0, 1, 1) // at the limit
	f.Add(math.MaxInt, 3, 4, u8, inter, 0, filter2d, 0, 0, 1, 1)
	f.Add(3, math.MaxInt, 4, i16, planar, 0, filter2d, 0, 0, 1, 1)
	f.Add(4, 3, 3, u8, inter, math.MaxInt, yuv, 0, 0, 0, 0)
	f.Add(1<<31, 1<<31, 4, i16, planar, 0, filter2d, 0, 0, 1, 1)
	f.Add(7, 5, 3, u8, planar, 9, yuv, 2, 1, 0, 0)
	f.Add(7, 5, 2, i16, inter, 15, filter2d, 4, 1, 5, 3)
	f.Add(-1, 0, 5, 9, 2, -1, 7, 9, 3, 2, -1)
	f.Add(5, 5, 1, f32, inter, 0, filter2d, 0, 0, 1025, 1)
	f.Fuzz(func(t *testing.T, w, h, c, typ, layout, stride, op, border, mode, kw, kh int) {
		g := convolve.Geometry{Width: w, Height: h, Channels: c, Type: convolve.ElemType(typ), Layout: convolve.Layout(layout), Stride: stride}
		err := g.Validate()
		n, fieldsOK := wantBytes(g)
		limit := min(convolve.MaxImageBytes, int64(math.MaxInt))
		valid := fieldsOK && n.Cmp(big.NewInt(limit)) <= 0
		if (err == nil) != valid {
			t.Fatalf("%+v: Validate: %v; want valid=%v (%v bytes)", g, err, valid, n)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "convolve: ") {
				t.Errorf("error %q does not say where it comes from", err)
			}
			if _, err2 := convolve.NewImage(g); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("%+v: NewImage: %v, want %v", g, err2, err)
			}
		} else {
			size := int64(g.Type.Size())
			if int64(g.Len())*size != n.Int64() || g.Offset(w-1, h-1, c-1) != g.Len()-1 || g.Bytes() > convolve.MaxImageBytes {
				t.Fatalf("%+v: Len %d, last offset %d, Bytes %d; want %v bytes", g, g.Len(), g.Offset(w-1, h-1, c-1), g.Bytes(), n)
			}
			if n.Int64() <= 1<<16 {
				im, err := convolve.NewImage(g)
				if err != nil || im.Check() != nil {
					t.Fatalf("%+v: NewImage: %v", g, err)
				}
			}
		}
		p := convolve.Problem{Op: convolve.Operation(op), Input: g, Filter: fuzzFilter(kw, kh), Border: convolve.Border(border), Mode: convolve.Mode(mode)}
		perr := p.Validate()
		if perr == nil {
			if err != nil {
				t.Fatalf("%v: valid problem of an invalid input %v", p, err)
			}
			og := p.OutputGeometry()
			if err := og.Validate(); err != nil {
				t.Fatalf("%v: valid problem, invalid output: %v", p, err)
			}
			if og.Bytes() <= 1<<16 {
				if out, err := p.NewOutput(); err != nil || out.Check() != nil {
					t.Fatalf("%v: NewOutput: %v", p, err)
				}
			}
		}
	})
}
