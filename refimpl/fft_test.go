package refimpl_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
	"github.com/convbench/convbench/refimpl"
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
	for _, k := range []int{7, 15, 21, 31, 45, 55, 63, 75} {
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

// TestFFTTiles checks cpu-fft against ExpectModel(FFT64) on images wider
// and taller than one tile (tiles are at most 64 points for filters up to
// 16 wide), so that outputs come from several tiles and the tiles at the
// right and bottom edges are partly past the bordered image, for every
// border, element type and layout.
func TestFFTTiles(t *testing.T) {
	v, err := convolve.Lookup("cpu-fft")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	sizes := []struct{ w, h, kw, kh int }{{150, 90, 5, 3}, {97, 131, 9, 9}, {200, 7, 15, 1}}
	for _, sz := range sizes {
		for _, b := range convolve.Borders {
			for _, typ := range convolve.ElemTypes {
				for _, layout := range convolve.Layouts {
					g := convolve.Geometry{Width: sz.w, Height: sz.h, Channels: 3, Type: typ, Layout: layout}
					in, err := convolve.NewImage(g)
					if err != nil {
						t.Fatal(err)
					}
					for c := 0; c < 3; c++ {
						for y := 0; y < sz.h; y++ {
							for x := 0; x < sz.w; x++ {
								in.Set(x, y, c, float64(r.IntN(200))-50)
							}
						}
					}
					w := make([]float32, sz.kw*sz.kh)
					for i := range w {
						w[i] = r.Float32()*2 - 1
					}
					f, err := convolve.NewFilter("random", sz.kw, sz.kh, w)
					if err != nil {
						t.Fatal(err)
					}
					p := convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: f, Border: b, Mode: convolve.Convolve}
					if typ == convolve.Uint8 {
						for i := range in.U8 {
							in.U8[i] = uint8(r.IntN(256))
						}
					}
					ref, tol, err := refimpl.ExpectModel(p, in, convolve.FFT64)
					if err != nil {
						t.Fatal(err)
					}
					pl, err := convolve.PlanFor(v, p, convolve.Config{})
					if err != nil {
						t.Fatal(err)
					}
					out, _ := p.NewOutput()
					out.Fill(math.NaN())
					if err := pl.Run(in, out); err != nil {
						t.Fatal(err)
					}
					pl.Close()
					m, err := convolve.Compare(out, ref, tol)
					if err != nil || !m.OK() {
						t.Errorf("%v: %v %v", p, m, err)
					}
				}
			}
		}
	}
}
