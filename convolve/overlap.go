package convolve

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrOverlap is the error (wrapped) of a run whose output data shares
// memory with its input.
var ErrOverlap = errors.New("convolve: output data overlaps the input data; running in place is not supported")

// dataRange returns the first address and the length in bytes of im's
// data slice for its element type.
func dataRange(im *Image) (start uintptr, n uintptr) {
	if im == nil {
		return 0, 0
	}
	switch im.Type {
	case Float32:
		return uintptr(unsafe.Pointer(unsafe.SliceData(im.F32))), uintptr(len(im.F32)) * unsafe.Sizeof(float32(0))
	case Uint8:
		return uintptr(unsafe.Pointer(unsafe.SliceData(im.U8))), uintptr(len(im.U8))
	case Int16:
		return uintptr(unsafe.Pointer(unsafe.SliceData(im.I16))), uintptr(len(im.I16)) * unsafe.Sizeof(int16(0))
	}
	return 0, 0
}

// Overlap reports whether the data of a and b (over their lengths) share
// at least one byte of memory, whatever their element types.
func Overlap(a, b *Image) bool {
	sa, na := dataRange(a)
	sb, nb := dataRange(b)
	if na == 0 || nb == 0 {
		return false
	}
	return sa < sb+nb && sb < sa+na
}

// CheckNoOverlap returns an error wrapping ErrOverlap when out's data
// shares memory with in's.
func CheckNoOverlap(in, out *Image) error {
	if !Overlap(in, out) {
		return nil
	}
	si, ni := dataRange(in)
	so, no := dataRange(out)
	lo, hi := max(si, so), min(si+ni, so+no)
	return fmt.Errorf("%w (%d of the output's %d bytes lie in the input's %d)", ErrOverlap, hi-lo, no, ni)
}
