package variants

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/cufft"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

// TestFFTLayout: the tiles are powers of two, about eight filter sides
// and at least 256 points where the image has room, never longer than the
// whole bordered image's transform (whose points the FFT32 bound counts,
// convolve.FFTLogPoints, but for the exact doubling of a single point),
// and they cover the output.
func TestFFTLayout(t *testing.T) {
	for _, c := range []struct{ w, h, kw, kh, tx, ty, gx, gy int }{
		{1, 1, 1, 1, 2, 2, 1, 1},
		{1, 1, 3, 3, 4, 4, 1, 1},
		{2, 1, 1, 1, 2, 2, 1, 1},
		{1, 5, 1, 3, 2, 8, 1, 1},
		{37, 23, 5, 3, 64, 32, 1, 1},
		{30, 30, 3, 3, 32, 32, 1, 1},
		{31, 30, 3, 3, 64, 32, 1, 1},
		{4096, 4096, 1, 1, 256, 256, 16, 16},
		{4096, 4096, 3, 3, 256, 256, 17, 17},
		{1024, 1024, 75, 75, 1024, 1024, 2, 2},
		{8192, 8192, 75, 63, 1024, 512, 9, 19},
		{6000, 4000, 9, 9, 256, 256, 25, 17},
	} {
		f := &convolve.Filter{Width: c.kw, Height: c.kh, Weights: make([]float32, c.kw*c.kh)}
		p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: c.w, Height: c.h, Channels: 3}, Filter: f}
		l := newFFTLayout(p)
		name := fmt.Sprintf("%dx%d, K=%dx%d", c.w, c.h, c.kw, c.kh)
		if l.TX != c.tx || l.TY != c.ty || l.GX != c.gx || l.GY != c.gy || l.Channels != 3 {
			t.Errorf("%s: layout %v, want %dx%d tiles of %dx%d points x 3 channels", name, l, c.gx, c.gy, c.tx, c.ty)
		}
		if l.SX != l.TX-c.kw+1 || l.SY != l.TY-c.kh+1 || l.GX*l.SX < c.w || (l.GX-1)*l.SX >= c.w || l.GY*l.SY < c.h || (l.GY-1)*l.SY >= c.h {
			t.Errorf("%s: %v with %dx%d outputs per tile does not just cover the image", name, l, l.SX, l.SY)
		}
		single := 0
		for _, n := range []int{c.w + c.kw - 1, c.h + c.kh - 1} {
			if n == 1 {
				single++
			}
		}
		if got, most := l.LogPoints(), convolve.FFTLogPoints(c.w, c.h, c.kw, c.kh)+single; got > most {
			t.Errorf("%s: LogPoints = %d, past the %d the FFT32 bound is derived for", name, got, most)
		}
		tiles := int64(c.gx) * int64(c.gy) * 3
		if want := int64(c.tx) * int64(c.ty) * tiles * 4; l.RealBytes() != want {
			t.Errorf("%s: RealBytes = %d, want %d", name, l.RealBytes(), want)
		}
		if want := int64(c.ty) * int64(c.tx/2+1) * 8; l.FilterBytes() != want || l.SpecBytes() != tiles*want {
			t.Errorf("%s: FilterBytes, SpecBytes = %d, %d, want %d, %d", name, l.FilterBytes(), l.SpecBytes(), want, tiles*want)
		}
	}
}

// TestScaledWeights: the weights are scaled by an exact power of two into
// [0.5, 1) in magnitude, from any finite range.
func TestScaledWeights(t *testing.T) {
	for _, c := range []struct {
		name string
		w    []float32
	}{
		{"unit", []float32{0.25, -1, 0.5}},
		{"large", []float32{3e38, -1e30, 2}},
		{"subnormal", []float32{math.SmallestNonzeroFloat32, -3 * math.SmallestNonzeroFloat32, 0}},
		{"wide", []float32{1e20, 1e-20, math.SmallestNonzeroFloat32}},
		{"zero", []float32{0, 0}},
	} {
		s, e := scaledWeights(c.w)
		m := 0.0
		for i, v := range s {
			m = math.Max(m, math.Abs(float64(v)))
			// A weight that loses bits below the largest one's 2^-149
			// relative resolution is the only inexact case.
			if back := math.Ldexp(float64(v), e); back != float64(c.w[i]) && math.Abs(back-float64(c.w[i])) > math.Ldexp(1, e-149) {
				t.Errorf("%s: weight %d: %v scaled by 2^%d comes back as %v", c.name, i, c.w[i], -e, back)
			}
		}
		if c.name == "zero" {
			if e != 0 || m != 0 {
				t.Errorf("zero filter: scaled %v, e = %d", s, e)
			}
			continue
		}
		if m < 0.5 || m >= 1 {
			t.Errorf("%s: largest scaled |weight| = %v, want [0.5, 1)", c.name, m)
		}
	}
	w := []float32{1, 2}
	s, _ := scaledWeights(w)
	s[0] = 7
	if w[0] != 1 {
		t.Errorf("scaledWeights changed its argument")
	}
}

// TestFFTDeclaration: gpu-fft is registered with the capabilities of the
// direct kernels, the FFT32 model and FiniteInput, and a filter with a
// non-finite weight is refused before any device is used.
func TestFFTDeclaration(t *testing.T) {
	v, err := convolve.Lookup("gpu-fft")
	if err != nil {
		t.Fatal(err)
	}
	c := v.Describe().Caps
	if c.Accuracy != convolve.FFT32 || !c.FiniteInput || c.ReferenceOrder || !c.GPU {
		t.Errorf("gpu-fft: Accuracy %v, FiniteInput %v, ReferenceOrder %v, GPU %v; want fft32, true, false, true",
			c.Accuracy, c.FiniteInput, c.ReferenceOrder, c.GPU)
	}
	d := directCaps()
	if !slices.Equal(c.Types, d.Types) || !slices.Equal(c.Channels, d.Channels) || !slices.Equal(c.Layouts, d.Layouts) || !slices.Equal(c.Borders, d.Borders) {
		t.Errorf("gpu-fft capabilities %+v, want the direct kernels' types, channels, layouts and borders", c)
	}
	f := &convolve.Filter{Name: "nan", Width: 3, Height: 3, Weights: []float32{0, 0, 0, 0, float32(math.NaN()), 0, 0, 0, 0}}
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 8, Height: 8, Channels: 1, Type: convolve.Float32}, Filter: f}
	if _, err := v.Plan(p, convolve.Config{}); !errors.As(err, new(*convolve.NonFiniteError)) {
		t.Errorf("Plan of a NaN weight: %v, want a *convolve.NonFiniteError", err)
	}
}

// TestFFTKernelsCompile compiles fft.cu for sm_90 with the local NVRTC
// (no driver needed) over every border, element type, channel layout,
// filter sizes up to 75, 64-bit indexing and the compile options.
func TestFFTKernelsCompile(t *testing.T) {
	t.Parallel() // NVRTC only: no device memory, so beside the other compile checks
	gputest.NVRTC(t)
	src, err := sourceOf("fft")
	if err != nil {
		t.Fatal(err)
	}
	specs := []spec{
		{kw: 1, kh: 1, border: convolve.Zero, typ: convolve.Float32, channels: 1, block: defaultBlock},
		{kw: 75, kh: 75, border: convolve.Wrap, typ: convolve.Uint8, channels: 1, block: defaultBlock},
		{kw: 31, kh: 5, border: convolve.Mirror, typ: convolve.Int16, channels: 2, layout: convolve.Planar, block: convolve.Block{X: 32, Y: 8}},
		{kw: 3, kh: 7, border: convolve.Reflect, typ: convolve.Float32, channels: 4, layout: convolve.Interleaved, block: convolve.Block{X: 7, Y: 5}},
		{kw: 5, kh: 5, border: convolve.Replicate, typ: convolve.Uint8, channels: 3, layout: convolve.Interleaved, block: defaultBlock, index64: true},
	}
	for _, b := range convolve.Borders {
		for _, ty := range convolve.ElemTypes {
			specs = append(specs, spec{kw: 3, kh: 3, border: b, typ: ty, channels: 1, block: defaultBlock})
		}
	}
	var checks []compileCheck
	for _, s := range specs {
		for _, cfg := range []convolve.Config{{}, {NoFMA: true}, {FastMath: true}} {
			checks = append(checks, compileCheck{src, CompileOptions(s.problem(), cfg, s.block, s.index64, nil), fmt.Sprintf("fft %v %v", s, cfg)})
		}
	}
	checkCompiles(t, checks)
}

// TestFFTPlanWithoutGPU: without a device, Plan returns the
// *cudabind.UnavailableError that GPU tests skip on.
func TestFFTPlanWithoutGPU(t *testing.T) {
	if _, err := cudabind.Default(); err == nil {
		t.Skip("a CUDA device is present: TestFFTAgreement covers the plan")
	}
	v, _ := convolve.Lookup("gpu-fft")
	box, _ := convolve.Box(3)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 8, Height: 8, Channels: 1, Type: convolve.Float32}, Filter: box}
	_, err := v.Plan(p, convolve.Config{})
	var ue *cudabind.UnavailableError
	if !errors.As(err, &ue) {
		t.Errorf("Plan without a GPU: %v, want a *cudabind.UnavailableError", err)
	}
}

// fftOrSkip returns the device, or skips when there is no device or no
// cuFFT.
func fftOrSkip(t *testing.T) *cudabind.Device {
	t.Helper()
	d := gputest.DeviceNoLeakCheck(t)
	lib, err := fftLibrary()
	gputest.Need(t, "cuFFT", err)
	t.Logf("cuFFT: %s", lib)
	return d
}

// fftCases: every border in both modes with every element type, 1 to 4
// channels in both layouts, square and rectangular filters up to 75, the
// block shapes of the fill and crop passes.
func fftCases() []kernelCase {
	var cs []kernelCase
	chans := []struct {
		n int
		l convolve.Layout
	}{{1, convolve.Interleaved}, {3, convolve.Interleaved}, {2, convolve.Planar}, {4, convolve.Interleaved}, {3, convolve.Planar}}
	i := 0
	for _, b := range convolve.Borders {
		for _, k := range [][2]int{{1, 1}, {3, 3}, {5, 3}, {3, 7}} {
			c := chans[i%len(chans)]
			cs = append(cs, kernelCase{kw: k[0], kh: k[1], border: b, mode: convolve.Modes[i%2], typ: convolve.ElemTypes[i%3],
				channels: c.n, layout: c.l})
			i++
		}
	}
	for _, k := range []int{9, 21, 31, 45, 63, 75} {
		c := chans[i%len(chans)]
		cs = append(cs, kernelCase{kw: k, kh: k, border: convolve.Borders[i%5], mode: convolve.Modes[i%2], typ: convolve.ElemTypes[i%3],
			channels: c.n, layout: c.l})
		i++
	}
	for _, blk := range []convolve.Block{{X: 32, Y: 8}, {X: 7, Y: 5}} {
		cs = append(cs, kernelCase{kw: 5, kh: 5, border: convolve.Reflect, typ: convolve.Float32, channels: 1, block: blk})
	}
	return cs
}

// fftSizes are agreementSizes and larger images: one past a power of two
// with its halo, and one of several tiles for filters up to 31.
var fftSizes = append(slices.Clone(agreementSizes), convolve.Geometry{Width: 200, Height: 150},
	convolve.Geometry{Width: 250, Height: 97}, convolve.Geometry{Width: 700, Height: 530})

// fftReferenceBudget bounds W*H*C*KW*KH of an agreement case: the float64
// reference's work.
const fftReferenceBudget = 2e8

// fftAgree runs plan on in and checks the output against the reference
// under the FFT32 model; it returns the largest error in units of the
// tolerance.
func fftAgree(t *testing.T, plan convolve.Plan, p convolve.Problem, in *convolve.Image) (float64, bool) {
	t.Helper()
	out := poisoned(t, p)
	if err := plan.Run(in, out); err != nil {
		t.Errorf("gpu-fft %v: Run: %v", p, err)
		return 0, false
	}
	return fftCompare(t, "gpu-fft", p, in, out)
}

// fftCompare checks out against refimpl.ExpectModel under FFT32.
func fftCompare(t *testing.T, name string, p convolve.Problem, in, out *convolve.Image) (float64, bool) {
	t.Helper()
	ref, tol, err := refimpl.ExpectModel(p, in, convolve.FFT32)
	if err != nil {
		t.Fatalf("ExpectModel(%v): %v", p, err)
	}
	m, err := convolve.Compare(out, ref, tol)
	if err != nil {
		t.Fatalf("%s %v: Compare: %v", name, p, err)
	}
	if !m.OK() {
		t.Errorf("%s %v: %v", name, p, m)
	}
	worst := 0.0
	for ch := 0; ch < p.Input.Channels; ch++ {
		for y := 0; y < p.Input.Height; y++ {
			for x := 0; x < p.Input.Width; x++ {
				if tl := tol.At(x, y, ch); tl > 0 {
					worst = math.Max(worst, math.Abs(out.At(x, y, ch)-ref.At(x, y, ch))/tl)
				}
			}
		}
	}
	return worst, m.OK()
}

// fftAgreement (run by TestAgreementSuites) runs gpu-fft over fftCases x fftSizes, under each
// compile option, against the reference under the FFT32 bound, each plan
// twice on fresh inputs, and checks that every plan was released. -short
// leaves out the largest image.
func fftAgreement(t *testing.T) {
	fftOrSkip(t)
	v, err := convolve.Lookup("gpu-fft")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(41, 7))
	failures := 0
	worst := 0.0
	tiles := map[bool]int{} // cases of one tile per channel and of several
	for i, kc := range fftCases() {
		f := imagetest.RandomFilter(r, kc.kw, kc.kh)
		// The compile options cycle: default, --fmad=false, fast math.
		cfg := convolve.Config{Block: kc.block, NoFMA: i%3 == 1, FastMath: i%3 == 2}
		for _, g := range fftSizes {
			p := kc.problem(g, f)
			if float64(p.Input.Len())*float64(kc.kw*kc.kh) > fftReferenceBudget ||
				testing.Short() && g.Width*g.Height > 100000 {
				continue
			}
			tiles[newFFTLayout(p).Tiles() > int64(p.Input.Channels)]++
			plan, err := convolve.PlanFor(v, p, cfg)
			if err != nil {
				t.Errorf("gpu-fft %v %v: Plan: %v", cfg, p, err)
				failures++
				continue
			}
			for range 2 {
				w, ok := fftAgree(t, plan, p, imagetest.Random(r, p.Input, imagetest.NonZero))
				worst = math.Max(worst, w)
				if !ok {
					failures++
				}
			}
			if err := plan.Close(); err != nil {
				t.Errorf("gpu-fft %v: Close: %v", p, err)
			}
			if failures > 10 {
				t.Fatalf("too many failures")
			}
		}
	}
	t.Logf("largest error: %.3g of the FFT32 tolerance; %d cases of one tile per channel, %d of several", worst, tiles[false], tiles[true])
	if tiles[false] == 0 || tiles[true] == 0 {
		t.Errorf("cases of one tile and of several = %d, %d; want both", tiles[false], tiles[true])
	}
}

// TestFFTExtremeScale: pixels or weights scaled by powers of two near the
// float32 limits, which would overflow or vanish in an unscaled float32
// FFT, agree with the reference under the FFT32 bound.
func TestFFTExtremeScale(t *testing.T) {
	fftOrSkip(t)
	v, _ := convolve.Lookup("gpu-fft")
	r := rand.New(rand.NewPCG(5, 9))
	for _, c := range []struct {
		pixels, weights int // exponents
	}{{100, 0}, {0, 110}, {-140, 0}, {0, -135}, {60, 60}, {-70, -70}} {
		f := imagetest.RandomFilter(r, 7, 5)
		for i := range f.Weights {
			f.Weights[i] = float32(math.Ldexp(float64(f.Weights[i]), c.weights))
		}
		p := kernelCase{kw: 7, kh: 5, border: convolve.Reflect, typ: convolve.Float32, channels: 2, layout: convolve.Planar}.
			problem(convolve.Geometry{Width: 120, Height: 90}, f)
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		for i := range in.F32 {
			in.F32[i] = float32(math.Ldexp(float64(in.F32[i]), c.pixels))
		}
		// Channel 1 a million times smaller than channel 0: each channel
		// is scaled on its own.
		for y := 0; y < p.Input.Height; y++ {
			for x := 0; x < p.Input.Width; x++ {
				in.Set(x, y, 1, in.At(x, y, 1)*0x1p-20)
			}
		}
		plan, err := convolve.PlanFor(v, p, convolve.Config{})
		if err != nil {
			t.Fatalf("pixels 2^%d, weights 2^%d: Plan: %v", c.pixels, c.weights, err)
		}
		w, _ := fftAgree(t, plan, p, in)
		t.Logf("pixels 2^%d, weights 2^%d: largest error %.3g of the tolerance", c.pixels, c.weights, w)
		plan.Close()
	}
}

// TestFFTDevicePlan: Upload, TimeKernel, TimeKernelGraph (cuFFT's
// transforms captured into CUDA graphs) and Download give the reference's
// result, and Close releases the plan once.
func TestFFTDevicePlan(t *testing.T) {
	d := fftOrSkip(t)
	leakCheck := gputest.LeakCheck(t, d)
	v, _ := convolve.Lookup("gpu-fft")
	r := rand.New(rand.NewPCG(3, 3))
	p := kernelCase{kw: 21, kh: 21, border: convolve.Mirror, mode: convolve.Convolve, typ: convolve.Uint8, channels: 3, layout: convolve.Interleaved}.
		problem(convolve.Geometry{Width: 300, Height: 200}, imagetest.RandomFilter(r, 21, 21))
	in := imagetest.Random(r, p.Input, imagetest.NonZero)
	plan, err := convolve.PlanFor(v, p, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dp := plan.(convolve.DevicePlan)
	if err := dp.Upload(in); err != nil {
		t.Fatal(err)
	}
	for _, timing := range []struct {
		name string
		f    func(int) (time.Duration, error)
	}{{"TimeKernel", dp.TimeKernel}, {"TimeKernelGraph", dp.TimeKernelGraph}} {
		for _, n := range []int{1, 3, GraphBatch + 2} {
			el, err := timing.f(n)
			if err != nil {
				t.Fatalf("%s(%d): %v", timing.name, n, err)
			}
			if el <= 0 || el > time.Minute {
				t.Errorf("%s(%d) = %v", timing.name, n, el)
			}
			out := poisoned(t, p)
			if err := dp.Download(out); err != nil {
				t.Fatal(err)
			}
			fftCompare(t, fmt.Sprintf("gpu-fft after %s(%d)", timing.name, n), p, in, out)
		}
	}
	if err := plan.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := plan.Close(); !errors.Is(err, convolve.ErrClosed) {
		t.Errorf("second Close = %v, want convolve.ErrClosed", err)
	}
	if _, err := dp.TimeKernel(1); !errors.Is(err, convolve.ErrClosed) {
		t.Errorf("TimeKernel after Close = %v, want convolve.ErrClosed", err)
	}
	leakCheck()
}

// TestFFTMemoryRefusal: a problem whose input and output fit in the
// free device memory but whose tiles and spectra do not is refused with a
// *convolve.MemoryError naming the FFT buffers before they are allocated,
// and leaves nothing allocated. The device stands for a fuller one
// (deviceFree): filling it for real would starve the tests that share it.
func TestFFTMemoryRefusal(t *testing.T) {
	d := fftOrSkip(t)
	v, _ := convolve.Lookup("gpu-fft")
	box, _ := convolve.Box(3)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 4096, Height: 4096, Channels: 4, Type: convolve.Uint8}, Filter: box}
	l := newFFTLayout(p)
	// The device reports one byte less than the FFT buffers need: the
	// plan allocates the input and the output, each smaller, and refuses
	// the buffers.
	free := l.Bytes(9) - 1
	if in, out := p.Input.Bytes(), p.OutputGeometry().Bytes(); max(in, out) >= free {
		t.Fatalf("%v: input %d or output %d bytes not below the FFT buffers' %d", p.Input, in, out, l.Bytes(9))
	}
	defer func(f func(*cudabind.Exec) (int64, error)) { deviceFree = f }(deviceFree)
	var real int64
	if err := d.Do(func(x *cudabind.Exec) (err error) { real, _, err = x.MemInfo(); return err }); err != nil || real < free {
		t.Skipf("the device has %d bytes free (%v), fewer than the %d this test stands for", real, err, free)
	}
	deviceFree = func(*cudabind.Exec) (int64, error) { return free, nil }
	leakCheck := gputest.LeakCheck(t, d)
	plan, err := convolve.PlanFor(v, p, convolve.Config{})
	var me *convolve.MemoryError
	if !errors.As(err, &me) {
		if plan != nil {
			plan.Close()
		}
		t.Fatalf("Plan of %v with %d bytes free: %v, want a *convolve.MemoryError", p.Input, free, err)
	}
	t.Logf("refused: %v", err)
	if me.Needed < l.Bytes(9) || me.Available != free || !strings.Contains(me.What, "FFT buffers") || me.Variant != "gpu-fft" {
		t.Errorf("MemoryError %+v, want gpu-fft's FFT buffers of at least %d bytes, %d available", me, l.Bytes(9), free)
	}
	leakCheck()
}

// TestFFTGrids: the launch geometry, and the refusals of transforms past
// CUDA's grid limits, without a device.
func TestFFTGrids(t *testing.T) {
	v, _ := convolve.Lookup("gpu-fft")
	desc := v.Describe()
	box, _ := convolve.Box(3)
	for _, c := range []struct {
		w, h, ch int
		block    convolve.Block
		ok       bool
	}{
		{37, 23, 3, convolve.Block{}, true},
		{1 << 20, 1, 1, convolve.Block{X: 32, Y: 8}, true},
		// 1048560 rows fit a grid of 16-row blocks; their 4129 tiles of
		// 256 rows need 66064 blocks, past gridDim.y's limit.
		{1, 65535 * 16, 1, convolve.Block{X: 16, Y: 16}, false},
		// 65000 rows in 256 tiles of 256 rows: 65536 one-row blocks.
		{3, 65000, 1, convolve.Block{X: 1024, Y: 1}, false},
		{3, 64000, 1, convolve.Block{X: 1024, Y: 1}, true},
	} {
		p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: c.w, Height: c.h, Channels: c.ch, Type: convolve.Float32}, Filter: box}
		b, err := newBase(desc, convolve.Block{}, p, convolve.Config{Block: c.block})
		if err != nil {
			t.Fatalf("%v: newBase: %v", p.Input, err)
		}
		g, err := newFFTGrids(b)
		if !c.ok {
			var ce *convolve.CapabilityError
			if !errors.As(err, &ce) || ce.Variant != "gpu-fft" {
				t.Errorf("%v block %v: err = %v, want a *convolve.CapabilityError naming gpu-fft", p.Input, c.block, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", p.Input, err)
			continue
		}
		l := g.layout
		across, down := int64(l.GX)*int64(l.TX), int64(l.GY)*int64(l.TY)
		if got := int64(g.tiles.X) * int64(g.block.X); got < across || got >= across+int64(g.block.X) {
			t.Errorf("%v: fill grid %v x block %v does not cover %d columns", p.Input, g.tiles, g.block, across)
		}
		if got := int64(g.tiles.Y) * int64(g.block.Y); got < down || got >= down+int64(g.block.Y) {
			t.Errorf("%v: fill grid %v x block %v does not cover %d rows", p.Input, g.tiles, g.block, down)
		}
		if int(g.tiles.Z) != c.ch || int(g.max.Z) != c.ch || int64(g.mul.Y) != min(l.Tiles(), maxGridYZ) {
			t.Errorf("%v: channel and tile dimensions of grids %v %v %v for %v", p.Input, g.tiles, g.max, g.mul, l)
		}
		if got := int64(g.mul.X) * int64(g.line.X); got < l.SpecPoints() || got >= l.SpecPoints()+fftBlock {
			t.Errorf("%v: multiply grid %v covers %d of %d spectrum points", p.Input, g.mul, got, l.SpecPoints())
		}
		if g.max.X < 1 || g.max.Y < 1 || g.max.X*g.max.Y > fftMaxBlocks || int(g.max.Y) > c.h {
			t.Errorf("%v: absmax grid %v", p.Input, g.max)
		}
		// The fill: fftRun points a thread cover every tile's points.
		if got := int64(g.fill.X) * int64(g.block.X) * fftRun; got < across || got >= across+int64(g.block.X)*fftRun {
			t.Errorf("%v: fill grid %v x block %v x %d does not cover %d columns", p.Input, g.fill, g.block, fftRun, across)
		}
		if g.fill.Y != g.tiles.Y || g.fill.Z != g.tiles.Z {
			t.Errorf("%v: fill grid %v, rows and channels of %v", p.Input, g.fill, g.tiles)
		}
		// The crop: NBX x NBY blocks a tile (fftRun outputs a thread
		// across) cover its SX x SY outputs with less than a block to
		// spare, and the tiles cover the image.
		bx, by := int(g.block.X)*fftRun, int(g.block.Y)
		if g.nbx*bx < l.SX || (g.nbx-1)*bx >= l.SX || g.nby*by < l.SY || (g.nby-1)*by >= l.SY {
			t.Errorf("%v: crop's %dx%d blocks of %v a tile for its %dx%d outputs", p.Input, g.nbx, g.nby, g.block, l.SX, l.SY)
		}
		if int64(g.out.X) != int64(l.GX)*int64(g.nbx) || int64(g.out.Y) != int64(l.GY)*int64(g.nby) || int(g.out.Z) != c.ch {
			t.Errorf("%v: crop grid %v, want %dx%dx%d", p.Input, g.out, l.GX*g.nbx, l.GY*g.nby, c.ch)
		}
		if l.GX*l.SX < c.w || l.GY*l.SY < c.h {
			t.Errorf("%v: %v cover %dx%d outputs", p.Input, l, l.GX*l.SX, l.GY*l.SY)
		}
	}
}

// fftLibrary returns the cuFFT library gpu-fft uses, named with its
// version, or the *cudabind.UnavailableError saying why none loaded.
func fftLibrary() (string, error) {
	l, err := cufft.Default()
	if err != nil {
		return "", err
	}
	return l.String(), nil
}
