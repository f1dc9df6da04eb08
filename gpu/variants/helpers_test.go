package variants

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/imagetest"
)

// poisoned returns an output image for p filled with NaN.
func poisoned(t testing.TB, p convolve.Problem) *convolve.Image {
	t.Helper()
	out, err := p.NewOutput()
	if err != nil {
		t.Fatal(err)
	}
	out.Fill(math.NaN())
	return out
}

// agree runs plan on in and checks the output against refimpl.Expect.
func agree(t *testing.T, name string, plan convolve.Plan, p convolve.Problem, in *convolve.Image) (convolve.Metrics, bool) {
	t.Helper()
	out := poisoned(t, p)
	if err := plan.Run(in, out); err != nil {
		t.Errorf("%s %v: Run: %v", name, p, err)
		return convolve.Metrics{}, false
	}
	m := compareToReference(t, name, p, in, out)
	return m, m.OK()
}

// agreeRun is one configuration and kernel case of an agreement sweep.
type agreeRun struct {
	cfg convolve.Config
	kc  kernelCase
}

// agreeOverSizes plans v for every run on the geometries of regtileSizes
// that sizesFor gives it (odd widths, padded strides, sizes that reach
// each tile fill), with a filter from filter, and checks each plan's
// output against the reference; it stops after ten failures.
func agreeOverSizes(t *testing.T, v convolve.Variant, name string, runs []agreeRun, r *rand.Rand, filter func(*rand.Rand, int, int) *convolve.Filter) {
	t.Helper()
	// Compile every specialization on all cores first; the plans below,
	// one at a time, find their modules in the cache.
	var specs []WarmSpec
	wr := rand.New(rand.NewPCG(0, 0))
	for i, ru := range runs {
		c := ru.cfg
		c.Block = ru.kc.block
		f := filter(wr, ru.kc.kw, ru.kc.kh)
		for _, g := range sizesFor(i, regtileSizes) {
			p := ru.kc.problem(g, f)
			if g.Stride != 0 {
				p.Input.Stride = g.Stride * ru.kc.channels
			}
			specs = append(specs, WarmSpec{Variant: v, Problem: p, Config: c})
		}
	}
	warmAll(t, specs)
	logDepth(t, len(specs), len(runs)*len(regtileSizes))
	failures := 0
	for i, ru := range runs {
		f := filter(r, ru.kc.kw, ru.kc.kh)
		c := ru.cfg
		c.Block = ru.kc.block
		for _, g := range sizesFor(i, regtileSizes) {
			p := ru.kc.problem(g, f)
			if g.Stride != 0 {
				p.Input.Stride = g.Stride * ru.kc.channels
			}
			plan, err := convolve.PlanFor(v, p, c)
			if err != nil {
				t.Errorf("%s %v %v: Plan: %v", name, c, p, err)
				failures++
				continue
			}
			if _, ok := agree(t, name+" "+c.String(), plan, p, imagetest.Random(r, p.Input, imagetest.NonZero)); !ok {
				failures++
			}
			if err := plan.Close(); err != nil {
				t.Errorf("%s %v: Close: %v", name, p, err)
			}
			if failures > 10 {
				t.Fatalf("too many failures")
			}
		}
	}
}

// longRun reports whether CONVBENCH_TEST_LONG=1 asks for the full depth
// of the agreement suites (make test-long).
var longRun = os.Getenv("CONVBENCH_TEST_LONG") == "1"

// sizesFor returns the image sizes the i-th case of an agreement suite is
// checked on: every size of all in a long run (longRun); otherwise two,
// all[i mod n] and all[(i+n/2) mod n], so that consecutive cases rotate
// through every size and each size still meets cases of every kind.
func sizesFor(i int, all []convolve.Geometry) []convolve.Geometry {
	n := len(all)
	if longRun || n <= 2 {
		return all
	}
	return []convolve.Geometry{all[i%n], all[(i+n/2)%n]}
}

// logDepth records how many (case, size) pairs of a suite this run checks
// out of all of them.
func logDepth(t *testing.T, checked, all int) {
	t.Helper()
	if checked < all {
		t.Logf("checking %d of %d (case, size) pairs; CONVBENCH_TEST_LONG=1 checks all", checked, all)
	}
}

// warmAll compiles the kernels of specs (Warm, one spec a call) on
// compileSlots, shared with every suite TestAgreementSuites runs at once
// and with the compile checks, so that the cores stay busy while any
// suite still compiles, and the plans a test then makes one at a time
// find their modules in the cache.
func warmAll(t *testing.T, specs []WarmSpec) {
	t.Helper()
	start := time.Now()
	var planned, failed atomic.Int64
	errs := make([]error, len(specs))
	onCompileSlots(len(specs), func(i int) {
		st, err := Warm(specs[i:i+1], 1, nil)
		errs[i] = err
		planned.Add(int64(st.Planned))
		failed.Add(int64(st.Failed))
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	t.Logf("precompiled %d specializations (%d refused) on up to %d compiles at once in %v", planned.Load(), failed.Load(), cap(compileSlots), time.Since(start).Round(time.Millisecond))
}

// compileSlots bounds the NVRTC compiles this package's tests run at
// once, over every test and suite: one a core.
var compileSlots = make(chan struct{}, runtime.NumCPU())

// onCompileSlots runs job(0) ... job(n-1), each on its own goroutine
// holding one of compileSlots while it runs, and waits for them all.
func onCompileSlots(n int, job func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			compileSlots <- struct{}{}
			defer func() { <-compileSlots }()
			job(i)
		})
	}
	wg.Wait()
}

// A compileCheck is one compilation a test expects to succeed with a
// cubin.
type compileCheck struct {
	src  cudabind.Source
	opts cudabind.CompileOptions // its Arch is set to compileArch
	what string                  // names the case in a failure
}

// checkCompiles compiles every check (cudabind.CompileOnly, for
// compileArch) on compileSlots and reports each that fails or yields no
// cubin.
func checkCompiles(t *testing.T, checks []compileCheck) {
	t.Helper()
	onCompileSlots(len(checks), func(i int) {
		c := checks[i]
		c.opts.Arch = compileArch
		cc, err := cudabind.CompileOnly(c.src, c.opts)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.what, err)
		case len(cc.CUBIN()) == 0:
			t.Errorf("%s: no cubin", c.what)
		}
	})
}
