package convtest

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/verify"
	"github.com/leanovate/gopter"
)

// fftAccurate is a Filter2D variant whose every output is the exact
// result moved by half the FFT32 bound, up or down by position: within the
// FFT32 model, and (the bound spreading the whole image's norms over every
// output) far outside the Direct one. It declares the model it is given
// and only exists inside this test.
type fftAccurate struct{ model convolve.ErrorModel }

func (v fftAccurate) Describe() convolve.Description {
	return convolve.Description{
		Name:    "fft-accurate-" + v.model.String(),
		Summary: "the reference moved by half the FFT32 bound (test only)",
		Caps: convolve.Capabilities{
			Ops:      []convolve.Operation{convolve.Filter2D},
			Accuracy: v.model,
		},
	}
}

func (v fftAccurate) Plan(p convolve.Problem, _ convolve.Config) (convolve.Plan, error) {
	return &fftAccuratePlan{p: p}, nil
}

type fftAccuratePlan struct{ p convolve.Problem }

func (pl *fftAccuratePlan) Run(in, out *convolve.Image) error {
	if err := pl.p.CheckIO(in, out); err != nil {
		return err
	}
	ref, tol, err := verify.Reference(pl.p, in, convolve.FFT32)
	if err != nil {
		return err
	}
	for c := 0; c < ref.Channels; c++ {
		for y := 0; y < ref.Height; y++ {
			for x := 0; x < ref.Width; x++ {
				r, t := ref.At(x, y, c), tol.At(x, y, c)
				if (x+y)%2 == 1 {
					t = -t
				}
				if t-t == 0 { // finite
					r += t / 2
				}
				out.Set(x, y, c, r)
			}
		}
	}
	return nil
}

func (pl *fftAccuratePlan) Close() error { return nil }

// TestDeclaredModelDecides: the agreement property passes the variant
// when it declares FFT32 and catches it when it declares Direct.
func TestDeclaredModelDecides(t *testing.T) {
	seed := Options{}.resolve().Seed
	agreement := properties[0]
	for _, tt := range []struct {
		model  convolve.ErrorModel
		passes bool
	}{
		{convolve.FFT32, true},
		{convolve.Direct, false},
	} {
		v := fftAccurate{tt.model}
		d := v.Describe()
		e := &env{name: d.Name, variant: v, desc: d}
		r := checkProperty(e, agreement, seed, 40, 0, -1, nil)
		if r.result.Passed() != tt.passes || (!tt.passes && r.result.Status != gopter.TestFailed) {
			t.Errorf("declaring %v: agreement status %v after %d cases, want passed=%v (labels %v)",
				tt.model, r.result.Status, r.result.Succeeded, tt.passes, r.result.Labels)
		}
	}
}
