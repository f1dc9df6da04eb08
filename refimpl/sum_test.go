package refimpl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// passValue returns a random row value: mostly ordinary, sometimes zero,
// subnormal, huge, infinite or NaN.
func passValue(r *rand.Rand) float32 {
	switch r.IntN(40) {
	case 0:
		return float32(math.NaN())
	case 1:
		return float32(math.Inf(1))
	case 2:
		return float32(math.Inf(-1))
	case 3:
		return math.Float32frombits(1 + r.Uint32N(1<<23)) // subnormal
	case 4:
		return 0
	case 5:
		return 3e38 * float32(r.NormFloat64())
	}
	return float32(r.NormFloat64())
}

// samePass reports whether got and want are the same float32: the same
// bits, or both NaN.
func samePass(got, want float32) bool {
	return math.Float32bits(got) == math.Float32bits(want) || got != got && want != want
}

// TestSumVector checks that the passes sumVector and sumVector512 take
// give the same values as the portable passes on rows of every length up
// to 150 (so every remainder after blocks of 128, 64, 16 and 8 occurs), 1
// to 9 terms, set and add, with non-finite and subnormal values among the
// rows and weights. sumVector512 is checked where the CPU has AVX-512F.
func TestSumVector(t *testing.T) {
	vectors := []struct {
		name string
		sum  func([]float32, []term, bool)
	}{{"vector", sumVector}}
	if hasVector512 {
		vectors = append(vectors, struct {
			name string
			sum  func([]float32, []term, bool)
		}{"vector512", sumVector512})
	} else {
		t.Log("this CPU has no AVX-512F: sumVector512 is not checked")
	}
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) { checkSumVector(t, v.sum) })
	}
}

func checkSumVector(t *testing.T, sum func([]float32, []term, bool)) {
	r := rand.New(rand.NewPCG(18, 8))
	for n := 0; n <= 150; n++ {
		for k := 1; k <= maxPass; k++ {
			for _, set := range []bool{true, false} {
				t.Run(fmt.Sprintf("n=%d/k=%d/set=%v", n, k, set), func(t *testing.T) {
					terms := make([]term, k)
					for j := range terms {
						src := make([]float32, n+r.IntN(3))
						for x := range src {
							src[x] = passValue(r)
						}
						terms[j] = term{src: src[len(src)-n:], w: passValue(r)}
					}
					start := make([]float32, n)
					for x := range start {
						start[x] = passValue(r)
					}
					got, want := append([]float32(nil), start...), append([]float32(nil), start...)
					sum(got, terms, set)
					passes[k](want, terms, set)
					for x := range want {
						if !samePass(got[x], want[x]) {
							t.Fatalf("x=%d: vector %v, portable %v", x, got[x], want[x])
						}
					}
				})
			}
		}
	}
}

// TestPortablePasses runs the variant tests with the registered cpu-fast
// on the portable passes, so they are proven where the vector pass is the
// default.
func TestPortablePasses(t *testing.T) {
	defer func(w int) { autoWidth = w }(autoWidth)
	autoWidth = 0
	t.Run("VariantsAgreeWithExpect", TestVariantsAgreeWithExpect)
	t.Run("NonFiniteIEEE", TestNonFiniteIEEE)
	t.Run("SeparablePath", TestSeparablePath)
	t.Run("HandComputed", TestHandComputed)
	t.Run("Identity", TestIdentity)
}
