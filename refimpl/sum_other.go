//go:build !amd64

package refimpl

// No vector loops on this architecture: the vector paths are unavailable,
// and their passes and conversions are the portable ones.
var (
	hasVector    = false
	hasVector512 = false
)

func sumVector512(dst []float32, t []term, set bool) { passes[len(t)](dst, t, set) }

func sumVector(dst []float32, t []term, set bool) { passes[len(t)](dst, t, set) }

func convertU8Vector(dst []float32, src []uint8) { convertU8(dst, src) }

func convertI16Vector(dst []float32, src []int16) { convertI16(dst, src) }
