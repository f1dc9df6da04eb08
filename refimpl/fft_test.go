package refimpl_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// fftSuiteCases is the number of random cases per property of cpu-fft's
// run of the suite: its float64 reference and transforms make each case
// slower than cpu-fast's, and properties (./properties) runs it again.
const fftSuiteCases = 30

// TestFFTProperties runs convtest's property suite on cpu-fft, within its
// declared FFT64 error model.
func TestFFTProperties(t *testing.T) {
	v, err := convolve.Lookup("cpu-fft")
	if err != nil {
		t.Fatal(err)
	}
	if m := v.Describe().Caps.Accuracy; m != convolve.FFT64 {
		t.Fatalf("cpu-fft declares %v, want fft64", m)
	}
	convtest.TestVariantOptions(t, v, convtest.Options{N: fftSuiteCases})
}

// BenchmarkFFTCrossover times cpu-fft beside cpu-fast on a 1024x1024
// float32 image with dense K x K filters of random weights (cpu-fast's
// 2-D path) and the Reflect border, to show from which K the transforms,
// whose cost barely grows with K, beat the direct sums. Names are
// K=<k>/<variant>, so -bench 'FFTCrossover/K=31' picks one size.
func BenchmarkFFTCrossover(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	g := convolve.Geometry{Width: 1024, Height: 1024, Channels: 1, Type: convolve.Float32}
	in, err := convolve.NewImage(g)
	if err != nil {
		b.Fatal(err)
	}
	for i := range in.F32 {
		in.F32[i] = r.Float32()
	}
	for _, k := range []int{7, 15, 21, 31, 45, 63} {
		w := make([]float32, k*k)
		for i := range w {
			w[i] = r.Float32()*2 - 1
		}
		f, err := convolve.NewFilter(fmt.Sprintf("dense%d", k), k, k, w)
		if err != nil {
			b.Fatal(err)
		}
		p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: convolve.Reflect}
		for _, name := range []string{"cpu-fast", "cpu-fft"} {
			b.Run(fmt.Sprintf("K=%d/%s", k, name), func(b *testing.B) {
				v, err := convolve.Lookup(name)
				if err != nil {
					b.Fatal(err)
				}
				pl, err := convolve.PlanFor(v, p, convolve.Config{})
				if err != nil {
					b.Fatal(err)
				}
				defer pl.Close()
				out, err := p.NewOutput()
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if err := pl.Run(in, out); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
