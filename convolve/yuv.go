package convolve

// RGBToYUVPixel converts one 8-bit RGB pixel to BT.601 "studio swing" YUV
// (Y in 16..235, U and V in 16..240) with 8-bit fixed-point coefficients:
//
//	Y = (( 66*R + 129*G +  25*B + 128) >> 8) + 16
//	U = ((-38*R -  74*G + 112*B + 128) >> 8) + 128
//	V = ((112*R -  94*G -  18*B + 128) >> 8) + 128
//
// with >> an arithmetic shift, as libyuv computes it; results lie in
// 0..255. Every variant must match it bit for bit.
func RGBToYUVPixel(r, g, b uint8) (y, u, v uint8) {
	R, G, B := int32(r), int32(g), int32(b)
	y = uint8(((66*R + 129*G + 25*B + 128) >> 8) + 16)
	u = uint8(((-38*R - 74*G + 112*B + 128) >> 8) + 128)
	v = uint8(((112*R - 94*G - 18*B + 128) >> 8) + 128)
	return
}
