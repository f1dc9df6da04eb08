package tune

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
)

// TestFixedStandIn runs the property suite on the stand-in fixed at a
// correct setting (it passes) and checks that the fixed variant plans
// with the setting.
func TestFixedStandIn(t *testing.T) {
	v := standIn{as: []int{5, 6}, bs: []int{3}, blocks: []convolve.Block{{X: 16, Y: 8}}}
	s := convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 5, "b": 3}}
	f := Fixed(v, s, convolve.DeviceLimits{})
	d := f.Describe()
	if len(d.Caps.Tunables) != 0 || d.Caps.Space != nil || len(d.Caps.FixedBlocks) != 1 {
		t.Errorf("capabilities %+v", d.Caps)
	}
	p, err := smallClass.Problem()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := f.Plan(p, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if sp := plan.(*standInPlan); sp.ns != 100 || sp.wrong {
		t.Errorf("fixed plan at %v ns, wrong %v; want the a=5 b=3 16x8 plan", sp.ns, sp.wrong)
	}
	plan.Close()
	convtest.TestVariantOptions(t, f, convtest.Options{N: 10})
}
