package refimpl

import (
	"errors"
	"math/bits"
	"runtime"

	"github.com/convbench/convbench/convolve"
	"gonum.org/v1/gonum/dsp/fourier"
)

// fftVariant is "cpu-fft": Filter2D through 2-D fast Fourier transforms
// in float64 on every core.
//
// For a W x H image and a KW x KH filter the plan takes transforms of
// Nx x Ny points, the next powers of two of W+KW-1 and H+KH-1, so that
// the circular convolution of the bordered image equals the linear one.
// The bordered image is the image extended by the filter's reach on each
// side (KW/2 left, KW-1-KW/2 right, KH/2 top, KH-1-KH/2 bottom) with each
// outside pixel read through the border mapping (zeros for Zero), then
// zero-padded to Nx x Ny. The filter, oriented for the mode and placed at
// the negated indices modulo the lengths (so that a product of spectra is
// a correlation), is transformed once per plan. Run, for each channel,
// transforms the bordered channel (rows, then columns, with gonum's
// complex transforms), multiplies by the filter's spectrum, transforms
// back (columns, then the output rows only), scales by 1/(Nx*Ny) and
// rounds once to float32.
//
// Its error is bounded by convolve.FFTTolerance with u = 2^-53 (the
// FFT64 model, which it declares), through the whole bordered channel's
// norms: an FFT spreads every value's rounding over every output, so it
// needs finite input (FiniteInput) and gives outputs near zero beside
// large values only that bound's absolute accuracy.
type fftVariant struct{}

func (fftVariant) Describe() convolve.Description {
	caps := cpuCaps()
	caps.Ops = []convolve.Operation{convolve.Filter2D}
	caps.FiniteInput = true
	caps.Accuracy = convolve.FFT64
	return convolve.Description{
		Name:    "cpu-fft",
		Summary: "float64 2-D FFT convolution on every core: power-of-two transforms of the bordered image, filter spectrum once per plan",
		Caps:    caps,
	}
}

// fftSizes returns the transform lengths of p: the next powers of two of
// the bordered width and height.
func fftSizes(p convolve.Problem) (nx, ny int) {
	kw, kh := p.KernelSize()
	return nextPow2(p.Input.Width + kw - 1), nextPow2(p.Input.Height + kh - 1)
}

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// fftScratch is the host memory a cpu-fft plan allocates: the filter's
// spectrum and one channel's work array (complex128 each), and per
// goroutine a row and a column of each length.
func fftScratch(p convolve.Problem) int64 {
	nx, ny := fftSizes(p)
	arrays := convolve.MulBytes(2, int64(nx), int64(ny), 16)
	perWorker := convolve.MulBytes(int64(runtime.GOMAXPROCS(0)), int64(nx+ny), 16*3)
	return arrays + perWorker
}

func (v fftVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := checkPlan(v.Describe(), p, cfg, fftScratch); err != nil {
		return nil, err
	}
	f := p.Filter.Oriented(p.Mode)
	nx, ny := fftSizes(p)
	fp := &fftPlan{p: p, nx: nx, ny: ny, kw: f.Width, kh: f.Height}
	fp.workers = make([]*fftWorker, runtime.GOMAXPROCS(0))
	for i := range fp.workers {
		fp.workers[i] = &fftWorker{
			rowFFT: fourier.NewCmplxFFT(nx), colFFT: fourier.NewCmplxFFT(ny),
			col: make([]complex128, ny), row: make([]float32, p.Input.Width),
		}
	}
	// The bordered column index of each transform column x < W+KW-1.
	fp.xmap = make([]int, p.Input.Width+f.Width-1)
	for x := range fp.xmap {
		ix, ok := p.Border.Index(x-f.Width/2, p.Input.Width)
		if !ok {
			ix = -1
		}
		fp.xmap[x] = ix
	}
	// g[(-j mod ny)][(-i mod nx)] = f(i, j): the spectrum product is then
	// the correlation out(x, y) = sum f(i, j) e(x+i, y+j).
	fp.spec = make([]complex128, nx*ny)
	for j := 0; j < f.Height; j++ {
		for i := 0; i < f.Width; i++ {
			fp.spec[((ny-j)%ny)*nx+(nx-i)%nx] = complex(float64(f.At(i, j)), 0)
		}
	}
	fp.forward(fp.spec, ny)
	fp.work = make([]complex128, nx*ny)
	return fp, nil
}

type fftPlan struct {
	p              convolve.Problem
	nx, ny, kw, kh int
	xmap           []int
	spec, work     []complex128
	workers        []*fftWorker
	closed         bool
}

// fftWorker is one goroutine's transforms and scratch space.
type fftWorker struct {
	rowFFT, colFFT *fourier.CmplxFFT
	col            []complex128
	row            []float32
}

// forward transforms a in place: the first rows rows (the others are
// zero, and so is their transform), then every column.
func (fp *fftPlan) forward(a []complex128, rows int) {
	nx := fp.nx
	parallel(rows, len(fp.workers), func(w, y int) {
		r := a[y*nx : (y+1)*nx]
		fp.workers[w].rowFFT.Coefficients(r, r)
	})
	fp.columns(a, func(t *fourier.CmplxFFT, c []complex128) { t.Coefficients(c, c) })
}

// columns applies fn to every column of a, each gathered into a worker's
// buffer and scattered back.
func (fp *fftPlan) columns(a []complex128, fn func(*fourier.CmplxFFT, []complex128)) {
	nx, ny := fp.nx, fp.ny
	parallel(nx, len(fp.workers), func(w, x int) {
		wk := fp.workers[w]
		for y := 0; y < ny; y++ {
			wk.col[y] = a[y*nx+x]
		}
		fn(wk.colFFT, wk.col)
		for y := 0; y < ny; y++ {
			a[y*nx+x] = wk.col[y]
		}
	})
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
	nx, ny := fp.nx, fp.ny
	w, h := in.Width, in.Height
	rows := h + fp.kh - 1
	scale := 1 / float64(nx*ny)
	for c := 0; c < in.Channels; c++ {
		a := fp.work
		// The bordered channel, zero-padded; its rows transformed as they
		// are filled.
		parallel(ny, len(fp.workers), func(wi, y int) {
			r := a[y*nx : (y+1)*nx]
			clear(r)
			if y >= rows {
				return
			}
			iy, ok := fp.p.Border.Index(y-fp.kh/2, h)
			if !ok {
				return
			}
			wk := fp.workers[wi]
			loadRow(in, c, iy, wk.row)
			for x, ix := range fp.xmap {
				if ix >= 0 {
					r[x] = complex(float64(wk.row[ix]), 0)
				}
			}
			wk.rowFFT.Coefficients(r, r)
		})
		fp.columns(a, func(t *fourier.CmplxFFT, col []complex128) { t.Coefficients(col, col) })
		for i, s := range fp.spec {
			a[i] *= s
		}
		fp.columns(a, func(t *fourier.CmplxFFT, col []complex128) { t.Sequence(col, col) })
		parallel(h, len(fp.workers), func(wi, y int) {
			r := a[y*nx : (y+1)*nx]
			fp.workers[wi].rowFFT.Sequence(r, r)
			dst := fp.workers[wi].row
			for x := 0; x < w; x++ {
				dst[x] = float32(real(r[x]) * scale)
			}
			storeRow(out, c, y, dst)
		})
	}
	return nil
}

func (fp *fftPlan) Close() error { return closeOnce("cpu-fft", &fp.closed) }

func init() {
	convolve.Register(fftVariant{})
}
