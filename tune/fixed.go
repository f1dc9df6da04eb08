package tune

import (
	"slices"

	"github.com/convbench/convbench/convolve"
)

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
