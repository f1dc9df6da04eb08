package convolve

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// ElemType is the element type of an image.
type ElemType int

const (
	Float32 ElemType = iota // 32-bit IEEE float
	Uint8                   // 8-bit unsigned integer (0..255)
	Int16                   // 16-bit signed integer
)

// ElemTypes lists every element type.
var ElemTypes = []ElemType{Float32, Uint8, Int16}

func (t ElemType) String() string { return enumString("ElemType", t, "f32", "u8", "i16") }

// enumString is the name of v, an enumeration of type typ whose values
// from 0 have names, or "typ(v)" for a value without one.
func enumString[T ~int](typ string, v T, names ...string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// Size returns the size of one element in bytes, 0 for an unknown type.
func (t ElemType) Size() int {
	if !t.Valid() {
		return 0
	}
	return [...]int{Float32: 4, Uint8: 1, Int16: 2}[t]
}

// Valid reports whether t is one of the defined element types.
func (t ElemType) Valid() bool { return t >= Float32 && t <= Int16 }

// ParseElemType parses the names String returns ("f32", "u8", "i16").
func ParseElemType(s string) (ElemType, error) {
	for _, t := range ElemTypes {
		if t.String() == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("convolve: unknown element type %q (want f32, u8 or i16)", s)
}

// Layout says how the channels of a multi-channel image are stored.
type Layout int

const (
	// Interleaved stores the channels of a pixel next to each other
	// (RGBRGB...); row y starts at element y*Stride.
	Interleaved Layout = iota
	// Planar stores each channel as a plane (RRR...GGG...); row y of
	// plane c starts at element (c*Height + y)*Stride.
	Planar
)

// Layouts lists every layout.
var Layouts = []Layout{Interleaved, Planar}

func (l Layout) String() string { return enumString("Layout", l, "interleaved", "planar") }

// Valid reports whether l is one of the defined layouts.
func (l Layout) Valid() bool { return l == Interleaved || l == Planar }

// MaxChannels is the largest channel count an image may have.
const MaxChannels = 4

// MaxImageBytes is the largest data size of one image, padding included:
// 16 GiB. Validate refuses larger geometries (and those over the largest
// int), so that every size and offset of a valid geometry fits in an int.
const MaxImageBytes int64 = 16 << 30

// Geometry is the shape of an image without its data.
type Geometry struct {
	Width, Height int
	Channels      int // 1 to MaxChannels
	Type          ElemType
	Layout        Layout
	// Stride is the distance in elements between the starts of two rows:
	// at least Width*Channels for Interleaved, at least Width for Planar.
	// Zero means packed rows.
	Stride int
}

// Validate checks the geometry and names the first bad value; an image
// whose data would exceed MaxImageBytes gets a *SizeError.
func (g Geometry) Validate() error {
	if g.Width <= 0 {
		return fmt.Errorf("convolve: image width %d: must be positive", g.Width)
	}
	if g.Height <= 0 {
		return fmt.Errorf("convolve: image height %d: must be positive", g.Height)
	}
	if g.Channels < 1 || g.Channels > MaxChannels {
		return fmt.Errorf("convolve: image channels %d: must be 1 to %d", g.Channels, MaxChannels)
	}
	if !g.Type.Valid() {
		return fmt.Errorf("convolve: image element type %d: unknown", int(g.Type))
	}
	if !g.Layout.Valid() {
		return fmt.Errorf("convolve: image layout %d: unknown", int(g.Layout))
	}
	if g.Stride < 0 {
		return fmt.Errorf("convolve: image stride %d: must not be negative", g.Stride)
	}
	if n, ok := g.dataBytes(); !ok || n > maxImageBytes() {
		return g.tooLarge()
	}
	// Width*Channels is within the limit from here on.
	if g.Stride != 0 && g.Stride < g.RowElems() {
		return fmt.Errorf("convolve: image stride %d shorter than a row of %d elements", g.Stride, g.RowElems())
	}
	return nil
}

// maxImageBytes is MaxImageBytes, or the largest int where that is
// smaller.
func maxImageBytes() uint64 { return min(uint64(MaxImageBytes), uint64(math.MaxInt)) }

// dataBytes is Len()*Type.Size() of a geometry whose other fields are
// valid; ok is false when it overflows 64 bits.
func (g Geometry) dataBytes() (n uint64, ok bool) {
	w, h, c, s := uint64(g.Width), uint64(g.Height), uint64(g.Channels), uint64(g.Stride)
	ok = true
	mul := func(a, b uint64) uint64 {
		hi, lo := bits.Mul64(a, b)
		ok = ok && hi == 0
		return lo
	}
	add := func(a, b uint64) uint64 {
		sum, carry := bits.Add64(a, b, 0)
		ok = ok && carry == 0
		return sum
	}
	// Interleaved: (h-1)*s + w*c; planar: (c*h-1)*s + w (see Len).
	row, rows := mul(w, c), h-1
	if g.Layout == Planar {
		row, rows = w, mul(c, h)-1
	}
	if s == 0 {
		s = row
	}
	n = mul(add(mul(rows, s), row), uint64(g.Type.Size()))
	return n, ok
}

// SizeError reports an image whose data would be larger than
// MaxImageBytes (or than the largest int).
type SizeError struct {
	Geometry Geometry
	Bytes    *big.Int // the exact size of the data, padding included
	Limit    int64    // the largest size accepted
	stride   *big.Int // the row stride in elements, Stride or the packed row
}

func (e *SizeError) Error() string {
	g := e.Geometry
	return fmt.Sprintf("convolve: image %dx%dx%d %v %v stride %v: %v bytes of data, more than the limit of %d bytes (MaxImageBytes)",
		g.Width, g.Height, g.Channels, g.Type, g.Layout, e.stride, e.Bytes, e.Limit)
}

// tooLarge is the *SizeError of a geometry over the size limit.
func (g Geometry) tooLarge() error {
	w, h, c := big.NewInt(int64(g.Width)), big.NewInt(int64(g.Height)), big.NewInt(int64(g.Channels))
	row, rows := new(big.Int).Mul(w, c), new(big.Int).Sub(h, big.NewInt(1))
	if g.Layout == Planar {
		row.Set(w)
		rows.Mul(c, h).Sub(rows, big.NewInt(1))
	}
	s := big.NewInt(int64(g.Stride))
	if g.Stride == 0 {
		s.Set(row)
	}
	n := new(big.Int).Mul(rows, s)
	n.Add(n, row).Mul(n, big.NewInt(int64(g.Type.Size())))
	return &SizeError{Geometry: g, Bytes: n, Limit: int64(maxImageBytes()), stride: s}
}

// RowElems is the number of data elements in one row (of one plane).
func (g Geometry) RowElems() int {
	if g.Layout == Planar {
		return g.Width
	}
	return g.Width * g.Channels
}

// RowStride is the effective stride: Stride, or RowElems when Stride is 0.
func (g Geometry) RowStride() int {
	if g.Stride == 0 {
		return g.RowElems()
	}
	return g.Stride
}

// Len is the number of elements the image's data must hold.
func (g Geometry) Len() int {
	s := g.RowStride()
	if g.Layout == Planar {
		return g.Channels*g.Height*s - (s - g.Width)
	}
	return (g.Height-1)*s + g.Width*g.Channels
}

// Pixels is Width*Height.
func (g Geometry) Pixels() int { return g.Width * g.Height }

// Offset is the element index of channel c of pixel (x, y).
func (g Geometry) Offset(x, y, c int) int {
	s := g.RowStride()
	if g.Layout == Planar {
		return (c*g.Height+y)*s + x
	}
	return y*s + x*g.Channels + c
}

// Packed returns g with Stride 0 (rows back to back).
func (g Geometry) Packed() Geometry {
	g.Stride = 0
	return g
}

func (g Geometry) String() string {
	return fmt.Sprintf("%dx%dx%d %v %v stride %d", g.Width, g.Height, g.Channels, g.Type, g.Layout, g.RowStride())
}

// Image is a 2-D image with 1 to 4 channels. Exactly one of F32, U8 and I16
// holds the data, according to Type.
type Image struct {
	Geometry
	F32 []float32
	U8  []uint8
	I16 []int16
}

// NewImage allocates a zeroed image of the given geometry.
func NewImage(g Geometry) (*Image, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	im := &Image{Geometry: g}
	n := g.Len()
	switch g.Type {
	case Float32:
		im.F32 = make([]float32, n)
	case Uint8:
		im.U8 = make([]uint8, n)
	case Int16:
		im.I16 = make([]int16, n)
	}
	return im, nil
}

// WrapFloat32 makes an image over existing float32 data without copying.
func WrapFloat32(g Geometry, data []float32) (*Image, error) {
	g.Type = Float32
	return wrap(&Image{Geometry: g, F32: data}, len(data))
}

// WrapUint8 makes an image over existing uint8 data without copying.
func WrapUint8(g Geometry, data []uint8) (*Image, error) {
	g.Type = Uint8
	return wrap(&Image{Geometry: g, U8: data}, len(data))
}

// WrapInt16 makes an image over existing int16 data without copying.
func WrapInt16(g Geometry, data []int16) (*Image, error) {
	g.Type = Int16
	return wrap(&Image{Geometry: g, I16: data}, len(data))
}

// wrap returns im when its geometry is valid and n elements hold its data.
func wrap(im *Image, n int) (*Image, error) {
	if err := im.checkData(n); err != nil {
		return nil, err
	}
	return im, nil
}

func (g Geometry) checkData(n int) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if n < g.Len() {
		return fmt.Errorf("convolve: data of %d elements shorter than the %d the geometry %v needs", n, g.Len(), g)
	}
	return nil
}

// Check verifies that the image's data matches its geometry.
func (im *Image) Check() error {
	if im == nil {
		return fmt.Errorf("convolve: nil image")
	}
	var n int
	switch im.Type {
	case Float32:
		n = len(im.F32)
	case Uint8:
		n = len(im.U8)
	case Int16:
		n = len(im.I16)
	}
	return im.checkData(n)
}

// At returns channel c of pixel (x, y) as a float64.
func (im *Image) At(x, y, c int) float64 {
	i := im.Offset(x, y, c)
	switch im.Type {
	case Float32:
		return float64(im.F32[i])
	case Uint8:
		return float64(im.U8[i])
	default:
		return float64(im.I16[i])
	}
}

// Set stores v in channel c of pixel (x, y), rounded to nearest and, for
// integer types, saturated.
func (im *Image) Set(x, y, c int, v float64) {
	i := im.Offset(x, y, c)
	switch im.Type {
	case Float32:
		im.F32[i] = float32(v)
	case Uint8:
		im.U8[i] = SaturateUint8(v)
	default:
		im.I16[i] = SaturateInt16(v)
	}
}

// SaturateUint8 rounds v to nearest (half away from zero) and clamps it to
// 0..255. NaN becomes 0.
func SaturateUint8(v float64) uint8 {
	if !(v > 0) {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(math.Round(v))
}

// SaturateInt16 rounds v to nearest (half away from zero) and clamps it to
// the int16 range. NaN becomes 0.
func SaturateInt16(v float64) int16 {
	if v != v {
		return 0
	}
	if v <= math.MinInt16 {
		return math.MinInt16
	}
	if v >= math.MaxInt16 {
		return math.MaxInt16
	}
	return int16(math.Round(v))
}

// Clone returns a deep copy of the image.
func (im *Image) Clone() *Image {
	c := &Image{Geometry: im.Geometry}
	c.F32 = append([]float32(nil), im.F32...)
	c.U8 = append([]uint8(nil), im.U8...)
	c.I16 = append([]int16(nil), im.I16...)
	return c
}

// CopyFrom copies the pixels of src into im, which must have the same
// width, height, channels, element type and layout; strides may differ.
func (im *Image) CopyFrom(src *Image) error {
	a, b := im.Geometry, src.Geometry
	if a.Width != b.Width || a.Height != b.Height || a.Channels != b.Channels || a.Type != b.Type || a.Layout != b.Layout {
		return fmt.Errorf("convolve: copy of a %v image into a %v one: shapes differ", b, a)
	}
	if im.RowStride() == src.RowStride() {
		switch im.Type {
		case Float32:
			copy(im.F32, src.F32)
		case Uint8:
			copy(im.U8, src.U8)
		case Int16:
			copy(im.I16, src.I16)
		}
		return nil
	}
	for c := 0; c < src.Channels; c++ {
		for y := 0; y < src.Height; y++ {
			for x := 0; x < src.Width; x++ {
				im.Set(x, y, c, src.At(x, y, c))
			}
		}
	}
	return nil
}

// Fill sets every element of the image's data, padding included, to v
// (saturated for integer types).
func (im *Image) Fill(v float64) {
	switch im.Type {
	case Float32:
		f := float32(v)
		for i := range im.F32 {
			im.F32[i] = f
		}
	case Uint8:
		u := SaturateUint8(v)
		for i := range im.U8 {
			im.U8[i] = u
		}
	case Int16:
		s := SaturateInt16(v)
		for i := range im.I16 {
			im.I16[i] = s
		}
	}
}

// Bytes is the number of data bytes of the pixels (padding excluded).
func (g Geometry) Bytes() int64 {
	return int64(g.Width) * int64(g.Height) * int64(g.Channels) * int64(g.Type.Size())
}
