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
func Fixed(v convolve.Variant, s convolve.Setting, lim convolve.DeviceLimits) convolve.Variant {
	return &fixed{v: v, s: s, lim: lim}
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
	own := f.Describe()
	if err := own.Caps.Check(p); err != nil {
		return nil, convolve.NameVariant(own.Name, err)
	}
	if err := own.Caps.CheckConfig(cfg); err != nil {
		return nil, convolve.NameVariant(own.Name, err)
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
	return convolve.PlanFor(f.v, p, cfg)
}
