package convtest

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	_ "github.com/convbench/convbench/refimpl"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// newEnv prepares the checks of variant v; it skips the test when a GPU
// variant's first plan finds its hardware absent (an UnavailableError).
func newEnv(t *testing.T, v convolve.Variant, o Options) *env {
	d := v.Describe()
	e := &env{name: d.Name, variant: v, desc: d, rule: newRule(v), poolSize: o.Pool}
	seed := o.Seed
	if !d.Caps.GPU {
		return e
	}
	e.pool = variantPool(e, derivedSeed(seed, d.Name, "pool"))
	if len(e.pool) == 0 {
		t.Fatalf("%s: no specialization within its capabilities %+v", d.Name, d.Caps)
	}
	probe := e.pool[0]
	probe.W, probe.H = 8, 8
	p, err := probe.Problem()
	if err != nil {
		t.Fatal(err)
	}
	unlock := e.shared()
	pl, err := e.plan(p, probe.Config())
	if err == nil {
		pl.Close()
	}
	unlock()
	if reason, ok := unavailable(err); ok {
		t.Skipf("%s needs a GPU: %s", d.Name, reason)
	}
	var specs []string
	for _, c := range e.pool {
		specs = append(specs, specString(c))
	}
	t.Logf("%s specializations for this seed: %s", d.Name, strings.Join(specs, "; "))
	return e
}

// specString shows the fields of a case a GPU kernel is compiled for.
func specString(c testCase) string {
	s := fmt.Sprintf("%v c=%d %v %v K=%dx%d %v", c.Op, c.Channels, c.Type, c.Layout, c.KW, c.KH, c.Border)
	if c.Block != (convolve.Block{}) {
		s += " block=" + c.Block.String()
	}
	if c.NoFMA {
		s += " fmad=false"
	}
	if c.Fast {
		s += " fast-math"
	}
	if c.Tune != "" {
		s += " " + c.Tune
	}
	return s
}

// propertyDomain is the domain property pr draws from for variant e.
func propertyDomain(e *env, pr *property) *domain {
	d := newDomain(e.desc.Caps, pr, e.pool)
	d.rule = e.rule
	if pr.acceptFor != nil {
		d.accept = pr.acceptFor(e)
	}
	return d
}

// propertyRun is the outcome of one property on one variant.
type propertyRun struct {
	passed, refused int
	firstRefusal    error
	result          *gopter.TestResult
	seed            int64
	// shrinkCut is set when shrinking stopped at its time limit.
	shrinkCut time.Duration
	// checked counts the cases checked, refused ones included; timeCut
	// is set when the time bound left the rest of the n cases unchecked
	// (passed is then checked).
	checked int
	timeCut bool
	// sticky is set once a case failed with a sticky device error: this
	// process's device is unusable, so later cases (shrink candidates)
	// are checked in child processes (isolated counts them), or, with no
	// child checker, shrinking stops at the case that failed.
	sticky   bool
	isolated int
	// undecided is the first child process that gave no verdict: the
	// shrinking stops there, at the last case that failed.
	undecided error
	// released is set once the variant, a DeviceReleaser, was asked to
	// release its device before the first child; releaseErr is its error.
	released   bool
	releaseErr error
}

// checkProperty runs property pr on e with n random cases from seed and
// returns gopter's result, the shrunk failing case included. Shrinking
// stops shrinkTime after the first failure (never, when shrinkTime <= 0):
// later candidates count as passing unchecked, so the last failing case
// stands, and the shrinker proposes no more. After a sticky device error
// the remaining candidates are checked by child (in a fresh process each),
// or, when child is nil, shrinking stops there.
func checkProperty(e *env, pr *property, seed int64, n int, shrinkTime, bound time.Duration, child caseChecker) *propertyRun {
	d := propertyDomain(e, pr)
	r := &propertyRun{seed: derivedSeed(seed, e.name, pr.name)}
	var deadline time.Time
	stopped := func() bool {
		if r.sticky && (child == nil || r.undecided != nil) {
			return true
		}
		if shrinkTime <= 0 || deadline.IsZero() || time.Now().Before(deadline) {
			return false
		}
		r.shrinkCut = shrinkTime
		return true
	}
	d.stopShrink = stopped
	params := gopter.DefaultTestParametersWithSeed(r.seed)
	params.MinSuccessfulTests = n
	params.MaxShrinkCount = 300
	var refused atomic.Int64
	start := time.Now()
	condition := func(c testCase) *gopter.PropResult {
		if stopped() {
			// Only shrink candidates are checked after a failure; one
			// left unchecked counts as passing, so the shrinker keeps
			// the last case that failed (gopter takes any result but
			// true, undecided included, as a smaller failure).
			return &gopter.PropResult{Status: gopter.PropTrue}
		}
		if deadline.IsZero() && bound > 0 && r.checked >= min(n, MinCases) && (r.timeCut || time.Since(start) > bound) {
			// Past the time bound before any failure: the remaining
			// cases are drawn (descriptors only) but not checked.
			r.timeCut = true
			return &gopter.PropResult{Status: gopter.PropTrue}
		}
		r.checked++
		var err error
		if r.sticky {
			if !r.released {
				r.released = true
				if dr, ok := e.variant.(DeviceReleaser); ok {
					r.releaseErr = dr.ReleaseDevice()
				}
			}
			r.isolated++
			limit := time.Duration(0)
			if shrinkTime > 0 {
				limit = time.Until(deadline)
			}
			err = child(c, limit)
			var nv *noVerdictError
			if errors.As(err, &nv) {
				// Undecided: counts as passing, so the last case that
				// failed stands with its own failure, and no more
				// children are started.
				r.undecided = err
				return &gopter.PropResult{Status: gopter.PropTrue}
			}
		} else {
			lock := e.shared
			if pr.countsAllocations {
				lock = e.exclusive
			}
			unlock := lock()
			err = safely(func() error { return pr.check(e, c) })
			unlock()
			r.sticky = isSticky(err)
		}
		var rf *refusedError
		switch {
		case err == nil:
			return &gopter.PropResult{Status: gopter.PropTrue}
		case errors.As(err, &rf):
			// A refusal passes (so shrinking never settles on one) but is
			// counted: a variant refusing most cases fails below.
			if refused.Add(1) == 1 {
				r.firstRefusal = err
			}
			return &gopter.PropResult{Status: gopter.PropTrue}
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(shrinkTime)
		}
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: []string{err.Error()}}
	}
	r.result = prop.ForAll(condition, d.gen()).Check(params)
	r.refused = int(refused.Load())
	r.passed = r.result.Succeeded
	if r.timeCut {
		r.passed = r.checked
	}
	return r
}

// report logs or fails according to the run of property pr on variant e.
func (r *propertyRun) report(t *testing.T, e *env, pr *property, o Options) {
	t.Helper()
	res := r.result
	cmd := o.reproduceCommand(t.Name())
	switch {
	case res.Status == gopter.TestFailed && len(res.Args) > 0:
		a := res.Args[0]
		cut := ""
		if r.shrinkCut > 0 {
			cut = fmt.Sprintf(", stopped at the %v limit", r.shrinkCut)
		}
		if r.sticky {
			cut += fmt.Sprintf(", %d checked in child processes after a sticky device error", r.isolated)
		}
		if r.undecided != nil {
			cut += fmt.Sprintf(", stopped at an undecided candidate: %v", r.undecided)
		}
		if r.releaseErr != nil {
			cut += fmt.Sprintf(", releasing the device first failed: %v", r.releaseErr)
		}
		t.Errorf("variant=%s property=%s FAILED after %d passing cases\n"+
			"  shrunk case (%d shrinks%s): %s\n"+
			"  original case:            %s\n"+
			"  failure: %s\n"+
			"  seed: -%s.seed=%d (property stream %d)\n"+
			"  reproduce: %s\n"+
			"  rerun the shrunk case alone: %s",
			e.name, pr.name, res.Succeeded, a.Shrinks, cut, a.ArgFormatted, a.OrigArgFormatted,
			strings.Join(res.Labels, "; "), o.FlagPrefix, o.Seed, r.seed, cmd, o.caseCommand(t.Name(), a.Arg.(testCase)))
	case res.Status == gopter.TestExhausted:
		t.Errorf("variant=%s property=%s: only %d cases could be drawn within the capabilities (%d draws failed)\n  reproduce: %s",
			e.name, pr.name, res.Succeeded, res.Discarded, cmd)
	case !res.Passed():
		t.Errorf("variant=%s property=%s: %v: %v\n%s\n  reproduce: %s", e.name, pr.name, res.Status, res.Error, res.ErrorStack, cmd)
	case r.refused*2 > r.passed:
		t.Errorf("variant=%s property=%s: refused %d of %d cases at plan time; first: %v\n  reproduce: %s",
			e.name, pr.name, r.refused, r.passed, r.firstRefusal, cmd)
	default:
		if r.refused > 0 {
			t.Logf("%d of %d cases refused at plan time; first: %v", r.refused, r.passed, r.firstRefusal)
		}
		if r.timeCut {
			t.Logf("checked %d of %d random cases within the %v bound (-%s.time=0 checks all)", r.checked, o.N, o.Time, o.FlagPrefix)
		}
	}
}

// checkOneCase checks the case o.Case names, without shrinking, and
// returns 1 when it ran.
func checkOneCase(t *testing.T, e *env, pr *property, o Options) int {
	c, err := parseCase(o.Case)
	if err != nil {
		t.Fatalf("-%s.case: %v", o.FlagPrefix, err)
	}
	d := propertyDomain(e, pr)
	d.maxSide, d.budget = 1<<30, 1<<62
	if d.fix != nil {
		c = d.fix(d, c)
	}
	if !d.valid(c) {
		t.Skipf("case %v is outside the domain of %s for %s", c, pr.name, e.name)
	}
	err = safely(func() error { return pr.check(e, c) })
	var rf *refusedError
	switch {
	case errors.As(err, &rf):
		t.Skipf("case %v: %v", c, err)
	case err != nil:
		t.Errorf("variant=%s property=%s case %v:\n  failure: %v", e.name, pr.name, c, err)
	}
	return 1
}

// TestVariant checks v against every property of the suite that applies
// to it, within the capabilities v declares: random problems drawn from
// the seed, each failure shrunk to a small case and printed with the
// command that reproduces it; the fixed table of edge cases; and the
// checks that invalid input is refused. Each property runs as a subtest
// of t named after it, beside the subtests "edge-cases" and "bad-input";
// a last log line sums the variant's run up. A GPU variant whose plan
// fails with an UnavailableError (the hardware it needs is absent) skips
// t with its message. A GPU variant that implements the optional
// interfaces Warmer and AllocationCounter is warmed before its cases and
// checked for leaked device allocations.
//
// The seed, the number of random cases and a single case to check come
// from the flags -convtest.seed, -convtest.n and -convtest.case.
func TestVariant(t *testing.T, v convolve.Variant) {
	t.Helper()
	TestVariantOptions(t, v, Options{})
}

// TestVariantOptions is TestVariant with the settings of o in place of
// the command-line flags where o sets them.
func TestVariantOptions(t *testing.T, v convolve.Variant, o Options) {
	t.Helper()
	if v == nil {
		t.Fatal("convtest: nil variant")
	}
	o = o.resolve()
	name := v.Describe().Name
	if name == "" {
		t.Fatalf("convtest: variant %T describes itself with an empty name", v)
	}
	t.Logf("variant=%s seed=%d n=%d pool=%d (rerun with -%s.seed=%d%s)", name, o.Seed, o.N, o.Pool, o.FlagPrefix, o.Seed, o.poolFlag())
	warmVariant(t, v, o)
	e := newEnv(t, v, o)
	start := time.Now()
	cases, cut := 0, 0
	for _, pr := range properties {
		t.Run(pr.name, func(t *testing.T) {
			t.Helper() // failures point at the caller's TestVariant line
			if pr.applies != nil {
				if why := pr.applies(e); why != "" {
					t.Skip(why)
				}
			}
			if len(propertyDomain(e, pr).ops) == 0 {
				t.Skipf("%s supports none of the operations %v", e.name, pr.ops)
			}
			if o.Case != "" {
				cases += checkOneCase(t, e, pr, o)
				return
			}
			r := checkProperty(e, pr, o.Seed, o.N, o.ShrinkTime, o.Time, childChecker(t.Name(), o))
			cases += r.passed - r.refused
			if r.timeCut {
				cut++
			}
			r.report(t, e, pr, o)
		})
	}
	if o.Case == "" {
		t.Run("edge-cases", func(t *testing.T) { cases += testEdgeCases(t, e) })
		t.Run("bad-input", func(t *testing.T) { testBadInput(t, e, o.Seed) })
	}
	t.Log(e.rule.summary())
	verdict := "pass"
	if t.Failed() {
		verdict = "FAIL"
	}
	bound := ""
	if cut > 0 {
		bound = fmt.Sprintf(" (%d properties stopped at the %v bound)", cut, o.Time)
	}
	t.Logf("variant=%s cases=%d%s %s elapsed=%v", name, cases, bound, verdict, time.Since(start).Round(time.Millisecond))
}
