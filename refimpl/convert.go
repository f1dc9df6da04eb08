package refimpl

import "github.com/convbench/convbench/convolve"

// rowConverter converts one row of contiguous uint8 or int16 values to
// float32; dst and src have the same length. Every uint8 and int16 value
// is a float32, so each conversion is exact and every loop gives the same
// values.
type rowConverter struct {
	u8  func(dst []float32, src []uint8)
	i16 func(dst []float32, src []int16)
}

// portableConvert is the portable path's conversion, vectorConvert the
// vector path's (convertU8Vector and convertI16Vector, the portable loops
// where there is no vector loop). Tests put broken loops in their place
// to show that the property suite catches them.
var (
	portableConvert = rowConverter{u8: convertU8, i16: convertI16}
	vectorConvert   = rowConverter{u8: convertU8Vector, i16: convertI16Vector}
	// vector512Convert is the AVX-512 path's conversion: the vector
	// path's loops, in a variable of its own so that a test can break
	// one path's without the other's.
	vector512Convert = rowConverter{u8: convertU8Vector, i16: convertI16Vector}
)

// convertU8 sets dst[x] to float32(src[x]), one value at a time.
func convertU8(dst []float32, src []uint8) {
	src = src[:len(dst)]
	for x, v := range src {
		dst[x] = float32(v)
	}
}

// convertI16 sets dst[x] to float32(src[x]), one value at a time.
func convertI16(dst []float32, src []int16) {
	src = src[:len(dst)]
	for x, v := range src {
		dst[x] = float32(v)
	}
}

// loadRow converts channel c of row y of in to float32 into dst (in.Width
// values), with the conversion of the plan's path for contiguous uint8
// and int16 rows, and the package's loadRow otherwise.
func (fp *fastPlan) loadRow(in *convolve.Image, c, y int, dst []float32) {
	if elemStep(in.Geometry) != 1 || in.Type == convolve.Float32 {
		loadRow(in, c, y, dst)
		return
	}
	conv := portableConvert
	switch fp.width {
	case 16:
		conv = vector512Convert
	case 8:
		conv = vectorConvert
	}
	dst = dst[:in.Width]
	base := in.Offset(0, y, c)
	switch in.Type {
	case convolve.Uint8:
		conv.u8(dst, in.U8[base:][:len(dst)])
	case convolve.Int16:
		conv.i16(dst, in.I16[base:][:len(dst)])
	}
}
