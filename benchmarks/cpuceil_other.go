//go:build !amd64

package benchmarks

import "math"

// hasFMALoop is false: there is no vector multiply-add loop on this
// architecture, and the FMA ceiling is not measured.
var hasFMALoop = false

// fmaLoop is the amd64 loop's arithmetic in Go, one value at a time (each
// step a float64 fused multiply-add rounded to float32); no ceiling is
// measured with it.
func fmaLoop(acc *[fmaLanes]float32, m, c float32, n int) {
	for range n {
		for i, a := range acc {
			acc[i] = float32(math.FMA(float64(m), float64(a), float64(c)))
		}
	}
}
