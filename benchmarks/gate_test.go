package benchmarks

import (
	"flag"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/verify"
)

// runVariant plans c with the registered variant and returns its output.
func runVariant(t *testing.T, c Case, in *convolve.Image) *convolve.Image {
	t.Helper()
	p, err := c.Problem()
	if err != nil {
		t.Fatal(err)
	}
	v, err := convolve.Lookup(c.Variant)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := convolve.PlanFor(v, p, c.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	out, err := p.NewOutput()
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Run(in, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGateCPU(t *testing.T) {
	tests := []struct {
		name string
		c    Case
		mode GateMode
	}{
		{"full f32", Case{Variant: "cpu-fast", Width: 37, Height: 23, Filter: "gauss5", Channels: 1}, gateFull},
		{"full u8 rgb", Case{Variant: "cpu-naive", Width: 19, Height: 31, Filter: "log5", Type: convolve.Uint8, Channels: 3}, gateFull},
		{"sobel", Case{Variant: "cpu-fast", Op: convolve.SobelMagnitude, Width: 33, Height: 17, Type: convolve.Uint8, Channels: 1}, gateFull},
		{"yuv", Case{Variant: "cpu-fast", Op: convolve.RGBToYUV, Width: 21, Height: 9, Type: convolve.Uint8, Channels: 3}, gateFull},
		// 1200x400x3x225 multiply-adds is above FullGateWork: windows.
		{"windows i16 planar", Case{Variant: "cpu-fast", Width: 1200, Height: 400, Filter: "box15", Type: convolve.Int16, Channels: 3, Layout: convolve.Planar}, gateWindowed},
		// Under reflect, mirror and wrap borders the windows' crops are
		// padded through the border mapping instead of clipped.
		{"windows reflect", Case{Variant: "cpu-fast", Width: 1200, Height: 400, Filter: "gauss15", Channels: 3, Border: convolve.Reflect}, gateWindowed},
		{"windows mirror u8", Case{Variant: "cpu-naive", Width: 1200, Height: 400, Filter: "box15", Type: convolve.Uint8, Channels: 3, Border: convolve.Mirror}, gateWindowed},
		{"windows wrap rgb", Case{Variant: "cpu-fast", Width: 1200, Height: 400, Filter: "dense15", Channels: 3, Border: convolve.Wrap}, gateWindowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.c.Problem()
			if err != nil {
				t.Fatal(err)
			}
			in, err := NewInput(p, 7)
			if err != nil {
				t.Fatal(err)
			}
			out := runVariant(t, tt.c, in)
			m, mode, err := gateModel(p, in, out, convolve.Direct)
			if err != nil {
				t.Fatal(err)
			}
			if mode != tt.mode || !m.OK() || m.N == 0 {
				t.Fatalf("correct output: mode %s (want %s), metrics %v", mode, tt.mode, m)
			}
			// Corrupt one element inside a compared window (the centre
			// one for windowed gates): the gate must fail there.
			x, y := p.Input.Width/2, p.Input.Height/2
			out.Set(x, y, 0, out.At(x, y, 0)+7)
			m, _, err = gateModel(p, in, out, convolve.Direct)
			if err != nil {
				t.Fatal(err)
			}
			if m.OK() || m.First.X != x || m.First.Y != y {
				t.Errorf("corrupted (%d,%d): metrics %v, want a violation there", x, y, m)
			}
			// A corner, where a padded crop reads through the border.
			out.Set(x, y, 0, out.At(x, y, 0)-7)
			out.Set(0, 0, 0, out.At(0, 0, 0)+7)
			m, _, err = gateModel(p, in, out, convolve.Direct)
			if err != nil {
				t.Fatal(err)
			}
			if m.OK() || m.First.X != 0 || m.First.Y != 0 {
				t.Errorf("corrupted (0,0): metrics %v, want a violation there", m)
			}
		})
	}
}

// A NaN left in the output (an element never written) fails even a
// windowed gate when it lies outside every window.
func TestGateUnwritten(t *testing.T) {
	c := Case{Variant: "cpu-fast", Width: 1200, Height: 400, Filter: "box15", Channels: 3}
	p, _ := c.Problem()
	in, _ := NewInput(p, 1)
	out := runVariant(t, c, in)
	out.Set(300, 100, 1, nanValue())
	m, mode, err := gateModel(p, in, out, convolve.Direct)
	if err != nil {
		t.Fatal(err)
	}
	if mode != gateWindowed || m.OK() {
		t.Errorf("mode %s, metrics %v: want a windowed gate that fails", mode, m)
	}
}

func nanValue() float64 { var z float64; return z / z }

func TestNewInputDeterministic(t *testing.T) {
	for _, typ := range convolve.ElemTypes {
		c := Case{Width: 13, Height: 7, Filter: "box3", Type: typ, Channels: 2}
		p, _ := c.Problem()
		a, _ := NewInput(p, 3)
		b, _ := NewInput(p, 3)
		d, _ := NewInput(p, 4)
		same, differs := true, false
		for i := range a.Len() {
			va, vb, vd := a.At(i%13, i/13%7, 0), b.At(i%13, i/13%7, 0), d.At(i%13, i/13%7, 0)
			same = same && va == vb
			differs = differs || va != vd
		}
		if !same || !differs {
			t.Errorf("%v: same seed same data %v, other seed differs %v", typ, same, differs)
		}
	}
}

// The runner gates, times and reports a tiny CPU case through
// testing.Benchmark.
func TestRunnerCPU(t *testing.T) {
	var progress strings.Builder
	c := Case{Variant: "cpu-fast", Width: 64, Height: 48, Filter: "gauss5", Channels: 1, Cache: Hot, Timing: CPUTiming}
	r := &Runner{CPUThreads: 2, Seed: 1, Progress: newProgress(&progress, "test", 1, nowForTest()), Noise: quickNoise}
	res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if res.N == 0 {
		t.Fatalf("benchmark did not run: %+v", res)
	}
	for _, unit := range []string{"MPix/s", "GB/s", "GFLOP/s"} {
		if res.Extra[unit] <= 0 {
			t.Errorf("metric %s = %v, want > 0", unit, res.Extra[unit])
		}
	}
	if _, ok := res.Extra["gpu-ns/op"]; ok {
		t.Errorf("a CPU case reported gpu-ns/op")
	}
	if _, ok := res.Extra["max-ulp"]; ok {
		t.Errorf("a case without ULP set reported max-ulp")
	}
	if !strings.Contains(progress.String(), c.Name()) {
		t.Errorf("progress %q does not name the case", progress.String())
	}
	if n := res.Extra["samples"]; n < MinCISamples {
		t.Errorf("samples = %v, want at least %d", n, MinCISamples)
	}
	if sp, ok := res.Extra["median-ci95-%"]; !ok || sp < 0 || math.IsInf(sp, 0) {
		t.Errorf("median-ci95-%% = %v (reported %v), want a finite spread", sp, ok)
	}
	if !strings.Contains(progress.String(), "  line 1: ") {
		t.Errorf("progress %q has no note on the sample set", progress.String())
	}
}

// quickNoise is a sampling rule for tests: loose and short.
var quickNoise = Noise{Target: 20, MinSamples: MinCISamples, MaxTime: 100 * time.Millisecond, SampleTime: 100 * time.Microsecond}

// benchOnce runs f as testing.Benchmark does with -test.benchtime=1x, the
// way the benchmark binary runs (see oneCallPerLine): one call, one
// result line.
func benchOnce(t *testing.T, f func(b *testing.B)) testing.BenchmarkResult {
	t.Helper()
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	return testing.Benchmark(f)
}

// bumpULP moves element (x, y, 0) of a float32 image n float32 steps up.
func bumpULP(im *convolve.Image, x, y, n int) {
	v := float32(im.At(x, y, 0))
	for range n {
		v = math.Nextafter32(v, float32(math.Inf(1)))
	}
	im.Set(x, y, 0, float64(v))
}

// naiveULP measures the distance from cpu-naive's own output: 0 for that
// output (on windows too, which cpu-naive computes on crops, so the crops
// must sum the same values in the same order), and exactly the bump for
// an element moved some ULPs inside a compared region.
func TestNaiveULP(t *testing.T) {
	tests := []struct {
		name string
		c    Case
		mode GateMode
	}{
		{"full", Case{Variant: "cpu-naive", Width: 61, Height: 37, Filter: "gauss7", Channels: 1}, gateFull},
		{"full sobel", Case{Variant: "cpu-naive", Op: convolve.SobelMagnitude, Width: 40, Height: 30, Type: convolve.Uint8, Channels: 1}, gateFull},
		// 800x400x441 multiply-adds is above FullGateWork: windows.
		{"windows zero", Case{Variant: "cpu-naive", Width: 800, Height: 400, Filter: "box21", Channels: 1}, gateWindowed},
		{"windows replicate", Case{Variant: "cpu-naive", Width: 800, Height: 400, Filter: "gauss21", Border: convolve.Replicate, Channels: 1}, gateWindowed},
		{"windows wrap", Case{Variant: "cpu-naive", Width: 800, Height: 400, Filter: "dense21", Border: convolve.Wrap, Channels: 1}, gateWindowed},
		{"windows mirror", Case{Variant: "cpu-naive", Width: 800, Height: 400, Filter: "gauss21", Border: convolve.Mirror, Channels: 1}, gateWindowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.c.Problem()
			if err != nil {
				t.Fatal(err)
			}
			in, err := NewInput(p, 5)
			if err != nil {
				t.Fatal(err)
			}
			out := runVariant(t, tt.c, in)
			ulp, mode, err := naiveULP(p, in, out)
			if err != nil {
				t.Fatal(err)
			}
			if mode != tt.mode || ulp != 0 {
				t.Fatalf("cpu-naive's own output: %d ULPs, mode %s; want 0, %s", ulp, mode, tt.mode)
			}
			// The centre element lies in every gate's compared region;
			// (1, 100) lies in no window of an 800x400 image.
			bumpULP(out, 1, p.Input.Height/4, 9)
			bumpULP(out, p.Input.Width/2, p.Input.Height/2, 3)
			ulp, _, err = naiveULP(p, in, out)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(9)
			if mode == gateWindowed {
				want = 3
			}
			if ulp != want {
				t.Errorf("after bumps: %d ULPs, want %d", ulp, want)
			}
		})
	}
	yuv := Case{Op: convolve.RGBToYUV, Width: 8, Height: 8, Type: convolve.Uint8, Channels: 3}
	p, _ := yuv.Problem()
	if hasNaiveULP(p) {
		t.Errorf("hasNaiveULP(rgb2yuv) = true: its output is bytes")
	}
	if _, _, err := naiveULP(p, nil, nil); err == nil || !strings.Contains(err.Error(), "rgb2yuv") {
		t.Errorf("naiveULP(rgb2yuv) error %v, want one naming the operation", err)
	}
}

func TestCheckBitExact(t *testing.T) {
	tests := []struct {
		variant string
		op      convolve.Operation
		opts    Opts
		ulp     int64
		wantErr bool
	}{
		{"gpu-naive", convolve.Filter2D, noFMA, 0, false},
		{"gpu-naive", convolve.Filter2D, noFMA, 1, true},
		{"gpu-const", convolve.Filter2D, noFMA, 7, true},
		{"gpu-naive", convolve.Filter2D, defaultOpts, 7, false},
		{"gpu-naive", convolve.Filter2D, fastMath, 7, false},
		{"gpu-separable", convolve.Filter2D, noFMA, 7, false}, // sums in another order
		{"gpu-naive", convolve.SobelMagnitude, noFMA, 7, false},
	}
	for _, tt := range tests {
		c := Case{Variant: tt.variant, Op: tt.op, Opts: tt.opts, GPU: true}
		err := checkBitExact(c, tt.ulp)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s %v opts=%q %d ULPs: error %v, want error %v", tt.variant, tt.op, tt.opts, tt.ulp, err, tt.wantErr)
		}
	}
}

// The gate's max-ulp reaches the benchmark's metrics when the case asks
// for it: cpu-naive is 0 ULPs from itself; RGB->YUV writes bytes and
// reports none.
func TestRunnerMaxULP(t *testing.T) {
	tests := []struct {
		c    Case
		want bool
	}{
		{Case{Variant: "cpu-naive", Width: 40, Height: 24, Filter: "box9", Channels: 1, Cache: Hot, Timing: CPUTiming, ULP: true}, true},
		{Case{Variant: "cpu-naive", Width: 40, Height: 24, Filter: "box9", Channels: 1, Cache: Hot, Timing: CPUTiming}, false},
		{Case{Variant: "cpu-naive", Op: convolve.RGBToYUV, Width: 16, Height: 8, Type: convolve.Uint8, Channels: 3, Cache: Hot, Timing: CPUTiming, ULP: true}, false},
	}
	for _, tt := range tests {
		r := &Runner{CPUThreads: 1, Seed: 2, Noise: quickNoise}
		res := benchOnce(t, func(b *testing.B) { r.Run(b, tt.c) })
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if res.N == 0 {
			t.Fatalf("%s did not run", tt.c.Name())
		}
		ulp, ok := res.Extra["max-ulp"]
		if ok != tt.want || ulp != 0 {
			t.Errorf("%s: max-ulp %v reported %v, want reported %v and 0", tt.c.Name(), ulp, ok, tt.want)
		}
	}
}

// TestGateModelFFTWindows: a windowed gate under an FFT model bounds each
// element by the whole image's norms, not its window's crop: an element
// moved by 0.9 of the FFT32 bound of the whole image passes under FFT32
// and fails under Direct; cpu-fft's own output passes under its FFT64.
func TestGateModelFFTWindows(t *testing.T) {
	c := Case{Variant: "cpu-fft", Width: 1200, Height: 400, Filter: "dense15", Channels: 3, Border: convolve.Reflect}
	p, err := c.Problem()
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewInput(p, 5)
	if err != nil {
		t.Fatal(err)
	}
	out := runVariant(t, c, in)
	m, mode, err := gateModel(p, in, out, convolve.FFT64)
	if err != nil {
		t.Fatal(err)
	}
	if mode != gateWindowed || !m.OK() || m.N == 0 {
		t.Fatalf("cpu-fft under fft64: mode %s, metrics %v; want a windowed gate that passes", mode, m)
	}
	terms, err := verify.Terms(p, in)
	if err != nil {
		t.Fatal(err)
	}
	x, y := p.Input.Width/2, p.Input.Height/2
	v := out.At(x, y, 0)
	out.Set(x, y, 0, v+0.9*convolve.FFTTolerance(terms[0], v, convolve.FFT32.FFTRoundoff()))
	if m, _, _ := gateModel(p, in, out, convolve.FFT32); !m.OK() {
		t.Errorf("moved by 0.9 of the whole image's fft32 bound: %v; want a pass under fft32", m)
	}
	if m, _, _ := gateModel(p, in, out, convolve.Direct); m.OK() || m.First.X != x || m.First.Y != y {
		t.Errorf("moved by 0.9 of the whole image's fft32 bound: %v; want a violation at (%d,%d) under direct", m, x, y)
	}
}

// TestGateModelWindowsBoundOfWhole: a windowed gate holds each compared
// element to the tolerance the whole image's reference gives it, bit for
// bit, under every model: the float32 value furthest from the reference
// within that tolerance passes, the next one fails.
func TestGateModelWindowsBoundOfWhole(t *testing.T) {
	c := Case{Variant: "cpu-naive", Width: 1500, Height: 300, Filter: "dense13", Channels: 2, Border: convolve.Mirror}
	p, err := c.Problem()
	if err != nil {
		t.Fatal(err)
	}
	if gateModeOf(p) != gateWindowed {
		t.Fatalf("%v: not a windowed gate", p)
	}
	in, err := NewInput(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	x, y, ch := p.Input.Width/2, p.Input.Height/2, 1 // in the centre window
	for _, m := range convolve.ErrorModels {
		ref, tol, err := verify.Reference(p, in, m)
		if err != nil {
			t.Fatal(err)
		}
		r, d := ref.At(x, y, ch), tol.At(x, y, ch)
		within := float32(r + d)
		if float64(within)-r > d {
			within = math.Nextafter32(within, float32(math.Inf(-1)))
		}
		beyond := math.Nextafter32(within, float32(math.Inf(1)))
		for _, tt := range []struct {
			v    float32
			want bool
		}{{within, true}, {beyond, false}} {
			ref.Set(x, y, ch, float64(tt.v))
			got, mode, err := gateModel(p, in, ref, m)
			if err != nil {
				t.Fatal(err)
			}
			if mode != gateWindowed || got.OK() != tt.want {
				t.Errorf("%v: ref %v + %v (of %v) at (%d,%d,%d): %s gate %v, want OK %v", m, r, float64(tt.v)-r, d, x, y, ch, mode, got, tt.want)
			}
		}
	}
}
