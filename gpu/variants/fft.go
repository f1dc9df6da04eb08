package variants

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/cufft"
)

// The gpu-fft variant convolves through cuFFT (package cudabind/cufft,
// loaded at run time) by overlap-save: the bordered image is cut into
// overlapping tiles of TX x TY points, powers of two (fftLayout), which go
// through one batched real-to-complex transform, a pointwise product with
// the filter's spectrum and one batched complex-to-real transform; each
// tile yields the (TX-KW+1) x (TY-KH+1) outputs whose windows it holds,
// cropped into the output. kernels/fft.cu has the passes and the exact
// power-of-two scaling that keeps every intermediate in range. The
// filter's spectrum, scaled by 1/(TX*TY), is computed once per plan by the
// same forward plan.
//
// Tiles are about eight filter sides (at least 256 points, so that a
// small filter wastes little on the overlap) and never longer than the
// next power of two of the bordered image's side, the whole-image
// transform: TX <= that of W+KW-1, TY of H+KH-1. The variant declares the
// FFT32 error model, whose bound (convolve.FFTTolerance) is derived for
// power-of-two transforms in float32 arithmetic with the points of that
// whole-image transform (convolve.FFTLogPoints) and the 2-norm of the
// whole bordered channel; a tile has no more points and no larger norm,
// so the bound holds for it. An FFT spreads each value's rounding over
// every output of its tile, and a NaN or infinity over the whole tile, so
// it also declares FiniteInput.
func init() {
	convolve.Register(&Variant{
		Desc: convolve.Description{Name: "gpu-fft",
			Summary: "FFT convolution through cuFFT by overlap-save: power-of-two tiles of the bordered image, batched R2C, product with the filter's spectrum (once per plan), C2R, crop",
			Caps:    fftCaps()},
		Setup: setupFFT,
		Check: func(b *Base) error { _, err := newFFTGrids(b); return err },
	})
}

// fftCaps are gpu-fft's capabilities: every type, channel count, layout
// and border of the direct kernels, held to the FFT32 bound. FiniteInput:
// a NaN or infinite value enters every point of the spectrum and so
// every output, where the reference's direct sum keeps it to the outputs
// whose window holds it.
func fftCaps() convolve.Capabilities {
	c := directCaps()
	c.ReferenceOrder = false
	c.FiniteInput = true
	c.Accuracy = convolve.FFT32
	return c
}

// fftLayout is the geometry of a gpu-fft plan's transforms and buffers.
type fftLayout struct {
	TX, TY   int // tile (transform) lengths, powers of two: columns, rows
	SX, SY   int // outputs per tile across and down: TX-KW+1, TY-KH+1
	GX, GY   int // tiles across and down per channel
	Channels int
}

// fftMinTile is the smallest tile side of an image that has room for it.
const fftMinTile = 256

// fftTileSide is the tile length for a filter side k over an image side
// n: the next power of two of 8k, at least fftMinTile, at most that of the
// bordered side n+k-1, and at least 2. A length of 2 where 1 would do (a
// single column or row with a filter of one column or row) leaves the
// error bound of convolve.FFTLogPoints' single point intact: along that
// dimension the data is (a, 0), whose transforms and their inverse are
// exact sums with zero and doublings.
func fftTileSide(k, n int) int {
	return max(2, min(max(nextPow2(8*k), fftMinTile), nextPow2(n+k-1)))
}

// newFFTLayout returns the layout of problem p.
func newFFTLayout(p convolve.Problem) fftLayout {
	kw, kh := p.KernelSize()
	in := p.Input
	l := fftLayout{TX: fftTileSide(kw, in.Width), TY: fftTileSide(kh, in.Height), Channels: in.Channels}
	l.SX, l.SY = l.TX-kw+1, l.TY-kh+1
	l.GX, l.GY = (in.Width+l.SX-1)/l.SX, (in.Height+l.SY-1)/l.SY
	return l
}

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// LogPoints is log2 of the points of one tile's transform.
func (l fftLayout) LogPoints() int {
	return bits.TrailingZeros(uint(l.TX)) + bits.TrailingZeros(uint(l.TY))
}

// Tiles is the number of tiles of every channel: the transforms' batch.
func (l fftLayout) Tiles() int64 { return int64(l.GX) * int64(l.GY) * int64(l.Channels) }

// SpecPoints is the number of complex values of one tile's spectrum.
func (l fftLayout) SpecPoints() int64 { return int64(l.TY) * int64(l.TX/2+1) }

// RealBytes is the size of the real buffer: every tile's TX x TY floats.
func (l fftLayout) RealBytes() int64 {
	return convolve.MulBytes(int64(l.TX)*int64(l.TY), l.Tiles(), 4)
}

// SpecBytes is the size of every tile's spectrum (complex64).
func (l fftLayout) SpecBytes() int64 { return convolve.MulBytes(l.SpecPoints(), l.Tiles(), 8) }

// FilterBytes is the size of the filter's spectrum.
func (l fftLayout) FilterBytes() int64 { return convolve.MulBytes(l.SpecPoints(), 8) }

// Bytes is the device memory of the buffers beyond the plan's input and
// output, cuFFT's work area aside: the real buffer, the spectra, the
// filter's spectrum, the filter and the per-channel maxima.
func (l fftLayout) Bytes(filterWeights int) int64 {
	return l.RealBytes() + l.SpecBytes() + l.FilterBytes() + int64(filterWeights)*4 + int64(l.Channels)*4
}

func (l fftLayout) String() string {
	return fmt.Sprintf("%dx%d tiles of %dx%d points x %d channels", l.GX, l.GY, l.TX, l.TY, l.Channels)
}

// scaledWeights returns w times 2^-e, with e chosen so that the largest
// |weight| of the result lies in [0.5, 1) (e = 0 for an all-zero filter).
// The scaling is exact for finite weights: float32 values scaled by a
// power of two into that range stay representable, and weights far below
// the largest keep their share of the result to float32's precision.
func scaledWeights(w []float32) (scaled []float32, e int) {
	m := 0.0
	for _, v := range w {
		m = math.Max(m, math.Abs(float64(v)))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return append([]float32(nil), w...), 0
	}
	_, e = math.Frexp(m)
	scaled = make([]float32, len(w))
	for i, v := range w {
		scaled[i] = float32(math.Ldexp(float64(v), -e))
	}
	return scaled, e
}

// fftBlock is the 1-D block of the absmax, scale and multiply passes.
const fftBlock = 256

// fftMaxBlocks caps the absmax grid per channel: enough blocks to fill a
// GPU, few enough atomics on one address.
const fftMaxBlocks = 1024

// fftRun is the points of a row one thread of the fill and crop passes
// takes (FFT_RUN in fft.cu).
const fftRun = 4

// fftGrids is the launch geometry of a gpu-fft plan, in the plan's
// blocks: the grid over every tile's points (GX*TX x GY*TY per channel)
// of the filter pass, the fill's over the same points fftRun a thread,
// the crop's of NBX x NBY blocks over each tile's SX x SY outputs (fftRun
// a thread), and the 1-D grids of the absmax, scale and multiply passes.
type fftGrids struct {
	layout                  fftLayout
	tiles, fill, block, out cudabind.Dim3
	nbx, nby                int // the crop's blocks across and down a tile
	max, mul, scale, line   cudabind.Dim3
}

// newFFTGrids returns the launch geometry of b's problem, or a
// *convolve.CapabilityError naming the variant for tiles or grids past
// CUDA's limits. It needs no device.
func newFFTGrids(b *Base) (fftGrids, error) {
	in := b.Problem.Input
	l := newFFTLayout(b.Problem)
	across, down := int64(l.GX)*int64(l.TX), int64(l.GY)*int64(l.TY)
	if across > math.MaxInt32/2 || down > math.MaxInt32/2 {
		return fftGrids{}, &convolve.CapabilityError{Variant: b.Name, What: "image size",
			Value: fmt.Sprintf("%dx%d: %v span %dx%d points, past 2^30", in.Width, in.Height, l, across, down)}
	}
	g := fftGrids{layout: l}
	var err error
	if g.tiles, g.block, err = Grid(int(across), int(down), l.Channels, b.Block); err != nil {
		// Grid's message names the tiles' span as the image.
		return fftGrids{}, named(b.Name, err)
	}
	if g.fill, _, err = Grid(int((across+fftRun-1)/fftRun), int(down), l.Channels, b.Block); err != nil {
		return fftGrids{}, named(b.Name, err)
	}
	g.nbx = (l.SX + fftRun*int(g.block.X) - 1) / (fftRun * int(g.block.X))
	g.nby = (l.SY + int(g.block.Y) - 1) / int(g.block.Y)
	outX, outY := int64(l.GX)*int64(g.nbx), int64(l.GY)*int64(g.nby)
	if outX > math.MaxInt32 || outY > maxGridYZ {
		return fftGrids{}, &convolve.CapabilityError{Variant: b.Name, What: "image size",
			Value: fmt.Sprintf("%dx%d: the crop's %dx%d blocks (%v) pass CUDA's grid limits", in.Width, in.Height, outX, outY, l)}
	}
	g.out = cudabind.Dim3{X: uint32(outX), Y: uint32(outY), Z: uint32(l.Channels)}
	specBlocks := (l.SpecPoints() + fftBlock - 1) / fftBlock
	if specBlocks > math.MaxInt32 {
		return fftGrids{}, &convolve.CapabilityError{Variant: b.Name, What: "image size",
			Value: fmt.Sprintf("%dx%d: %d spectrum blocks pass CUDA's grid limit", in.Width, in.Height, specBlocks)}
	}
	cols := min((in.Width+fftBlock-1)/fftBlock, 16)
	g.max = cudabind.Dim3{X: uint32(cols), Y: uint32(min(in.Height, fftMaxBlocks/cols)), Z: uint32(l.Channels)}
	g.mul = cudabind.Dim3{X: uint32(specBlocks), Y: uint32(min(l.Tiles(), maxGridYZ)), Z: 1}
	g.scale = cudabind.Dim3{X: uint32(specBlocks), Y: 1, Z: 1}
	g.line = cudabind.Dim3{X: fftBlock, Y: 1, Z: 1}
	return g, nil
}

func setupFFT(b *Base) error {
	lib, err := cufft.Default()
	if err != nil {
		return fmt.Errorf("variants: %s: %w", b.Name, err)
	}
	g, err := newFFTGrids(b)
	if err != nil {
		return err
	}
	f := &fftPlan{b: b, lib: lib, g: g, l: g.layout, fns: map[string]*cudabind.Function{}}
	f.w, f.h = b.Dims()

	mod, err := b.Compile("fft", nil)
	if err != nil {
		return err
	}
	for _, name := range []string{"fft_absmax", "fft_fill", "fft_place_filter", "fft_scale_spectrum", "fft_multiply", "fft_crop"} {
		if f.fns[name], err = b.Function(mod, name, 0); err != nil {
			return err
		}
	}
	f.weights, f.ew = scaledWeights(b.Filter.Weights)
	l := f.l
	f.tx, f.ty, f.gx, f.gy = int32(l.TX), int32(l.TY), int32(l.GX), int32(l.GY)
	f.nbx, f.nby = int32(g.nbx), int32(g.nby)
	err = b.Dev.Do(func(x *cudabind.Exec) error {
		if err := f.allocate(x); err != nil {
			return err
		}
		return f.filterSpectrum(x)
	})
	if err != nil {
		return fmt.Errorf("variants: %s: plan %v: %w", b.Name, b.Problem, err)
	}
	f.stride = b.Stride()
	f.stream = b.stream // the stream the plans enqueue on
	b.Enqueue = f.enqueue
	return nil
}

// fftPlan is the device side of an FFT plan: cuFFT and its forward
// (R2C) and inverse (C2R) plans, the kernels, the buffers (the padded
// tiles, their spectrum, the filter's scaled spectrum, the weights and
// the channels' largest magnitudes) and the launch geometry.
type fftPlan struct {
	b     *Base
	lib   *cufft.Library
	g     fftGrids
	l     fftLayout
	fns   map[string]*cudabind.Function
	plans [2]cufft.Handle // forward (R2C), inverse (C2R)

	pad, spec, filt, amax, wd cudabind.DevPtr

	weights        []float32
	ew             int
	w, h           int32
	tx, ty, gx, gy int32
	nbx, nby       int32
	stride         any
	stream         cudabind.Stream // the stream the plans enqueue on
}

// allocate makes the two cuFFT plans and allocates the buffers and
// cuFFT's work area, each checked against the device's free memory
// first, and sets the plans' stream to the plan's.
func (f *fftPlan) allocate(x *cudabind.Exec) error {
	b, lib, l := f.b, f.lib, f.l
	dims := []int64{int64(l.TY), int64(l.TX)}
	what := fmt.Sprintf("the FFT buffers (%v, and cuFFT's work area)", l)
	if err := b.CheckDeviceMemory(x, what, l.Bytes(len(f.weights))); err != nil {
		return err
	}
	// The buffers are checked against the free memory before cuFFT
	// is asked for plans of their size, and again with the plans'
	// work area (left to this plan to allocate) before any of them
	// is allocated.
	var work int64
	for i, typ := range []cufft.Type{cufft.R2C, cufft.C2R} {
		hdl, err := lib.Create()
		if err != nil {
			return err
		}
		b.OnClose(func(*cudabind.Exec) error { return lib.Destroy(hdl) })
		if err := lib.SetAutoAllocation(hdl, false); err != nil {
			return err
		}
		ws, err := lib.MakePlanMany64(hdl, dims, typ, l.Tiles())
		if err != nil {
			return err
		}
		f.plans[i] = hdl
		work = max(work, ws)
	}
	if err := b.CheckDeviceMemory(x, what, l.Bytes(len(f.weights))+work); err != nil {
		return err
	}
	var err error
	for _, a := range []struct {
		p     *cudabind.DevPtr
		bytes int64
	}{{&f.pad, l.RealBytes()}, {&f.spec, l.SpecBytes()}, {&f.filt, l.FilterBytes()}, {&f.wd, int64(len(f.weights)) * 4}, {&f.amax, int64(l.Channels) * 4}} {
		if *a.p, err = b.alloc(x, a.bytes); err != nil {
			return err
		}
	}
	if work > 0 {
		area, err := b.alloc(x, work)
		if err != nil {
			return err
		}
		for _, hdl := range f.plans {
			if err := lib.SetWorkArea(hdl, uintptr(area)); err != nil {
				return err
			}
		}
	}
	for _, hdl := range f.plans {
		if err := lib.SetStream(hdl, uintptr(b.stream)); err != nil {
			return err
		}
	}
	return nil
}

// filterSpectrum uploads the weights and makes the filter's spectrum:
// placed in the first tile, transformed, kept times 1/(TX*TY) (a power
// of two: exact). The inverse plan then runs once too, on that spectrum,
// so that both plans have run before any graph capture.
func (f *fftPlan) filterSpectrum(x *cudabind.Exec) error {
	lib, l, g := f.lib, f.l, f.g
	if err := x.CopyHtoD(f.wd, unsafe.Pointer(&f.weights[0]), int64(len(f.weights))*4); err != nil {
		return err
	}
	s := f.b.stream
	if err := x.Launch(f.fns["fft_place_filter"], g.tiles, g.block, 0, s, f.wd, f.pad, f.tx, f.ty, f.gx, f.gy); err != nil {
		return err
	}
	if err := lib.ExecR2C(f.plans[0], uintptr(f.pad), uintptr(f.spec)); err != nil {
		return err
	}
	scale := float32(math.Ldexp(1, -l.LogPoints()))
	if err := x.Launch(f.fns["fft_scale_spectrum"], g.scale, g.line, 0, s, f.spec, f.filt, l.SpecPoints(), scale); err != nil {
		return err
	}
	if err := lib.ExecC2R(f.plans[1], uintptr(f.spec), uintptr(f.pad)); err != nil {
		return err
	}
	return x.StreamSync(s)
}

// enqueue is the plan's device work on stream s (Base.Enqueue): the
// channels' largest magnitudes, the padded tiles, the forward transform,
// the product with the filter's spectrum, the inverse transform and the
// crop into the output. The cuFFT plans move to s first where they were
// on another stream.
func (f *fftPlan) enqueue(x *cudabind.Exec, s cudabind.Stream) error {
	lib, l, g := f.lib, f.l, f.g
	if s != f.stream {
		for _, hdl := range f.plans {
			if err := lib.SetStream(hdl, uintptr(s)); err != nil {
				return err
			}
		}
		f.stream = s
	}
	if err := x.MemsetD32Async(f.amax, 0, int64(l.Channels), s); err != nil {
		return err
	}
	if err := x.Launch(f.fns["fft_absmax"], g.max, g.line, 0, s, f.b.In, f.amax, f.w, f.h, f.stride); err != nil {
		return err
	}
	if err := x.Launch(f.fns["fft_fill"], g.fill, g.block, 0, s, f.b.In, f.pad, f.amax, f.w, f.h, f.stride, f.tx, f.ty, f.gx, f.gy); err != nil {
		return err
	}
	if err := lib.ExecR2C(f.plans[0], uintptr(f.pad), uintptr(f.spec)); err != nil {
		return fmt.Errorf("%s: forward transform of %v: %w", lib.Name(), l, err)
	}
	if err := x.Launch(f.fns["fft_multiply"], g.mul, g.line, 0, s, f.spec, f.filt, l.SpecPoints(), l.Tiles()); err != nil {
		return err
	}
	if err := lib.ExecC2R(f.plans[1], uintptr(f.spec), uintptr(f.pad)); err != nil {
		return fmt.Errorf("%s: inverse transform of %v: %w", lib.Name(), l, err)
	}
	return x.Launch(f.fns["fft_crop"], g.out, g.block, 0, s, f.pad, f.b.Out, f.amax, f.w, f.h, f.tx, f.ty, f.gx, f.gy, int32(f.ew), f.nbx, f.nby)
}
