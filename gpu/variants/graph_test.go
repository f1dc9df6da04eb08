package variants

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/internal/imagetest"
	"github.com/convbench/convbench/refimpl"
)

// graphProblems are tried in order for each GPU variant; the first its
// capabilities accept is the one it is tested on. The filter is rank 1 so
// that the separable variants accept it.
func graphProblems(r *rand.Rand) []convolve.Problem {
	f := imagetest.SeparableFilter(r, 5, 5)
	g := func(c int, t convolve.ElemType) convolve.Geometry {
		return convolve.Geometry{Width: 200, Height: 130, Channels: c, Type: t, Layout: convolve.Interleaved}
	}
	return []convolve.Problem{
		{Op: convolve.Filter2D, Input: g(3, convolve.Uint8), Filter: f, Border: convolve.Mirror},
		{Op: convolve.Filter2D, Input: g(1, convolve.Float32), Filter: f, Border: convolve.Mirror},
		{Op: convolve.Filter2D, Input: g(1, convolve.Float32), Filter: f, Border: convolve.Zero},
		{Op: convolve.SobelMagnitude, Input: g(1, convolve.Uint8), Border: convolve.Zero},
		{Op: convolve.RGBToYUV, Input: g(3, convolve.Uint8), Border: convolve.Zero},
	}
}

// TestTimeKernelGraph checks, for every registered GPU variant, that the
// graph-replayed timing path runs the device work: on a fresh plan,
// Upload, TimeKernelGraph over a full graph of GraphBatch runs and a
// remainder, and Download give the reference output, with no Run before
// that could have left it in place, within the tolerance of the
// variant's declared error model. A variant whose work cannot be
// captured fails here; one whose own library (NPP, cuFFT) is missing is
// passed over with the reason.
func TestTimeKernelGraph(t *testing.T) {
	d := gputest.DeviceNoLeakCheck(t)
	leakCheck := gputest.LeakCheck(t, d)
	r := rand.New(rand.NewPCG(5, 8))
	probs := graphProblems(r)
	tested := 0
	for _, v := range convolve.Variants() {
		desc := v.Describe()
		if !desc.Caps.GPU {
			continue
		}
		var p convolve.Problem
		found := false
		for _, q := range probs {
			if desc.Caps.Check(q) == nil {
				p, found = q, true
				break
			}
		}
		if !found {
			t.Errorf("%s: accepts none of the graph test's problems", desc.Name)
			continue
		}
		plan, err := convolve.PlanFor(v, p, convolve.Config{})
		if ue := new(cudabind.UnavailableError); errors.As(err, &ue) {
			t.Logf("%s: skipped: %v", desc.Name, err) // a library of its own (NPP, cuFFT, cuDNN) is missing
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", desc.Name, p, err)
			continue
		}
		dp, ok := plan.(convolve.DevicePlan)
		if !ok {
			t.Errorf("%s: plan %T is not a convolve.DevicePlan", desc.Name, plan)
			plan.Close()
			continue
		}
		in := imagetest.Random(r, p.Input, imagetest.NonZero)
		out := poisoned(t, p)
		if err := dp.Upload(in); err != nil {
			t.Errorf("%s: Upload: %v", desc.Name, err)
		} else if dt, err := dp.TimeKernelGraph(GraphBatch + 3); err != nil || dt <= 0 {
			t.Errorf("%s: TimeKernelGraph(%d) = %v, %v; want a positive time", desc.Name, GraphBatch+3, dt, err)
		} else if err := dp.Download(out); err != nil {
			t.Errorf("%s: Download: %v", desc.Name, err)
		} else {
			ref, tol, err := refimpl.ExpectModel(p, in, desc.Caps.Accuracy)
			if err != nil {
				t.Fatalf("Expect(%v): %v", p, err)
			}
			if m, err := convolve.Compare(out, ref, tol); err != nil || !m.OK() {
				t.Errorf("%s %v: output after TimeKernelGraph: %v %v", desc.Name, p, m, err)
			}
			tested++
		}
		if _, err := dp.TimeKernelGraph(0); err == nil {
			t.Errorf("%s: TimeKernelGraph(0) succeeded", desc.Name)
		}
		if err := dp.Close(); err != nil {
			t.Errorf("%s: Close: %v", desc.Name, err)
		}
		if _, err := dp.TimeKernelGraph(1); err == nil {
			t.Errorf("%s: TimeKernelGraph after Close succeeded", desc.Name)
		}
	}
	t.Logf("%d GPU variants ran their work from CUDA graphs and matched the reference", tested)
	leakCheck()
}
