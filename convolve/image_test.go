package convolve

import (
	"math"
	"strings"
	"testing"
)

func TestGeometryValidateErrors(t *testing.T) {
	ok := Geometry{Width: 4, Height: 3, Channels: 3, Type: Uint8}
	tests := []struct {
		name string
		edit func(g *Geometry)
		want string // must appear in the error
	}{
		{"zero width", func(g *Geometry) { g.Width = 0 }, "width 0"},
		{"negative width", func(g *Geometry) { g.Width = -2 }, "width -2"},
		{"zero height", func(g *Geometry) { g.Height = 0 }, "height 0"},
		{"negative height", func(g *Geometry) { g.Height = -7 }, "height -7"},
		{"channels 0", func(g *Geometry) { g.Channels = 0 }, "channels 0"},
		{"channels 5", func(g *Geometry) { g.Channels = 5 }, "channels 5"},
		{"unknown type", func(g *Geometry) { g.Type = ElemType(9) }, "element type 9"},
		{"negative type", func(g *Geometry) { g.Type = ElemType(-1) }, "element type -1"},
		{"unknown layout", func(g *Geometry) { g.Layout = Layout(2) }, "layout 2"},
		{"negative stride", func(g *Geometry) { g.Stride = -12 }, "stride -12"},
		{"interleaved stride short", func(g *Geometry) { g.Stride = 11 }, "stride 11 shorter than a row of 12"},
		{"planar stride short", func(g *Geometry) { g.Layout = Planar; g.Stride = 3 }, "stride 3 shorter than a row of 4"},
		{"row too large", func(g *Geometry) { g.Width = 1 << 40; g.Channels = 4 }, "1099511627776x3x4"},
		{"size overflow", func(g *Geometry) { g.Width = 1 << 30; g.Height = 1 << 20 }, "1073741824x1048576"},
		{"planar overflow", func(g *Geometry) {
			g.Layout = Planar
			g.Width = 1 << 20
			g.Height = 1 << 19
		}, "1048576x524288"},
		{"stride overflow", func(g *Geometry) { g.Height = 1 << 20; g.Stride = 1 << 21 }, "stride 2097152"},
		{"2^20 square", func(g *Geometry) { g.Width, g.Height, g.Channels = 1<<20, 1<<20, 1 }, "1099511627776 bytes"},
		{"2^20 square f32", func(g *Geometry) { g.Width, g.Height, g.Channels, g.Type = 1<<20, 1<<20, 1, Float32 }, "4398046511104 bytes"},
		{"one row over", func(g *Geometry) { g.Width, g.Height, g.Channels = 1<<17, 1<<17+1, 1 }, "17180000256 bytes"},
		{"widest int", func(g *Geometry) { g.Width = math.MaxInt; g.Channels = 4 }, "110680464442257309684 bytes"},
		{"tallest int", func(g *Geometry) { g.Height = math.MaxInt; g.Type = Float32 }, "442721857769029238736 bytes"},
		{"widest stride", func(g *Geometry) { g.Stride = math.MaxInt }, "18446744073709551626 bytes"},
		{"planar int overflow", func(g *Geometry) {
			g.Layout, g.Type = Planar, Int16
			g.Width, g.Height, g.Channels = 1<<31, 1<<31, 4
		}, "2147483648x2147483648x4"},
	}
	if err := ok.Validate(); err != nil {
		t.Fatalf("base geometry: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ok
			tc.edit(&g)
			err := g.Validate()
			if err == nil {
				t.Fatalf("%v validated", g)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			// Constructors refuse the same geometry with the same error.
			if _, err2 := NewImage(g); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("NewImage error %v, want %v", err2, err)
			}
		})
	}
}

// TestGeometrySizeLimit checks that the largest image Validate accepts has
// exactly MaxImageBytes of data and that one more row is refused, for
// every element type and layout, without allocating either.
func TestGeometrySizeLimit(t *testing.T) {
	for _, typ := range ElemTypes {
		for _, l := range Layouts {
			// A 2^15-wide image with 4 channels and as many rows as fit.
			g := Geometry{Width: 1 << 15, Channels: 4, Type: typ, Layout: l}
			g.Height = int(MaxImageBytes / int64(g.Width*g.Channels*typ.Size()))
			if err := g.Validate(); err != nil {
				t.Errorf("%v: %v", g, err)
			}
			if got := int64(g.Len()) * int64(typ.Size()); got != MaxImageBytes {
				t.Errorf("%v: %d bytes, want MaxImageBytes %d", g, got, MaxImageBytes)
			}
			g.Height++
			err := g.Validate()
			if err == nil || !strings.Contains(err.Error(), "MaxImageBytes") {
				t.Errorf("%v: %v, want an error naming MaxImageBytes", g, err)
			}
			// Padding counts: a stride one element longer than the row
			// takes the last row of the limit out of reach.
			g.Height--
			g.Stride = g.RowElems() + 1
			if err := g.Validate(); err == nil {
				t.Errorf("%v with padded rows validated", g)
			}
		}
	}
}

func TestWrapDataTooShort(t *testing.T) {
	g := Geometry{Width: 3, Height: 2, Channels: 2, Stride: 8} // Len = 8 + 6 = 14
	if _, err := WrapFloat32(g, make([]float32, 13)); err == nil || !strings.Contains(err.Error(), "13 elements shorter than the 14") {
		t.Errorf("WrapFloat32 short: %v", err)
	}
	if _, err := WrapUint8(g, make([]uint8, 2)); err == nil || !strings.Contains(err.Error(), "2 elements") {
		t.Errorf("WrapUint8 short: %v", err)
	}
	if _, err := WrapInt16(g, nil); err == nil || !strings.Contains(err.Error(), "0 elements") {
		t.Errorf("WrapInt16 nil: %v", err)
	}
	bad := g
	bad.Width = -1
	if _, err := WrapFloat32(bad, make([]float32, 100)); err == nil || !strings.Contains(err.Error(), "width -1") {
		t.Errorf("WrapFloat32 bad geometry: %v", err)
	}
	// Wrap sets the type from the slice and shares the data.
	data := make([]int16, 14)
	im, err := WrapInt16(Geometry{Width: 3, Height: 2, Channels: 2, Type: Float32, Stride: 8}, data)
	if err != nil {
		t.Fatal(err)
	}
	if im.Type != Int16 {
		t.Errorf("WrapInt16 type %v", im.Type)
	}
	im.Set(2, 1, 1, 7)
	if data[13] != 7 {
		t.Errorf("WrapInt16 copied the data: %v", data)
	}
}

func TestImageCheck(t *testing.T) {
	var nilImage *Image
	if err := nilImage.Check(); err == nil || !strings.Contains(err.Error(), "nil image") {
		t.Errorf("nil image: %v", err)
	}
	im, _ := NewImage(Geometry{Width: 2, Height: 2, Channels: 1, Type: Uint8})
	if err := im.Check(); err != nil {
		t.Error(err)
	}
	im.U8 = im.U8[:3]
	if err := im.Check(); err == nil || !strings.Contains(err.Error(), "3 elements") {
		t.Errorf("truncated data: %v", err)
	}
	im.Type = Float32 // data in the wrong slice
	if err := im.Check(); err == nil || !strings.Contains(err.Error(), "0 elements") {
		t.Errorf("wrong slice: %v", err)
	}
}

func TestOffsetAndLen(t *testing.T) {
	tests := []struct {
		name    string
		g       Geometry
		len     int
		x, y, c int
		off     int
		rowE    int
	}{
		// Interleaved 3x2x3, stride 10: row 1 starts at 10, ends 10+9.
		{"interleaved stride", Geometry{Width: 3, Height: 2, Channels: 3, Stride: 10}, 19, 2, 1, 1, 17, 9},
		{"interleaved packed", Geometry{Width: 3, Height: 2, Channels: 3}, 18, 2, 1, 2, 17, 9},
		// Planar 3x2x3, stride 4: plane c at c*8; the last plane's last
		// row needs only 3 elements: 3*2*4 - 1 = 23.
		{"planar stride", Geometry{Width: 3, Height: 2, Channels: 3, Layout: Planar, Stride: 4}, 23, 2, 1, 2, 22, 3},
		{"planar stride first", Geometry{Width: 3, Height: 2, Channels: 3, Layout: Planar, Stride: 4}, 23, 1, 0, 1, 9, 3},
		{"planar packed", Geometry{Width: 3, Height: 2, Channels: 3, Layout: Planar}, 18, 2, 1, 2, 17, 3},
		{"gray stride", Geometry{Width: 5, Height: 3, Channels: 1, Stride: 8}, 21, 4, 2, 0, 20, 5},
	}
	for _, tc := range tests {
		if err := tc.g.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := tc.g.Len(); got != tc.len {
			t.Errorf("%s: Len = %d, want %d", tc.name, got, tc.len)
		}
		if got := tc.g.Offset(tc.x, tc.y, tc.c); got != tc.off {
			t.Errorf("%s: Offset(%d,%d,%d) = %d, want %d", tc.name, tc.x, tc.y, tc.c, got, tc.off)
		}
		if got := tc.g.RowElems(); got != tc.rowE {
			t.Errorf("%s: RowElems = %d, want %d", tc.name, got, tc.rowE)
		}
		// Every (x, y, c) maps to a distinct index inside Len.
		seen := map[int]bool{}
		for c := 0; c < tc.g.Channels; c++ {
			for y := 0; y < tc.g.Height; y++ {
				for x := 0; x < tc.g.Width; x++ {
					o := tc.g.Offset(x, y, c)
					if o < 0 || o >= tc.g.Len() || seen[o] {
						t.Fatalf("%s: Offset(%d,%d,%d) = %d duplicate or outside 0..%d", tc.name, x, y, c, o, tc.g.Len()-1)
					}
					seen[o] = true
				}
			}
		}
	}
	g := Geometry{Width: 3, Height: 2, Channels: 3, Type: Int16, Stride: 10}
	if p := g.Packed(); p.Stride != 0 || p.RowStride() != 9 {
		t.Errorf("Packed = %v", p)
	}
	if g.Pixels() != 6 || g.Bytes() != 36 {
		t.Errorf("Pixels %d Bytes %d, want 6 and 36", g.Pixels(), g.Bytes())
	}
	if s := g.String(); s != "3x2x3 i16 interleaved stride 10" {
		t.Errorf("String = %q", s)
	}
}

func TestSetAtSaturation(t *testing.T) {
	tests := []struct {
		typ  ElemType
		in   float64
		want float64
	}{
		{Uint8, 0, 0},
		{Uint8, 255, 255},
		{Uint8, 255.5, 255},
		{Uint8, 1e9, 255},
		{Uint8, -3, 0},
		{Uint8, -0.4, 0},
		{Uint8, 2.5, 3}, // half away from zero
		{Uint8, 254.49, 254},
		{Uint8, math.NaN(), 0},
		{Uint8, math.Inf(1), 255},
		{Int16, 40000, 32767},
		{Int16, -40000, -32768},
		{Int16, 32767.4, 32767},
		{Int16, -2.5, -3},
		{Int16, 2.5, 3},
		{Int16, math.NaN(), 0},
		{Int16, math.Inf(-1), -32768},
		{Float32, 0.1, float64(float32(0.1))},
		{Float32, -1e40, math.Inf(-1)},
		{Float32, 3, 3},
	}
	for _, tc := range tests {
		im, err := NewImage(Geometry{Width: 2, Height: 2, Channels: 2, Type: tc.typ, Layout: Planar, Stride: 3})
		if err != nil {
			t.Fatal(err)
		}
		im.Set(1, 1, 1, tc.in)
		got := im.At(1, 1, 1)
		if got != tc.want {
			t.Errorf("%v Set(%v): At = %v, want %v", tc.typ, tc.in, got, tc.want)
		}
		// The element lives at (1*2+1)*3+1 = 10, the last of Len = 11.
		for _, o := range []int{0, 1, 3, 9} {
			if v := im.rawAt(o); v != 0 {
				t.Errorf("%v Set wrote element %d = %v", tc.typ, o, v)
			}
		}
		if v := im.rawAt(10); v != tc.want || im.Len() != 11 {
			t.Errorf("%v element 10 = %v, want %v", tc.typ, v, tc.want)
		}
	}
}

// rawAt reads element i of the image's data.
func (im *Image) rawAt(i int) float64 {
	switch im.Type {
	case Float32:
		return float64(im.F32[i])
	case Uint8:
		return float64(im.U8[i])
	}
	return float64(im.I16[i])
}

func TestFillAndClone(t *testing.T) {
	im, _ := NewImage(Geometry{Width: 2, Height: 2, Channels: 1, Type: Uint8, Stride: 3})
	im.Fill(300)
	for i, v := range im.U8 {
		if v != 255 {
			t.Fatalf("Fill(300) element %d = %d", i, v)
		}
	}
	c := im.Clone()
	c.U8[0] = 1
	if im.U8[0] != 255 || c.Geometry != im.Geometry {
		t.Error("Clone shares data or changed geometry")
	}
	f, _ := NewImage(Geometry{Width: 1, Height: 1, Channels: 1})
	f.Fill(math.NaN())
	if !math.IsNaN(float64(f.F32[0])) {
		t.Error("Fill(NaN) on f32 did not poison")
	}
	s, _ := NewImage(Geometry{Width: 1, Height: 1, Channels: 1, Type: Int16})
	s.Fill(-1e6)
	if s.I16[0] != -32768 {
		t.Errorf("Fill(-1e6) on i16 = %d", s.I16[0])
	}
}

func TestElemTypeAndLayoutNames(t *testing.T) {
	sizes := map[ElemType]int{Float32: 4, Uint8: 1, Int16: 2}
	for _, typ := range ElemTypes {
		got, err := ParseElemType(typ.String())
		if err != nil || got != typ || typ.Size() != sizes[typ] {
			t.Errorf("%v: parse %v %v size %d", typ, got, err, typ.Size())
		}
	}
	if _, err := ParseElemType("float32"); err == nil || !strings.Contains(err.Error(), `"float32"`) {
		t.Errorf("ParseElemType(float32): %v", err)
	}
	if ElemType(3).Valid() || ElemType(3).Size() != 0 || ElemType(3).String() != "ElemType(3)" {
		t.Error("ElemType(3) handled as valid")
	}
	if Interleaved.String() != "interleaved" || Planar.String() != "planar" || Layout(2).Valid() || Layout(2).String() != "Layout(2)" {
		t.Error("layout names or validity wrong")
	}
}

func TestCopyFrom(t *testing.T) {
	packed, err := NewImage(Geometry{Width: 5, Height: 3, Channels: 2, Type: Int16})
	if err != nil {
		t.Fatal(err)
	}
	for i := range packed.I16 {
		packed.I16[i] = int16(i*7 - 20)
	}
	for _, dstG := range []Geometry{
		{Width: 5, Height: 3, Channels: 2, Type: Int16},             // same stride: slice copy
		{Width: 5, Height: 3, Channels: 2, Type: Int16, Stride: 13}, // padded rows
	} {
		dst, err := NewImage(dstG)
		if err != nil {
			t.Fatal(err)
		}
		if err := dst.CopyFrom(packed); err != nil {
			t.Fatalf("%v: %v", dstG, err)
		}
		for c := 0; c < 2; c++ {
			for y := 0; y < 3; y++ {
				for x := 0; x < 5; x++ {
					if got, want := dst.At(x, y, c), packed.At(x, y, c); got != want {
						t.Errorf("%v: (%d,%d,%d) = %v, want %v", dstG, x, y, c, got, want)
					}
				}
			}
		}
	}
	for _, bad := range []Geometry{
		{Width: 4, Height: 3, Channels: 2, Type: Int16},
		{Width: 5, Height: 3, Channels: 2, Type: Float32},
		{Width: 5, Height: 3, Channels: 2, Type: Int16, Layout: Planar},
	} {
		dst, err := NewImage(bad)
		if err != nil {
			t.Fatal(err)
		}
		if err := dst.CopyFrom(packed); err == nil {
			t.Errorf("copy of %v into %v: no error", packed.Geometry, bad)
		}
	}
}
