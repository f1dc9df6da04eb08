package refimpl

// u8ToFloat32 sets dst[x] = float32(src[x]) for x in 0..n-1, n a multiple
// of 8, eight values per instruction (AVX).
//
//go:noescape
func u8ToFloat32(dst *float32, src *uint8, n int)

// i16ToFloat32 is u8ToFloat32 for int16 values.
//
//go:noescape
func i16ToFloat32(dst *float32, src *int16, n int)

// convertU8Vector is the vector path's uint8 conversion: the first
// multiple of eight values in u8ToFloat32, the rest in Go.
func convertU8Vector(dst []float32, src []uint8) {
	src = src[:len(dst)]
	m := len(dst) &^ 7
	if m > 0 {
		u8ToFloat32(&dst[0], &src[0], m)
	}
	convertU8(dst[m:], src[m:])
}

// convertI16Vector is convertU8Vector for int16 values.
func convertI16Vector(dst []float32, src []int16) {
	src = src[:len(dst)]
	m := len(dst) &^ 7
	if m > 0 {
		i16ToFloat32(&dst[0], &src[0], m)
	}
	convertI16(dst[m:], src[m:])
}
