package refimpl

import (
	"math"
	"runtime"
	"slices"

	"github.com/convbench/convbench/convolve"
)

// fast is the "cpu-fast" variant, report 004's "CPU fast": float32 on
// every core, its row sums on path.
//
// Goroutines take chunks of rows. The input rows an output row needs are
// converted once into a ring of KH rows padded through Border.Index, and
// an output row is a weighted sum over the taps' shifted rows, up to nine
// terms a pass (weightedSum).
//
// A rank-1 filter w[j][i] = col[j]*row[i] takes two 1-D passes, which
// equals the 2-D result under every border since borders extend an image
// axis by axis. Its sum stays within convolve.Tolerance (KW*KH+KW+KH
// roundings) when the factors reproduce each weight within
// (KW*KH-1)*2^-24 relative error (factorsExact); otherwise the plan takes
// the 2-D path.
//
// Every tap is an IEEE multiply and add: a zero weight or factor is
// skipped only on rows of finite values, and a Zero-border row outside
// the image only when its filter row is finite. A filter with a
// non-finite weight is never separable, and a factor is zero exactly
// where its weights are, so the classes of the outputs match the
// reference's.
type fast struct{ path FastPath }

func (f fast) Describe() convolve.Description {
	sum := "float32 on every core: rows split across goroutines, separable path for rank-1 filters, borders apart from the interior"
	if f.path != FastAuto {
		sum += "; row sums in the " + f.path.String() + " loops only"
	}
	return convolve.Description{
		Name:    "cpu-fast",
		Summary: sum,
		Report:  "004",
		Caps:    cpuCaps(),
	}
}

func (f fast) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := checkPlan(f.Describe(), p, cfg, fastScratch); err != nil {
		return nil, err
	}
	p.Filter = p.Filter.Clone()
	fp := &fastPlan{p: p, width: f.path.width()}
	switch p.Op {
	case convolve.Filter2D:
		fp.stages = []stage{newStage(p.Filter.Oriented(p.Mode))}
	case convolve.SobelMagnitude:
		gx, gy := sobelWeights()
		fp.stages = []stage{newStage(gx), newStage(gy)}
	}
	for i := range fp.stages {
		fp.zeroTaps = fp.zeroTaps || fp.stages[i].hasZero()
	}
	if p.Op != convolve.RGBToYUV {
		fp.kw, fp.kh = p.KernelSize()
	}
	fp.addWorkers(runtime.GOMAXPROCS(0))
	return fp, nil
}

// addWorkers gives the plan scratch space for n goroutines.
func (fp *fastPlan) addWorkers(n int) {
	for len(fp.workers) < n {
		var wk *fastWorker
		if fp.p.Op != convolve.RGBToYUV {
			wk = fp.newWorker()
		}
		fp.workers = append(fp.workers, wk)
	}
}

// fastScratch bounds the host memory a cpu-fast plan allocates.
func fastScratch(p convolve.Problem) int64 {
	return convolve.MulBytes(int64(runtime.GOMAXPROCS(0)), fastWorkerBytes(p))
}

// fastWorkerBytes bounds the scratch space of one goroutine: KH+1
// padded rows (the ring and a row of zeros) and, per stage, KH+1 rows of
// output width.
func fastWorkerBytes(p convolve.Problem) int64 {
	if p.Op == convolve.RGBToYUV {
		return 0
	}
	kw, kh := p.KernelSize()
	w := int64(p.Input.Width)
	return floatBytes(int64(kh)+1, w+int64(kw)-1) + floatBytes(2, int64(kh)+1, w)
}

// stage is one filter a plan applies; SobelMagnitude has two (gx, gy).
type stage struct {
	w        []float32 // oriented weights, KH rows of KW
	row, col []float32 // rank-1 factors, nil for the 2-D path
	// nonFinite[j]: filter row j holds a non-finite weight (2-D path;
	// nil when every weight is finite).
	nonFinite []bool
	taps      [][2][]tap // [filter row]: its tapLists (2-D path)
	rowTaps   [2][]tap   // the row factor's tapLists (separable path)
	colTaps   [][]tap    // [j]: col[j]'s one tap (separable path)
}

// The two tap lists of a filter row: every tap, and the non-zero ones
// for rows of finite values.
const (
	everyTap    = 0
	nonZeroTaps = 1
)

// tapLists returns the taps of weights w at offsets 0..len(w)-1: every
// one, and the non-zero ones.
func tapLists(w []float32) [2][]tap {
	var l [2][]tap
	for i, v := range w {
		l[everyTap] = append(l[everyTap], tap{off: i, w: v})
		if v != 0 {
			l[nonZeroTaps] = append(l[nonZeroTaps], tap{off: i, w: v})
		}
	}
	return l
}

func newStage(f *convolve.Filter) stage {
	st := stage{w: slices.Clone(f.Weights)}
	st.taps = make([][2][]tap, f.Height)
	for j := range st.taps {
		st.taps[j] = tapLists(st.w[j*f.Width : (j+1)*f.Width])
	}
	if row, col, ok := f.Separable(); ok && factorsExact(f, row, col) {
		st.row, st.col = row, col
		st.rowTaps = tapLists(row)
		st.colTaps = make([][]tap, len(col))
		for j, c := range col {
			st.colTaps[j] = []tap{{off: 0, w: c}}
		}
		return st
	}
	if f.CheckFinite() != nil {
		st.nonFinite = make([]bool, f.Height)
		for j := range st.nonFinite {
			st.nonFinite[j] = !allFinite(st.w[j*f.Width : (j+1)*f.Width])
		}
	}
	return st
}

// allFinite reports whether every value of v is finite (v*0 is 0 only
// for a finite v), with eight independent partial sums.
func allFinite(v []float32) bool {
	var z0, z1, z2, z3, z4, z5, z6, z7 float32
	for len(v) >= 8 {
		b := v[:8]
		z0 += b[0] * 0
		z1 += b[1] * 0
		z2 += b[2] * 0
		z3 += b[3] * 0
		z4 += b[4] * 0
		z5 += b[5] * 0
		z6 += b[6] * 0
		z7 += b[7] * 0
		v = v[8:]
	}
	for _, x := range v {
		z0 += x * 0
	}
	return (z0+z1)+(z2+z3)+(z4+z5)+(z6+z7) == 0
}

// hasZero reports whether the stage has a zero weight or factor.
func (st *stage) hasZero() bool {
	return slices.Contains(st.w, 0) || slices.Contains(st.row, 0) || slices.Contains(st.col, 0)
}

// factorsExact reports whether col[j]*row[i] reproduces every weight within
// (KW*KH-1)*2^-24 of its magnitude, zero weights exactly (see fast).
func factorsExact(f *convolve.Filter, row, col []float32) bool {
	eps := float64(f.Taps()-1) * unitRoundoff
	for j := 0; j < f.Height; j++ {
		for i := 0; i < f.Width; i++ {
			w := float64(f.At(i, j))
			if math.Abs(float64(col[j])*float64(row[i])-w) > eps*math.Abs(w) {
				return false
			}
		}
	}
	return true
}

type fastPlan struct {
	p       convolve.Problem
	width   int // FastPath.width
	kw, kh  int
	stages  []stage
	workers []*fastWorker // one per goroutine; nil entries for RGBToYUV
	// zeroTaps: a stage has a zero weight or factor, so rows are checked
	// for non-finite values (fastWorker.finite).
	zeroTaps bool
	closed   bool
	madds    int64 // multiply-adds the last Run summed (RunFLOPs)
}

// fastWorker is the scratch space of one goroutine.
type fastWorker struct {
	pad    [][]float32   // ring of padded input rows (KH slots, 1 if every stage is separable)
	zero   []bool        // [slot]: the row is outside the image under Zero (KH slots)
	finite []bool        // [slot]: every value of the padded row is finite (KH slots)
	zeros  []float32     // a padded row of zeros, for non-finite filter rows outside the image
	hrow   [][][]float32 // [stage][slot]: row-pass output of a separable stage
	acc    [][]float32   // [stage]: the output row being summed
	rows   []tapRow      // the rows of the sum being built (KH capacity)
	terms  []term        // the terms of that sum
	madds  int64         // multiply-adds summed in this Run, until Run adds them up
}

func (fp *fastPlan) newWorker() *fastWorker {
	w := fp.p.Input.Width
	padSlots := 1
	for _, st := range fp.stages {
		if st.row == nil {
			padSlots = fp.kh
		}
	}
	wk := &fastWorker{
		pad:    make([][]float32, padSlots),
		zero:   make([]bool, fp.kh),
		finite: make([]bool, fp.kh),
		hrow:   make([][][]float32, len(fp.stages)),
		acc:    make([][]float32, len(fp.stages)),
		rows:   make([]tapRow, 0, fp.kh),
	}
	for i := range wk.pad {
		wk.pad[i] = make([]float32, w+fp.kw-1)
	}
	for s, st := range fp.stages {
		if st.nonFinite != nil && wk.zeros == nil {
			wk.zeros = make([]float32, w+fp.kw-1)
		}
		wk.acc[s] = make([]float32, w)
		if st.row != nil {
			wk.hrow[s] = make([][]float32, fp.kh)
			for i := range wk.hrow[s] {
				wk.hrow[s][i] = make([]float32, w)
			}
		}
	}
	return wk
}

func (fp *fastPlan) Run(in, out *convolve.Image) error {
	if err := checkRun("cpu-fast", fp.closed, fp.p, in, out); err != nil {
		return err
	}
	n := runtime.GOMAXPROCS(0)
	if n > len(fp.workers) {
		more := convolve.MulBytes(int64(n-len(fp.workers)), fastWorkerBytes(fp.p))
		if err := convolve.CheckHostMemory("run "+fp.p.String(), more); err != nil {
			return convolve.NameVariant("cpu-fast", err)
		}
		fp.addWorkers(n)
	}
	h := in.Height
	// About four chunks per goroutine, each at least 2*KH rows, so that
	// the KH-1 rows a chunk loads before its first output stay few.
	rows := max((h+4*n-1)/(4*n), 2*fp.kh, 8)
	chunks := (h + rows - 1) / rows
	parallel(chunks, n, func(w, i int) {
		y0, y1 := i*rows, min((i+1)*rows, h)
		if fp.p.Op == convolve.RGBToYUV {
			for y := y0; y < y1; y++ {
				yuvRow(in, out, y)
			}
			return
		}
		fp.runChunk(fp.workers[w], in, out, y0, y1)
	})
	fp.madds = 0
	for _, wk := range fp.workers {
		if wk != nil {
			fp.madds += wk.madds
			wk.madds = 0
		}
	}
	return nil
}

// RunFLOPs is the number of floating-point operations of the filter's
// taps that the last Run summed, two per multiply-add: what the loops
// executed (both separable passes, without the taps skipped), not the
// problem's nominal count. Sobel magnitude's squares and roots, and
// RGBToYUV, are not counted. It is 0 before the first Run.
func (fp *fastPlan) RunFLOPs() int64 {
	return 2 * fp.madds
}

func (fp *fastPlan) Close() error {
	fp.workers = nil
	return closeOnce("cpu-fast", &fp.closed)
}

// runChunk computes output rows y0..y1-1 of every channel.
func (fp *fastPlan) runChunk(wk *fastWorker, in, out *convolve.Image, y0, y1 int) {
	ay := fp.kh / 2
	for c := 0; c < in.Channels; c++ {
		for v := y0 - ay; v < y0+ay; v++ {
			fp.load(wk, in, c, v)
		}
		for y := y0; y < y1; y++ {
			fp.load(wk, in, c, y+ay)
			if fp.p.Op == convolve.Filter2D && elemStep(out.Geometry) == 1 {
				// The row is summed in place in the output.
				fp.sumRow(wk, 0, y, out.F32[out.Offset(0, y, c):][:out.Width])
				continue
			}
			for s := range fp.stages {
				fp.sumRow(wk, s, y, wk.acc[s])
			}
			res := wk.acc[0]
			if fp.p.Op == convolve.SobelMagnitude {
				gy := wk.acc[1][:len(res)]
				for x, gx := range res {
					res[x] = float32(math.Sqrt(float64(gx*gx + gy[x]*gy[x])))
				}
			}
			storeRow(out, c, y, res)
		}
	}
}

// ring is the ring slot of virtual row v among n slots.
func ring(v, n int) int { return (v%n + n) % n }

// load brings virtual input row v (any integer; mapped by the border) of
// channel c into its ring slot, padded, and runs the row pass of the
// separable stages on it.
func (fp *fastPlan) load(wk *fastWorker, in *convolve.Image, c, v int) {
	b, w, ax := fp.p.Border, in.Width, fp.kw/2
	slot := ring(v, fp.kh)
	sy, ok := b.Index(v, in.Height)
	wk.zero[slot] = !ok
	if !ok {
		return
	}
	pad := wk.pad[ring(v, len(wk.pad))]
	fp.loadRow(in, c, sy, pad[ax:ax+w])
	// The horizontal border: KW/2 values either side.
	edge := func(x int) float32 {
		ix, ok := b.Index(x, w)
		if !ok {
			return 0
		}
		return pad[ax+ix]
	}
	for k := 0; k < ax; k++ {
		pad[k] = edge(k - ax)
		pad[ax+w+k] = edge(w + k)
	}
	wk.finite[slot] = fp.zeroTaps && allFinite(pad)
	for s, st := range fp.stages {
		if st.row == nil {
			continue
		}
		list := st.rowTaps[everyTap]
		if wk.finite[slot] {
			list = st.rowTaps[nonZeroTaps]
		}
		wk.weightedSum(wk.hrow[s][slot], []tapRow{{src: pad, taps: list}}, fp.width)
	}
}

// sumRow sums output row y of stage s into dst (the image's width) from
// the ring.
func (fp *fastPlan) sumRow(wk *fastWorker, s, y int, dst []float32) {
	st := &fp.stages[s]
	kh := fp.kh
	rows := wk.rows[:0]
	for j := 0; j < kh; j++ {
		v := y - kh/2 + j
		slot := ring(v, kh)
		if wk.zero[slot] {
			// Outside the image under Zero: taps w*0, exact zeros
			// unless the filter row is not finite.
			if st.nonFinite != nil && st.nonFinite[j] {
				rows = append(rows, tapRow{src: wk.zeros, taps: st.taps[j][nonZeroTaps]})
			}
			continue
		}
		if st.row != nil {
			// col[j] == 0 adds exact zeros only if the row pass did not
			// meet a non-finite pixel.
			if st.col[j] != 0 || !wk.finite[slot] {
				rows = append(rows, tapRow{src: wk.hrow[s][slot], taps: st.colTaps[j]})
			}
			continue
		}
		list := st.taps[j][everyTap]
		if wk.finite[slot] {
			list = st.taps[j][nonZeroTaps]
		}
		rows = append(rows, tapRow{src: wk.pad[slot], taps: list})
	}
	wk.weightedSum(dst, rows, fp.width)
	wk.rows = rows[:0]
}

// tap is one term of a weighted sum: weight w times the value off places
// to the right of the output's position in the source row.
type tap struct {
	off int
	w   float32
}

// tapRow is a source row and the taps read from it.
type tapRow struct {
	src  []float32
	taps []tap
}

// weightedSum sets dst[x] to the sum over rows r and taps t of
// t.w*r.src[x+t.off]; every src must hold len(dst) plus its largest
// offset values. The terms go through as few passes over dst of at most
// maxPass terms as they need, shared evenly, each pass in the loop of
// width (FastPath.width). It counts the multiply-adds in wk.madds.
func (wk *fastWorker) weightedSum(dst []float32, rows []tapRow, width int) {
	terms := wk.terms[:0]
	n := len(dst)
	for _, r := range rows {
		for _, t := range r.taps {
			terms = append(terms, term{src: r.src[t.off:][:n], w: t.w})
		}
	}
	wk.terms = terms
	wk.madds += int64(len(terms)) * int64(n)
	first := true
	for left := (len(terms) + maxPass - 1) / maxPass; left > 0; left-- {
		k := (len(terms) + left - 1) / left
		switch width {
		case 16:
			vectorSum512(dst, terms[:k], first)
		case 8:
			vectorSum(dst, terms[:k], first)
		default:
			passes[k](dst, terms[:k], first)
		}
		terms = terms[k:]
		first = false
	}
	if first {
		clear(dst)
	}
}

// maxPass is the most terms one pass sums: nine weights and source rows
// still fit the registers.
const maxPass = 9

// passes[k] adds the k terms t to dst in one pass (sets dst to them with
// set): the portable loops, in a variable so that tests can break them.
var passes = [...]func(dst []float32, t []term, set bool){1: sum1, 2: sum2, 3: sum3, 4: sum4, 5: sum5, 6: sum6, 7: sum7, 8: sum8, 9: sum9}

// term is one tap of a weighted sum: the source values, already offset,
// and the weight.
type term struct {
	src []float32
	w   float32
}

func sum9(dst []float32, t []term, set bool) {
	t = t[:9]
	s0, s1, s2, s3, s4, s5, s6, s7, s8 := t[0].src[:len(dst)], t[1].src[:len(dst)], t[2].src[:len(dst)], t[3].src[:len(dst)], t[4].src[:len(dst)], t[5].src[:len(dst)], t[6].src[:len(dst)], t[7].src[:len(dst)], t[8].src[:len(dst)]
	w0, w1, w2, w3, w4, w5, w6, w7, w8 := t[0].w, t[1].w, t[2].w, t[3].w, t[4].w, t[5].w, t[6].w, t[7].w, t[8].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x] + w6*s6[x] + w7*s7[x] + w8*s8[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x] + w6*s6[x] + w7*s7[x] + w8*s8[x]
	}
}

func sum8(dst []float32, t []term, set bool) {
	t = t[:8]
	s0, s1, s2, s3, s4, s5, s6, s7 := t[0].src[:len(dst)], t[1].src[:len(dst)], t[2].src[:len(dst)], t[3].src[:len(dst)], t[4].src[:len(dst)], t[5].src[:len(dst)], t[6].src[:len(dst)], t[7].src[:len(dst)]
	w0, w1, w2, w3, w4, w5, w6, w7 := t[0].w, t[1].w, t[2].w, t[3].w, t[4].w, t[5].w, t[6].w, t[7].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x] + w6*s6[x] + w7*s7[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x] + w6*s6[x] + w7*s7[x]
	}
}

func sum7(dst []float32, t []term, set bool) {
	t = t[:7]
	s0, s1, s2, s3, s4, s5, s6 := t[0].src[:len(dst)], t[1].src[:len(dst)], t[2].src[:len(dst)], t[3].src[:len(dst)], t[4].src[:len(dst)], t[5].src[:len(dst)], t[6].src[:len(dst)]
	w0, w1, w2, w3, w4, w5, w6 := t[0].w, t[1].w, t[2].w, t[3].w, t[4].w, t[5].w, t[6].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x] + w6*s6[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x] + w6*s6[x]
	}
}

func sum6(dst []float32, t []term, set bool) {
	t = t[:6]
	s0, s1, s2, s3, s4, s5 := t[0].src[:len(dst)], t[1].src[:len(dst)], t[2].src[:len(dst)], t[3].src[:len(dst)], t[4].src[:len(dst)], t[5].src[:len(dst)]
	w0, w1, w2, w3, w4, w5 := t[0].w, t[1].w, t[2].w, t[3].w, t[4].w, t[5].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x] + w5*s5[x]
	}
}

func sum5(dst []float32, t []term, set bool) {
	t = t[:5]
	s0, s1, s2, s3, s4 := t[0].src[:len(dst)], t[1].src[:len(dst)], t[2].src[:len(dst)], t[3].src[:len(dst)], t[4].src[:len(dst)]
	w0, w1, w2, w3, w4 := t[0].w, t[1].w, t[2].w, t[3].w, t[4].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x] + w4*s4[x]
	}
}

func sum4(dst []float32, t []term, set bool) {
	t = t[:4]
	s0, s1, s2, s3 := t[0].src[:len(dst)], t[1].src[:len(dst)], t[2].src[:len(dst)], t[3].src[:len(dst)]
	w0, w1, w2, w3 := t[0].w, t[1].w, t[2].w, t[3].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x] + w2*s2[x] + w3*s3[x]
	}
}

func sum3(dst []float32, t []term, set bool) {
	t = t[:3]
	s0, s1, s2 := t[0].src[:len(dst)], t[1].src[:len(dst)], t[2].src[:len(dst)]
	w0, w1, w2 := t[0].w, t[1].w, t[2].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x] + w2*s2[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x] + w2*s2[x]
	}
}

func sum2(dst []float32, t []term, set bool) {
	t = t[:2]
	s0, s1 := t[0].src[:len(dst)], t[1].src[:len(dst)]
	w0, w1 := t[0].w, t[1].w
	if set {
		for x := range dst {
			dst[x] = w0*s0[x] + w1*s1[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0*s0[x] + w1*s1[x]
	}
}

// sum1 adds the term t to dst (sets dst to it with set).
func sum1(dst []float32, t []term, set bool) {
	t = t[:1]
	s0 := t[0].src[:len(dst)]
	w0 := t[0].w
	if set {
		for x := range dst {
			dst[x] = w0 * s0[x]
		}
		return
	}
	for x := range dst {
		dst[x] += w0 * s0[x]
	}
}

func init() {
	convolve.Register(fast{})
}
