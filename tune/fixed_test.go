package tune

import (
	"slices"
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
	p, err := smallClass.Problem(convolve.Capabilities{})
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

// deviceStandIn is the stand-in with the methods of a device variant:
// Warm records the configurations it is given, LiveAllocations returns
// live.
type deviceStandIn struct {
	standIn
	live   int
	warmed *[]convolve.Config
}

func (d deviceStandIn) Warm(p convolve.Problem, cfg convolve.Config) error {
	*d.warmed = append(*d.warmed, cfg)
	return nil
}

func (d deviceStandIn) LiveAllocations() (int, error) { return d.live, nil }
func (d deviceStandIn) ReleaseDevice() error          { return nil }

// Fixed is a device variant (convtest.Warmer, convtest.AllocationCounter)
// exactly when the variant it fixes is one; it warms with its setting
// applied and counts the fixed variant's allocations.
func TestFixedDeviceMethods(t *testing.T) {
	in := standIn{as: []int{5, 6}, bs: []int{3}, blocks: []convolve.Block{{X: 16, Y: 8}}}
	s := convolve.Setting{Block: convolve.Block{X: 16, Y: 8}, Tunables: map[string]int{"a": 5, "b": 3}}
	p, err := smallClass.Problem(convolve.Capabilities{})
	if err != nil {
		t.Fatal(err)
	}
	var warmed []convolve.Config
	for _, tt := range []struct {
		name   string
		v      convolve.Variant
		device bool
	}{
		{"cpu stand-in", in, false},
		{"device stand-in", deviceStandIn{standIn: in, live: 7, warmed: &warmed}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := Fixed(tt.v, s, convolve.DeviceLimits{})
			w, warms := f.(convtest.Warmer)
			c, counts := f.(convtest.AllocationCounter)
			_, releases := f.(convtest.DeviceReleaser)
			if warms != tt.device || counts != tt.device || releases != tt.device {
				t.Fatalf("Fixed of %s: Warmer %v, AllocationCounter %v, DeviceReleaser %v; want %v", tt.name, warms, counts, releases, tt.device)
			}
			if !tt.device {
				return
			}
			if n, err := c.LiveAllocations(); n != 7 || err != nil {
				t.Errorf("LiveAllocations() = %d, %v; want 7, nil", n, err)
			}
			warmed = nil
			if err := w.Warm(p, convolve.Config{}); err != nil {
				t.Fatal(err)
			}
			if len(warmed) != 1 || warmed[0].Block != s.Block || warmed[0].Tunables["a"] != 5 || warmed[0].Tunables["b"] != 3 {
				t.Errorf("warmed %+v; want one configuration with the setting %v", warmed, s)
			}
			if err := w.Warm(p, convolve.Config{Tunables: map[string]int{"a": 6}}); err == nil || len(warmed) != 1 {
				t.Errorf("Warm with a tunable the fixed variant does not take: error %v, %d warmed; want an error and none warmed", err, len(warmed)-1)
			}
		})
	}
}

// Fixed returns v with setting s in place of its defaults: a plan whose
// configuration leaves the block or a tunable unset gets s's, where v's
// tuning space allows s for the problem on a device with limits lim
// (elsewhere the plan is v's own, as a tuned plan falls back). Its
// capabilities name no tunables and, when s has a block, accept that
// block alone, so the property suite (convtest.TestVariant) run on it
// checks s and nothing else: the proof of a tuning table's settings.
// When v is a device variant as the suite knows one (convtest.Warmer and
// convtest.AllocationCounter), so is the result: it warms v's plans with
// s applied and counts v's device allocations.
func Fixed(v convolve.Variant, s convolve.Setting, lim convolve.DeviceLimits) convolve.Variant {
	f := &fixed{v: v, s: s, lim: lim}
	if _, ok := v.(deviceVariant); ok {
		return &fixedOnDevice{f}
	}
	return f
}

type fixed struct {
	v   convolve.Variant
	s   convolve.Setting
	lim convolve.DeviceLimits
}

func (f *fixed) Describe() convolve.Description {
	d := f.v.Describe()
	d.Summary = d.Name + " at " + f.s.String() + ": " + d.Summary
	d.Caps.Tunables = nil
	d.Caps.Space = nil
	if f.s.Block != (convolve.Block{}) {
		d.Caps.FixedBlocks = []convolve.Block{f.s.Block}
	}
	return d
}

func (f *fixed) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	cfg, err := f.config(p, cfg)
	if err != nil {
		return nil, err
	}
	return convolve.PlanFor(f.v, p, cfg)
}

// config checks p and cfg against f's capabilities and returns cfg with
// s's block and tunables where cfg leaves them unset and v's tuning
// space allows s for p: the configuration of v's plan of p.
func (f *fixed) config(p convolve.Problem, cfg convolve.Config) (convolve.Config, error) {
	own := f.Describe()
	if err := own.Caps.Check(p); err != nil {
		return cfg, convolve.NameVariant(own.Name, err)
	}
	if err := own.Caps.CheckConfig(cfg); err != nil {
		return cfg, convolve.NameVariant(own.Name, err)
	}
	d := f.v.Describe()
	if sp := d.Caps.Space; sp == nil || sp.Allowed(p, f.s, f.lim) == nil {
		if cfg.Block == (convolve.Block{}) {
			cfg.Block = f.s.Block
		}
		for name, val := range f.s.Tunables {
			if _, set := cfg.Tunables[name]; !set && slices.Contains(d.Caps.Tunables, name) {
				cfg = convolve.Setting{Tunables: map[string]int{name: val}}.Apply(cfg)
			}
		}
	}
	return cfg, nil
}

// deviceVariant is what the property suite asks of a device variant
// (convtest.Warmer and convtest.AllocationCounter).
type deviceVariant interface {
	convolve.Variant
	Warm(p convolve.Problem, cfg convolve.Config) error
	LiveAllocations() (int, error)
	ReleaseDevice() error
}

// fixedOnDevice is Fixed of a deviceVariant.
type fixedOnDevice struct{ *fixed }

// Warm warms v's plan of p under cfg with s applied, as Plan makes it.
func (f *fixedOnDevice) Warm(p convolve.Problem, cfg convolve.Config) error {
	cfg, err := f.config(p, cfg)
	if err != nil {
		return err
	}
	return f.v.(deviceVariant).Warm(p, cfg)
}

// LiveAllocations is v's count of live allocations on its device.
func (f *fixedOnDevice) LiveAllocations() (int, error) {
	return f.v.(deviceVariant).LiveAllocations()
}

// ReleaseDevice releases v's poisoned device contexts.
func (f *fixedOnDevice) ReleaseDevice() error { return f.v.(deviceVariant).ReleaseDevice() }
