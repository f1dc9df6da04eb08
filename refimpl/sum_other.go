//go:build !amd64

package refimpl

// hasVector is false: passes over a row use the portable loops
// sum1..sum9 on this architecture.
var hasVector = false

// hasVector512 is false: there is no 512-bit loop on this architecture.
var hasVector512 = false

// sumVector512 is one pass of the terms t over dst; with no vector loop
// on this architecture it is the portable one.
func sumVector512(dst []float32, t []term, set bool) {
	passes[len(t)](dst, t, set)
}

// sumVector is one pass of the terms t over dst; with no vector loop on
// this architecture it is the portable one.
func sumVector(dst []float32, t []term, set bool) {
	passes[len(t)](dst, t, set)
}

// convertU8Vector is the vector path's uint8 conversion; with no vector
// loop on this architecture it is the portable one.
func convertU8Vector(dst []float32, src []uint8) { convertU8(dst, src) }

// convertI16Vector is the vector path's int16 conversion; with no vector
// loop on this architecture it is the portable one.
func convertI16Vector(dst []float32, src []int16) { convertI16(dst, src) }
