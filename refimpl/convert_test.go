package refimpl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvertRows checks both paths' row conversions against float32(v)
// on rows of every length up to 80 (so every remainder after blocks of
// 32 and 8 occurs), with the extreme values of each type among random
// ones, and that they write no value past the row.
func TestConvertRows(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 16))
	paths := []struct {
		name string
		conv rowConverter
	}{{"portable", portableConvert}, {"vector", vectorConvert}}
	const guard = -7.5 // not a converted value
	for _, p := range paths {
		for n := 0; n <= 80; n++ {
			t.Run(fmt.Sprintf("%s/n=%d", p.name, n), func(t *testing.T) {
				u8 := make([]uint8, n)
				i16 := make([]int16, n)
				for x := range n {
					u8[x] = uint8(r.Uint32())
					i16[x] = int16(r.Uint32())
					switch x % 5 {
					case 1:
						u8[x], i16[x] = math.MaxUint8, math.MinInt16
					case 3:
						u8[x], i16[x] = 0, math.MaxInt16
					}
				}
				dst := make([]float32, n+1)
				for x := range dst {
					dst[x] = guard
				}
				p.conv.u8(dst[:n], u8)
				for x, v := range u8 {
					if dst[x] != float32(v) {
						t.Fatalf("uint8 x=%d: %v, want %v", x, dst[x], v)
					}
				}
				if dst[n] != guard {
					t.Fatalf("uint8: wrote %v past the row's %d values", dst[n], n)
				}
				p.conv.i16(dst[:n], i16)
				for x, v := range i16 {
					if dst[x] != float32(v) {
						t.Fatalf("int16 x=%d: %v, want %v", x, dst[x], v)
					}
				}
				if dst[n] != guard {
					t.Fatalf("int16: wrote %v past the row's %d values", dst[n], n)
				}
			})
		}
	}
}
