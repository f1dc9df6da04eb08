package convolve

import (
	"errors"
	"testing"
	"unsafe"
)

// TestOverlap: any shared byte of input and output data is an overlap,
// whatever the capacities, offsets and element types; disjoint parts of
// one array are not.
func TestOverlap(t *testing.T) {
	const n = 12
	g := Geometry{Width: 3, Height: 4, Channels: 1}
	f32 := make([]float32, 3*n)
	u8 := make([]uint8, 3*n)
	i16 := make([]int16, 3*n)
	// A uint8 and a float32 view of the same bytes.
	bytesOfF32 := unsafe.Slice((*uint8)(unsafe.Pointer(&f32[0])), 4*len(f32))
	wrapF := func(d []float32) *Image { im, _ := WrapFloat32(g, d); return im }
	wrapU := func(d []uint8) *Image { im, _ := WrapUint8(g, d); return im }
	wrapI := func(d []int16) *Image { im, _ := WrapInt16(g, d); return im }
	tests := []struct {
		name    string
		in, out *Image
		want    bool
	}{
		{"same slice", wrapF(f32[:n]), wrapF(f32[:n]), true},
		{"capacity-capped, one element apart", wrapF(f32[0:n:n]), wrapF(f32[1 : n+1 : n+1]), true},
		{"capacity-capped, last element shared", wrapF(f32[0:n:n]), wrapF(f32[n-1 : 2*n-1 : 2*n-1]), true},
		{"output before input, shared element", wrapF(f32[n-1 : 2*n-1]), wrapF(f32[0:n:n]), true},
		{"adjacent, disjoint", wrapF(f32[0:n:n]), wrapF(f32[n : 2*n]), false},
		{"adjacent, input reaching the end", wrapF(f32[n : 2*n]), wrapF(f32[0:n]), false},
		{"uint8 capped", wrapU(u8[0:n:n]), wrapU(u8[5 : n+5 : n+5]), true},
		{"int16 capped", wrapI(i16[0:n:n]), wrapI(i16[n-1 : 2*n-1 : 2*n-1]), true},
		{"int16 disjoint", wrapI(i16[0:n]), wrapI(i16[n : 2*n]), false},
		{"uint8 view into float32 data", wrapU(bytesOfF32[4*n-1 : 5*n-1]), wrapF(f32[0:n]), true},
		{"uint8 view after float32 data", wrapU(bytesOfF32[4*n : 5*n]), wrapF(f32[0:n]), false},
		{"separate arrays", wrapF(make([]float32, n)), wrapF(make([]float32, n)), false},
		{"nil input", nil, wrapF(f32[:n]), false},
	}
	for _, tt := range tests {
		if got := Overlap(tt.in, tt.out); got != tt.want {
			t.Errorf("%s: Overlap = %v, want %v", tt.name, got, tt.want)
		}
		err := CheckNoOverlap(tt.in, tt.out)
		if got := errors.Is(err, ErrOverlap); got != tt.want || (!tt.want && err != nil) {
			t.Errorf("%s: CheckNoOverlap = %v, want ErrOverlap %v", tt.name, err, tt.want)
		}
	}
}
