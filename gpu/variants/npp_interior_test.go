package variants

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

// TestNPPInteriorCapabilities: npp-interior computes what npp computes
// and says in its summary what its time covers; it is refused what npp is
// refused without a device.
func TestNPPInteriorCapabilities(t *testing.T) {
	v, err := convolve.Lookup("npp-interior")
	if err != nil {
		t.Fatal(err)
	}
	npp, err := convolve.Lookup("npp")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Describe().Caps, npp.Describe().Caps; !reflect.DeepEqual(got, want) {
		t.Errorf("npp-interior declares %+v, npp %+v", got, want)
	}
	f, _ := convolve.Box(3)
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 8, Height: 8, Channels: 1, Type: convolve.Uint8}, Filter: f}
	var ce *convolve.CapabilityError
	if _, err := convolve.PlanFor(v, p, convolve.Config{}); !errors.As(err, &ce) {
		t.Errorf("uint8: err = %v, want a *convolve.CapabilityError", err)
	}
}

// TestNPPInteriorAgreement runs npp-interior over npp's cases and sizes
// against the reference, then checks Upload, TimeKernel, Download.
func TestNPPInteriorAgreement(t *testing.T) {
	leakCheck := gputest.LeakCheck(t, nppOrSkip(t))
	v, err := convolve.Lookup("npp-interior")
	if err != nil {
		t.Fatal(err)
	}
	agreeAll(t, "npp-interior", v, convolve.Config{}, nppCases(), rand.New(rand.NewPCG(23, 6)), imagetest.RandomFilter)
	r := rand.New(rand.NewPCG(2, 3))
	p := kernelCase{kw: 7, kh: 5, border: convolve.Wrap, mode: convolve.Convolve, typ: convolve.Float32, channels: 1}.
		problem(convolve.Geometry{Width: 123, Height: 45}, imagetest.RandomFilter(r, 7, 5))
	devicePlanAgrees(t, v, p, convolve.Config{}, imagetest.Random(r, p.Input, imagetest.NonZero))
	leakCheck()
}

// TestNPPInteriorTimesFilterAlone: on a 2048x2048 image, npp-interior's
// TimeKernel and TimeKernelGraph leave out the padding pass and the copy
// that npp's include, so they take less time than npp's, and yet Download
// after them, with no Run before, gives the reference output of the
// uploaded image.
func TestNPPInteriorTimesFilterAlone(t *testing.T) {
	nppOrSkip(t)
	r := rand.New(rand.NewPCG(7, 7))
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 2048, Height: 2048, Channels: 1, Type: convolve.Float32},
		Filter: imagetest.RandomFilter(r, 5, 5), Border: convolve.Reflect}
	in := imagetest.Random(r, p.Input, imagetest.NonZero)
	ref, tol, err := refimpl.Expect(p, in)
	if err != nil {
		t.Fatal(err)
	}
	best := map[string]time.Duration{}
	for _, name := range []string{"npp", "npp-interior"} {
		v, err := convolve.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := convolve.PlanFor(v, p, convolve.Config{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dp := plan.(convolve.DevicePlan)
		if err := dp.Upload(in); err != nil {
			t.Fatal(err)
		}
		for timing, run := range map[string]func(int) (time.Duration, error){"TimeKernel": dp.TimeKernel, "TimeKernelGraph": dp.TimeKernelGraph} {
			if _, err := run(1); err != nil { // warm-up, graph capture
				t.Fatalf("%s: %s: %v", name, timing, err)
			}
			for range 3 {
				d, err := run(20)
				if err != nil {
					t.Fatalf("%s: %s: %v", name, timing, err)
				}
				if b, ok := best[name+" "+timing]; !ok || d < b {
					best[name+" "+timing] = d
				}
			}
			out := poisoned(t, p)
			if err := dp.Download(out); err != nil {
				t.Fatal(err)
			}
			if m, err := convolve.Compare(out, ref, tol); err != nil || !m.OK() {
				t.Errorf("%s: output after Upload, %s, Download: %v %v", name, timing, m, err)
			}
		}
		plan.Close()
	}
	for _, timing := range []string{"TimeKernel", "TimeKernelGraph"} {
		whole, alone := best["npp "+timing], best["npp-interior "+timing]
		t.Logf("%s of 20 runs, best of 3: npp %v, npp-interior %v (%.2f of npp's)", timing, whole, alone, float64(alone)/float64(whole))
		if alone >= whole {
			t.Errorf("%s: npp-interior took %v, npp %v: the filter alone should take less than the pipeline", timing, alone, whole)
		}
	}
}
