package refimpl

import "golang.org/x/sys/cpu"

// hasVector reports whether this CPU runs sumVector (AVX), hasVector512
// whether it also runs sumVector512 (AVX-512F).
var (
	hasVector    = cpu.X86.HasAVX
	hasVector512 = hasVector && cpu.X86.HasAVX512F
)

// mulAddRows16 is mulAddRows sixteen values per instruction (AVX-512F),
// for n a multiple of 16, with the same result.
//
//go:noescape
func mulAddRows16(dst *float32, n int, srcs **float32, ws *float32, k int, set bool)

// mulAddRows sets dst[x] (set) or adds to it, for x in 0..n-1 with n a
// multiple of 8 and k >= 1, ws[0]*srcs[0][x] + ... + ws[k-1]*srcs[k-1][x],
// eight values per instruction, each product rounded and the sum taken
// left to right as in sum1..sum9. Every srcs[j] must hold n values.
//
//go:noescape
func mulAddRows(dst *float32, n int, srcs **float32, ws *float32, k int, set bool)

// sumVector is one pass of the terms t (at most maxPass) over dst, with
// the result of passes[len(t)]: the first multiple of eight values in
// mulAddRows, the rest in sumTail.
func sumVector(dst []float32, t []term, set bool) {
	var srcs [maxPass]*float32
	var ws [maxPass]float32
	if len(t) == 0 {
		if set {
			clear(dst)
		}
		return
	}
	n := len(dst)
	m := n &^ 7
	if m > 0 {
		for j := range t {
			srcs[j] = &t[j].src[:n][0]
			ws[j] = t[j].w
		}
		mulAddRows(&dst[0], m, &srcs[0], &ws[0], len(t), set)
	}
	sumTail(dst, t, set, m)
}

// sumTail is sumVector's pass over dst[from:], one value at a time.
func sumTail(dst []float32, t []term, set bool, from int) {
	for x := from; x < len(dst); x++ {
		s := t[0].w * t[0].src[x]
		for _, tj := range t[1:] {
			// The conversion keeps the product rounded (unfused).
			s += float32(tj.w * tj.src[x])
		}
		if set {
			dst[x] = s
		} else {
			dst[x] += s
		}
	}
}

// sumVector512 is sumVector with the first multiple of sixteen values in
// mulAddRows16.
func sumVector512(dst []float32, t []term, set bool) {
	n := len(dst)
	m := n &^ 15
	if len(t) == 0 || m == 0 {
		sumVector(dst, t, set)
		return
	}
	var srcs [maxPass]*float32
	var ws [maxPass]float32
	var rest [maxPass]term
	for j := range t {
		srcs[j] = &t[j].src[:n][0]
		ws[j] = t[j].w
		rest[j] = term{src: t[j].src[m:n], w: t[j].w}
	}
	mulAddRows16(&dst[0], m, &srcs[0], &ws[0], len(t), set)
	if m < n {
		sumVector(dst[m:], rest[:len(t)], set)
	}
}
