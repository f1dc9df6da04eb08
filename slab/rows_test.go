package slab

import "github.com/convbench/convbench/convolve"

// planes is the number of separately stored row sequences of g: one for
// Interleaved, one per channel for Planar.
func planes(g convolve.Geometry) int {
	if g.Layout == convolve.Planar {
		return g.Channels
	}
	return 1
}

// rowOf returns the elements of row y of plane c of data laid out as g.
func rowOf[T any](data []T, g convolve.Geometry, y, c int) []T {
	o := g.Offset(0, y, c)
	return data[o : o+g.RowElems()]
}

// copyRow copies row sy of every plane of src into row dy of the same
// plane of dst. The images have the same width, channels, element type
// and layout; their heights and strides may differ.
func copyRow(dst *convolve.Image, dy int, src *convolve.Image, sy int) {
	for c := range planes(dst.Geometry) {
		switch dst.Type {
		case convolve.Float32:
			copy(rowOf(dst.F32, dst.Geometry, dy, c), rowOf(src.F32, src.Geometry, sy, c))
		case convolve.Uint8:
			copy(rowOf(dst.U8, dst.Geometry, dy, c), rowOf(src.U8, src.Geometry, sy, c))
		case convolve.Int16:
			copy(rowOf(dst.I16, dst.Geometry, dy, c), rowOf(src.I16, src.Geometry, sy, c))
		}
	}
}

// buffer is host memory for images of one element type, reused for
// images of several heights.
type buffer struct {
	f32 []float32
	u8  []uint8
	i16 []int16
}

// newBuffer allocates room for an image of geometry g.
func newBuffer(g convolve.Geometry) buffer {
	switch g.Type {
	case convolve.Float32:
		return buffer{f32: make([]float32, g.Len())}
	case convolve.Uint8:
		return buffer{u8: make([]uint8, g.Len())}
	default:
		return buffer{i16: make([]int16, g.Len())}
	}
}

// image returns an image of geometry g over the start of the buffer,
// which must be large enough.
func (b buffer) image(g convolve.Geometry) *convolve.Image {
	n := g.Len()
	im := &convolve.Image{Geometry: g}
	switch g.Type {
	case convolve.Float32:
		im.F32 = b.f32[:n]
	case convolve.Uint8:
		im.U8 = b.u8[:n]
	default:
		im.I16 = b.i16[:n]
	}
	return im
}

// imageBytes is the size of the data of an image of geometry g.
func imageBytes(g convolve.Geometry) int64 {
	return convolve.MulBytes(int64(g.Len()), int64(g.Type.Size()))
}
