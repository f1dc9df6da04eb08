package refimpl

import "github.com/convbench/convbench/convolve"

// rowConverter converts one row of contiguous uint8 or int16 values to
// float32; dst and src have the same length. Every conversion is exact.
type rowConverter struct {
	u8  func(dst []float32, src []uint8)
	i16 func(dst []float32, src []int16)
}

// The conversions of the portable, vector and AVX-512 paths, in variables
// of their own so that tests can break one path's.
var (
	portableConvert  = rowConverter{u8: convertU8, i16: convertI16}
	vectorConvert    = rowConverter{u8: convertU8Vector, i16: convertI16Vector}
	vector512Convert = rowConverter{u8: convertU8Vector, i16: convertI16Vector}
)

// convertU8 sets dst[x] to float32(src[x]), one value at a time.
func convertU8(dst []float32, src []uint8) { gather(dst, src[:len(dst)], 1) }

// convertI16 sets dst[x] to float32(src[x]), one value at a time.
func convertI16(dst []float32, src []int16) { gather(dst, src[:len(dst)], 1) }

// loadRow converts channel c of row y of in to float32 into dst (in.Width
// values), contiguous uint8 and int16 rows with the plan's path's
// conversion, others with the package's loadRow.
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
