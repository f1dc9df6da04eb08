package benchmarks_test

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// envStandIns makes TestUserKernels prove two CPU stand-ins for user
// kernels, a correct one and a broken one, instead of the -kernel files:
// TestProveKernelsVerdicts runs it so in a child process, to check the
// proof before timing on real output of the suite without a GPU.
const envStandIns = "CONVBENCH_PROVE_CPU_STAND_INS"

// TestUserKernels proves every kernel the -kernel flags added with the
// whole property suite, one subtest per variant. The benchmarks run it in
// a child process (benchmarks.ProveKernels) before they time a user
// kernel; on its own it is the way to prove a kernel without timing it:
//
//	go test ./benchmarks -run TestUserKernels -args -kernel $PWD/my.cu
func TestUserKernels(t *testing.T) {
	if os.Getenv(envStandIns) != "" {
		naive, err := convolve.Lookup("cpu-naive")
		if err != nil {
			t.Fatal(err)
		}
		t.Run("user-cpu", func(t *testing.T) { convtest.TestVariant(t, renamed{naive, "user-cpu"}) })
		t.Run("user-broken", func(t *testing.T) { convtest.TestVariant(t, broken{renamed{naive, "user-broken"}}) })
		for _, f := range []faulty{{renamed{naive, "user-sticky"}, "sticky"}, {renamed{naive, "user-hang"}, "hang"}, {renamed{naive, "user-dies"}, "dies"},
			{renamed{naive, "user-sticky-big"}, "sticky-big"}} {
			t.Run(f.name, func(t *testing.T) { convtest.TestVariant(t, f) })
		}
		return
	}
	ks := benchmarks.FlagKernels()
	if len(ks) == 0 {
		t.Skip("no -kernel flag given: go test ./benchmarks -run TestUserKernels -args -kernel $PWD/my.cu proves my.cu")
	}
	for _, k := range ks {
		t.Run(k.Spec.Name, func(t *testing.T) {
			v, err := convolve.Lookup(k.Spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			convtest.TestVariantOptions(t, v, convtest.Options{Rerun: "go test ./benchmarks -" + benchmarks.KernelFlagName + "=" + k.Path})
		})
	}
}

// standInBinary is this test binary, set up so that the child runs
// ProveKernels starts register the stand-in user kernels.
func standInBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary: " + err.Error())
	}
	t.Setenv(envStandIns, "1")
	return exe
}

// ProveKernels reads the suite's verdicts from a real run: a correct
// variant passes and is timed; a broken one is refused, with the
// properties it failed and the suite's shrunk case.
func TestProveKernelsVerdicts(t *testing.T) {
	exe := standInBinary(t)
	var log bytes.Buffer
	proofs := benchmarks.ProveKernels(exe, []string{"user-cpu", "user-broken"}, []string{"-convtest.n=10"}, 0, &log)
	good, bad := proofs[0], proofs[1]
	if !good.Proven() || good.Refusal() != "" {
		t.Errorf("the correct stand-in: %+v; log:\n%s", good, log.String())
	}
	if bad.Proven() || bad.Verdict != "fail" || len(bad.Failed) == 0 || bad.Failed[0] != "agreement" ||
		!strings.HasPrefix(bad.Refusal(), "failed the property suite (property agreement") ||
		!strings.Contains(bad.Detail, "variant=user-broken property=agreement FAILED") || !strings.Contains(bad.Detail, "shrunk case") {
		t.Errorf("the broken stand-in: %+v; log:\n%s", bad, log.String())
	}
	if len(bad.Failed) != 1 || bad.Fault != "" || !strings.Contains(log.String(), "user-broken: stopped the property suite at its first failed property, agreement") {
		t.Errorf("the broken stand-in: failed %v, fault %q: want the run stopped at agreement, no fault; log:\n%s", bad.Failed, bad.Fault, log.String())
	}
	t.Logf("refusal of the broken stand-in: %s", bad.Refusal())
}

// A kernel that faults fails alone, each in a run of the suite of its
// own: a sticky CUDA error is a crash, a run that never ends is killed at
// the time limit and is a hang, a run that dies is a crash; each refusal
// says so and ends with the command that reruns the suite on the kernel.
func TestProveKernelsFaults(t *testing.T) {
	exe := standInBinary(t)
	var log bytes.Buffer
	const limit = 4 * time.Second
	start := time.Now()
	proofs := benchmarks.ProveKernels(exe, []string{"user-sticky", "user-hang", "user-dies"}, []string{"-convtest.n=10"}, limit, &log)
	if d := time.Since(start); d > limit+20*time.Second {
		t.Errorf("took %v: want the hang killed at %v", d, limit)
	}
	for i, want := range []struct {
		fault, verdict string
		says           []string
	}{
		{benchmarks.FaultCrash, "fail", []string{"crash: failed the property suite (property agreement): ", "CUDA_ERROR_ILLEGAL_ADDRESS"}},
		{benchmarks.FaultHang, "", []string{"hang: the property suite was still running after 4s (-prove-timeout) in property agreement: killed it"}},
		{benchmarks.FaultCrash, "", []string{"crash: the run of the property suite died (exit status 3) in property agreement"}},
	} {
		p := proofs[i]
		r := p.Refusal()
		if p.Proven() || p.Fault != want.fault || p.Verdict != want.verdict || !strings.Contains(r, "; reproduce alone: "+exe+" '-test.run=^TestUserKernels$/^(?:"+p.Variant+")$' -test.v") {
			t.Errorf("%s: fault %q verdict %q refusal %q: want fault %q, verdict %q and the command", p.Variant, p.Fault, p.Verdict, r, want.fault, want.verdict)
		}
		for _, s := range want.says {
			if !strings.Contains(r, s) {
				t.Errorf("%s: refusal %q: want it to say %q", p.Variant, r, s)
			}
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", log.String())
	}
}

// renamed is a variant under another name.
type renamed struct {
	convolve.Variant
	name string
}

func (r renamed) Describe() convolve.Description {
	d := r.Variant.Describe()
	d.Name = r.name
	return d
}

// faulty is a variant whose runs fault as kind says: "sticky" fails
// with a sticky CUDA error, "hang" never returns, "dies" ends the
// process.
type faulty struct {
	renamed
	kind string
}

func (f faulty) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	pl, err := f.renamed.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return faultyPlan{pl, f.kind}, nil
}

type faultyPlan struct {
	convolve.Plan
	kind string
}

func (fp faultyPlan) Run(in, out *convolve.Image) error {
	switch fp.kind {
	case "sticky":
		return errors.New("cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)")
	case "hang":
		time.Sleep(time.Hour)
	case "dies":
		os.Exit(3)
	case "sticky-big":
		if in.Width*in.Height > stickyBigPixels {
			return stickyError{}
		}
	}
	return fp.Plan.Run(in, out)
}

// stickyBigPixels is the largest image the "sticky-big" stand-in runs
// correctly; on larger ones it fails with a sticky error.
const stickyBigPixels = 16

// stickyError is a sticky device error, as the CUDA bindings' illegal
// address is: convtest checks the shrink candidates after it in child
// processes.
type stickyError struct{}

func (stickyError) Error() string {
	return "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"
}
func (stickyError) Sticky() bool { return true }

// A crash is shrunk through child processes in a proof as the sweep runs
// it: the stand-in that faults (a sticky error) on images of more than
// stickyBigPixels pixels is refused as a crash, its case shrunk by
// children to one just past that size.
func TestProveKernelsShrinksCrash(t *testing.T) {
	exe := standInBinary(t)
	var log bytes.Buffer
	p := benchmarks.ProveKernels(exe, []string{"user-sticky-big"}, []string{"-convtest.n=20"}, time.Minute, &log)[0]
	if p.Fault != benchmarks.FaultCrash || p.Verdict != "fail" {
		t.Fatalf("fault %q verdict %q, want a crash that failed; log:\n%s", p.Fault, p.Verdict, log.String())
	}
	m := regexp.MustCompile(`shrunk case \(([0-9]+) shrinks, ([0-9]+) checked in child processes after a sticky device error[,)]`).FindStringSubmatch(p.Detail)
	if m == nil || m[1] == "0" {
		t.Fatalf("refusal %q: want the case shrunk by child processes; log:\n%s", p.Refusal(), log.String())
	}
	if strings.Contains(p.Detail, "undecided") || strings.Contains(p.Detail, "no verdict") {
		t.Errorf("refusal %q: a child gave no verdict", p.Refusal())
	}
	if !strings.Contains(p.Detail, "CUDA_ERROR_ILLEGAL_ADDRESS") {
		t.Errorf("refusal %q lacks the sticky error", p.Refusal())
	}
	t.Logf("refusal: %s", p.Refusal())
}

// broken is a variant whose output is off by one at pixel (0, 0).
type broken struct{ renamed }

func (b broken) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	pl, err := b.renamed.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return brokenPlan{pl}, nil
}

type brokenPlan struct{ convolve.Plan }

func (bp brokenPlan) Run(in, out *convolve.Image) error {
	if err := bp.Plan.Run(in, out); err != nil {
		return err
	}
	if out != nil && out.Width > 0 && out.Height > 0 && out.Channels > 0 {
		out.Set(0, 0, 0, out.At(0, 0, 0)+1)
	}
	return nil
}
