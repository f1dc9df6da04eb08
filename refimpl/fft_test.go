package refimpl_test

import (
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
