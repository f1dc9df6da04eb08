package convtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/leanovate/gopter"
)

// ruled is cpu-naive under a validity rule: its Supports refuses filters
// wider than ruleK on the stand-in device, and its Plan refuses those
// wider than planK. With planK < ruleK its plan refuses cases its rule
// accepts, the bug the suite must catch.
type ruled struct {
	inner        convolve.Variant
	ruleK, planK int
}

var testLimits = convolve.DeviceLimits{Name: "Stand-in GPU", SharedPerBlock: 48 << 10}

func (r ruled) Describe() convolve.Description {
	d := r.inner.Describe()
	d.Name = fmt.Sprintf("ruled-%d-%d", r.ruleK, r.planK)
	return d
}

func (r ruled) refuse(p convolve.Problem, k int) error {
	if kw, kh := p.KernelSize(); kw > k || kh > k {
		return &convolve.CapabilityError{What: "filter size", Value: fmt.Sprintf("%dx%d (at most %d on the stand-in device)", kw, kh, k)}
	}
	return nil
}

func (r ruled) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	if lim.Name != testLimits.Name {
		return fmt.Errorf("Supports given the limits of %q, want the stand-in device's", lim.Name)
	}
	return r.refuse(p, r.ruleK)
}

func (r ruled) DeviceLimits(convolve.Config) (convolve.DeviceLimits, error) { return testLimits, nil }

func (r ruled) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if err := r.refuse(p, r.planK); err != nil {
		return nil, err
	}
	return convolve.PlanFor(r.inner, p, cfg)
}

func agreementProperty(t *testing.T) *property {
	for _, pr := range properties {
		if pr.name == "agreement" {
			return pr
		}
	}
	t.Fatal("no property agreement")
	return nil
}

// TestRuleRedrawsRefusedCases: the generator draws only cases the
// variant's rule accepts on its device, counts the draws it refused, and
// the property passes with no refusal at plan time.
func TestRuleRedrawsRefusedCases(t *testing.T) {
	v := ruled{inner: lookup(t, "cpu-naive"), ruleK: 5, planK: 5}
	e := newEnv(t, v, Options{Seed: 1})
	r := checkProperty(e, agreementProperty(t), 1, 60, 0, 0, nil)
	if r.result.Status != gopter.TestPassed {
		t.Fatalf("property agreement: %v %v", r.result.Status, r.result.Labels)
	}
	if r.refused != 0 {
		t.Errorf("%d cases refused at plan time, want none: the rule should have kept them out", r.refused)
	}
	if e.rule.refused.Load() == 0 {
		t.Errorf("the rule refused no draw of 60 (filters up to 5 wide): was it consulted?")
	}
	if s := e.rule.summary(); !strings.Contains(s, "Stand-in GPU") || !strings.Contains(s, "redrawn") {
		t.Errorf("summary %q does not name the device and the redraws", s)
	}
}

// TestUnpredictedRefusalFails: a plan that refuses a case its rule
// accepts fails the property, saying so.
func TestUnpredictedRefusalFails(t *testing.T) {
	v := ruled{inner: lookup(t, "cpu-naive"), ruleK: 9, planK: 3}
	e := newEnv(t, v, Options{Seed: 1})
	r := checkProperty(e, agreementProperty(t), 1, 60, 0, 0, nil)
	if r.result.Status != gopter.TestFailed {
		t.Fatalf("property agreement: %v, want a failure", r.result.Status)
	}
	if msg := strings.Join(r.result.Labels, "; "); !strings.Contains(msg, "refused what the validity rule (Supports) accepts on Stand-in GPU") {
		t.Errorf("failure %q does not say the plan refused what the rule accepts", msg)
	}
}

// TestCheckDraws: the draws of a variant whose rule the generator
// follows are all accepted; a rule that refuses every case leaves the
// properties without cases, which CheckDraws reports.
func TestCheckDraws(t *testing.T) {
	v := ruled{inner: lookup(t, "cpu-naive"), ruleK: 5, planK: 5}
	n, problems := CheckDraws(v, testLimits, []int64{1, 2}, 5)
	if len(problems) > 0 || n == 0 {
		t.Errorf("CheckDraws: %d drawn, problems %v; want cases and no problem", n, problems)
	}
	none := ruled{inner: lookup(t, "cpu-naive"), ruleK: 0, planK: 0}
	if _, problems := CheckDraws(none, testLimits, []int64{1}, 5); len(problems) == 0 {
		t.Error("CheckDraws of a variant whose rule refuses every filter reports no problem")
	}
}

func lookup(t *testing.T, name string) convolve.Variant {
	t.Helper()
	v, err := convolve.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
