package properties

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	_ "github.com/convbench/convbench/cudabind/variants"
	_ "github.com/convbench/convbench/refimpl"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// newEnv prepares the checks of variant v; it skips the test when the
// variant needs a GPU this machine lacks.
func newEnv(t *testing.T, v convolve.Variant, seed int64) *env {
	d := v.Describe()
	e := &env{name: d.Name, variant: v, desc: d}
	if !d.Caps.GPU {
		return e
	}
	e.pool = specPool(d.Caps, derivedSeed(seed, d.Name, "pool"))
	if len(e.pool) == 0 {
		t.Fatalf("%s: no specialization within its capabilities %+v", d.Name, d.Caps)
	}
	probe := e.pool[0]
	probe.W, probe.H = 8, 8
	p, err := probe.Problem()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := e.plan(p, probe.Config())
	if reason, ok := unavailable(err); ok {
		t.Skipf("%s needs a GPU: %s", d.Name, reason)
	}
	if err == nil {
		pl.Close()
	}
	var specs []string
	for _, c := range e.pool {
		specs = append(specs, specString(c))
	}
	t.Logf("%s specializations for this seed: %s", d.Name, strings.Join(specs, "; "))
	return e
}

// specString shows the fields of a case a GPU kernel is compiled for.
func specString(c Case) string {
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
}

// checkProperty runs property pr on e with n random cases from seed and
// returns gopter's result, the shrunk failing case included.
func checkProperty(e *env, pr *property, seed int64, n int) *propertyRun {
	d := propertyDomain(e, pr)
	r := &propertyRun{seed: derivedSeed(seed, e.name, pr.name)}
	params := gopter.DefaultTestParametersWithSeed(r.seed)
	params.MinSuccessfulTests = n
	params.MaxShrinkCount = 300
	var refused atomic.Int64
	condition := func(c Case) *gopter.PropResult {
		err := safely(func() error { return pr.check(e, c) })
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
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: []string{err.Error()}}
	}
	r.result = prop.ForAll(condition, d.gen()).Check(params)
	r.refused = int(refused.Load())
	r.passed = r.result.Succeeded
	return r
}

// report logs or fails according to the run of property pr on variant e.
func (r *propertyRun) report(t *testing.T, e *env, pr *property, seed int64, n int) {
	t.Helper()
	res := r.result
	cmd := reproduceCommand("TestProperties", e.name, pr.name, seed, n)
	switch {
	case res.Status == gopter.TestFailed && len(res.Args) > 0:
		a := res.Args[0]
		t.Errorf("variant=%s property=%s FAILED after %d passing cases\n"+
			"  shrunk case (%d shrinks): %s\n"+
			"  original case:            %s\n"+
			"  failure: %s\n"+
			"  seed: -props.seed=%d (property stream %d)\n"+
			"  reproduce: %s\n"+
			"  rerun the shrunk case alone: %s",
			e.name, pr.name, res.Succeeded, a.Shrinks, a.ArgFormatted, a.OrigArgFormatted,
			strings.Join(res.Labels, "; "), seed, r.seed, cmd, caseCommand("TestProperties", e.name, pr.name, a.Arg.(Case)))
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
	}
}

// checkOneCase checks the case -props.case names, without shrinking, and
// returns 1 when it ran.
func checkOneCase(t *testing.T, e *env, pr *property) int {
	c, err := parseCase(*caseFlag)
	if err != nil {
		t.Fatalf("-props.case: %v", err)
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
		t.Errorf("variant=%s property=%s case %v:\n%v", e.name, pr.name, c, err)
	}
	return 1
}

// TestProperties checks every selected variant against every property that
// applies to it, then logs one summary line per variant.
func TestProperties(t *testing.T) {
	seed, n := suiteSeed(), casesPerProperty()
	t.Logf("props.seed=%d props.n=%d (rerun with -props.seed=%d)", seed, n, seed)
	warmGPU(t)
	ran := 0
	for _, v := range convolve.Variants() {
		name := v.Describe().Name
		if !selectVariant(t, name) {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			if !v.Describe().Caps.GPU {
				t.Parallel() // GPU variants run one at a time: the allocation count is per device
			}
			e := newEnv(t, v, seed)
			start := time.Now()
			cases := 0
			for _, pr := range properties {
				t.Run(pr.name, func(t *testing.T) {
					if pr.applies != nil {
						if why := pr.applies(e); why != "" {
							t.Skip(why)
						}
					}
					if len(propertyDomain(e, pr).ops) == 0 {
						t.Skipf("%s supports none of the operations %v", e.name, pr.ops)
					}
					if *caseFlag != "" {
						cases += checkOneCase(t, e, pr)
						return
					}
					r := checkProperty(e, pr, seed, n)
					cases += r.passed - r.refused
					r.report(t, e, pr, seed, n)
				})
			}
			verdict := "pass"
			if t.Failed() {
				verdict = "FAIL"
			}
			t.Logf("variant=%s cases=%d %s elapsed=%v", name, cases, verdict, time.Since(start).Round(time.Millisecond))
		})
	}
	if ran == 0 {
		t.Errorf("-props.variant=%q matches none of the registered variants", *variantFlag)
	}
}
