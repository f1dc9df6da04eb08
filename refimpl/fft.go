package refimpl

import (
	"errors"
	"math/bits"
	"runtime"
	"slices"

	"github.com/convbench/convbench/convolve"
	"gonum.org/v1/gonum/dsp/fourier"
)

// fftVariant is "cpu-fft": Filter2D through 2-D FFTs in float64 on
// every core, by overlap-save over tiles.
//
// The bordered image (the image extended by the filter's reach, outside
// pixels read through the border mapping) is built in float64 once per
// channel. Tiles are Tx x Ty points, powers of two of about four filter
// sides (64 to 512, at most the next powers of two of the bordered size);
// each yields the Tx-KW+1 x Ty-KH+1 outputs whose windows it holds. The
// filter, placed at the negated indices modulo the tile lengths so that a
// product of spectra is a correlation, is transformed once per plan.
//
// Its error is within convolve.FFTTolerance with u = 2^-53 (the FFT64
// model): a tile has no more points than the whole image and its 2-norm
// is at most the whole channel's. An FFT spreads every value's rounding
// over its tile, so the variant needs finite input (FiniteInput).
type fftVariant struct{}

func (fftVariant) Describe() convolve.Description {
	caps := cpuCaps()
	caps.Ops = []convolve.Operation{convolve.Filter2D}
	caps.FiniteInput = true
	caps.Accuracy = convolve.FFT64
	return convolve.Description{
		Name:    "cpu-fft",
		Summary: "float64 2-D FFT convolution by overlap-save over power-of-two tiles on every core, filter spectrum once per plan",
		Caps:    caps,
	}
}

// fftTile returns the tile lengths of p (see fftVariant).
func fftTile(p convolve.Problem) (tx, ty int) {
	kw, kh := p.KernelSize()
	side := func(k, extent int) int {
		return min(max(nextPow2(4*k), 64), 512, nextPow2(extent+k-1))
	}
	return side(kw, p.Input.Width), side(kh, p.Input.Height)
}

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// fftScratch is the host memory a cpu-fft plan allocates: the bordered
// channel, the filter's spectrum, and per goroutine a tile, a column and
// a row.
func fftScratch(p convolve.Problem) int64 {
	kw, kh := p.KernelSize()
	tx, ty := fftTile(p)
	ext := convolve.MulBytes(int64(p.Input.Width+kw-1), int64(p.Input.Height+kh-1), 8)
	spec := convolve.MulBytes(int64(tx), int64(ty), 16)
	perWorker := spec + convolve.MulBytes(int64(tx+ty), 16*3) + convolve.MulBytes(int64(p.Input.Width), 4)
	return ext + spec + convolve.MulBytes(int64(runtime.GOMAXPROCS(0)), perWorker)
}

func (v fftVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := checkPlan(v.Describe(), p, cfg, fftScratch); err != nil {
		return nil, err
	}
	f := p.Filter.Oriented(p.Mode)
	tx, ty := fftTile(p)
	fp := &fftPlan{p: p, tx: tx, ty: ty, kw: f.Width, kh: f.Height}
	fp.extW, fp.extH = p.Input.Width+f.Width-1, p.Input.Height+f.Height-1
	fp.ext = make([]float64, fp.extW*fp.extH)
	fp.workers = make([]*fftWorker, runtime.GOMAXPROCS(0))
	for i := range fp.workers {
		fp.workers[i] = &fftWorker{
			rowFFT: fourier.NewCmplxFFT(tx), colFFT: fourier.NewCmplxFFT(ty),
			tile: make([]complex128, tx*ty), col: make([]complex128, ty),
			row: make([]float32, p.Input.Width),
		}
	}
	// The image column of each bordered column (-1: outside, zero).
	fp.xmap = make([]int, fp.extW)
	for x := range fp.xmap {
		ix, ok := p.Border.Index(x-f.Width/2, p.Input.Width)
		if !ok {
			ix = -1
		}
		fp.xmap[x] = ix
	}
	// g[(-j mod ty)][(-i mod tx)] = f(i, j): the spectrum product is then
	// the correlation out(x, y) = sum f(i, j) e(x+i, y+j).
	spec := fp.workers[0].tile
	for j := 0; j < f.Height; j++ {
		for i := 0; i < f.Width; i++ {
			spec[((ty-j)%ty)*tx+(tx-i)%tx] = complex(float64(f.At(i, j)), 0)
		}
	}
	fp.workers[0].forward(spec, tx, ty)
	fp.spec = slices.Clone(spec)
	return fp, nil
}

type fftPlan struct {
	p              convolve.Problem
	tx, ty, kw, kh int
	extW, extH     int
	ext            []float64
	xmap           []int
	spec           []complex128
	workers        []*fftWorker
	closed         bool
}

// fftWorker is one goroutine's transforms and scratch space.
type fftWorker struct {
	rowFFT, colFFT *fourier.CmplxFFT
	tile, col      []complex128
	row            []float32
}

// forward transforms the tx x ty array a in place: its first rows rows
// (the others are zero, and so is their transform), then every column.
func (wk *fftWorker) forward(a []complex128, tx, rows int) {
	for y := 0; y < rows; y++ {
		r := a[y*tx : (y+1)*tx]
		wk.rowFFT.Coefficients(r, r)
	}
	wk.columns(a, tx, func(t *fourier.CmplxFFT, c []complex128) { t.Coefficients(c, c) })
}

// columns applies fn to every column of the array a of row length tx,
// each gathered into the worker's buffer and scattered back.
func (wk *fftWorker) columns(a []complex128, tx int, fn func(*fourier.CmplxFFT, []complex128)) {
	ty := len(wk.col)
	for x := 0; x < tx; x++ {
		for y := 0; y < ty; y++ {
			wk.col[y] = a[y*tx+x]
		}
		fn(wk.colFFT, wk.col)
		for y := 0; y < ty; y++ {
			a[y*tx+x] = wk.col[y]
		}
	}
}

func (fp *fftPlan) Run(in, out *convolve.Image) error {
	if err := checkRun("cpu-fft", fp.closed, fp.p, in, out); err != nil {
		return err
	}
	if err := convolve.CheckFiniteImage(in); err != nil {
		var nf *convolve.NonFiniteError
		if errors.As(err, &nf) {
			nf.Variant = "cpu-fft"
		}
		return err
	}
	w, h := in.Width, in.Height
	stepX, stepY := fp.tx-fp.kw+1, fp.ty-fp.kh+1
	tilesX, tilesY := (w+stepX-1)/stepX, (h+stepY-1)/stepY
	for c := 0; c < in.Channels; c++ {
		parallel(fp.extH, len(fp.workers), func(wi, y int) {
			e := fp.ext[y*fp.extW : (y+1)*fp.extW]
			iy, ok := fp.p.Border.Index(y-fp.kh/2, h)
			if !ok {
				clear(e)
				return
			}
			row := fp.workers[wi].row
			loadRow(in, c, iy, row)
			for x, ix := range fp.xmap {
				e[x] = 0
				if ix >= 0 {
					e[x] = float64(row[ix])
				}
			}
		})
		parallel(tilesX*tilesY, len(fp.workers), func(wi, t int) {
			fp.tileRun(fp.workers[wi], out, c, (t%tilesX)*stepX, (t/tilesX)*stepY)
		})
	}
	return nil
}

// tileRun computes the outputs of the tile whose first output is (x0, y0)
// in channel c.
func (fp *fftPlan) tileRun(wk *fftWorker, out *convolve.Image, c, x0, y0 int) {
	tx, ty := fp.tx, fp.ty
	a := wk.tile
	rows := min(ty, fp.extH-y0)
	cols := min(tx, fp.extW-x0)
	for y := 0; y < rows; y++ {
		r := a[y*tx : (y+1)*tx]
		e := fp.ext[(y0+y)*fp.extW+x0:][:cols]
		for x, v := range e {
			r[x] = complex(v, 0)
		}
		clear(r[cols:])
	}
	clear(a[rows*tx:])
	wk.forward(a, tx, rows)
	for i, s := range fp.spec {
		a[i] *= s
	}
	wk.columns(a, tx, func(t *fourier.CmplxFFT, col []complex128) { t.Sequence(col, col) })
	scale := 1 / float64(tx*ty)
	outW := min(tx-fp.kw+1, out.Width-x0)
	outH := min(ty-fp.kh+1, out.Height-y0)
	for y := 0; y < outH; y++ {
		r := a[y*tx : (y+1)*tx]
		wk.rowFFT.Sequence(r, r)
		dst := wk.row[:outW]
		for x := range dst {
			dst[x] = float32(real(r[x]) * scale)
		}
		storeRowAt(out, c, y0+y, x0, dst)
	}
}

func (fp *fftPlan) Close() error { return closeOnce("cpu-fft", &fp.closed) }

func init() {
	convolve.Register(fftVariant{})
}
