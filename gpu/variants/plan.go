package variants

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/tables/tuning"
)

// defaultBlock is the block shape of a plan whose Config leaves it zero and
// whose variant names none: report 000's 16x16.
var defaultBlock = convolve.Block{X: 16, Y: 16}

// Variant is a GPU variant built on Base: its description, its default
// block shape and the Setup that compiles its kernels and sets the plan's
// Enqueue. It implements convolve.Variant.
type Variant struct {
	Desc convolve.Description
	// Block is used when Config.Block is zero; the zero value means
	// defaultBlock.
	Block convolve.Block
	// Setup completes a plan whose buffers Base has allocated: compile,
	// upload the filter, allocate what else the variant needs (through
	// b.Alloc, so Close frees it) and set b.Enqueue. Declare writes it
	// from a Decl.
	Setup func(b *Base) error
	// Check, when set, is the part of Setup's refusals that needs no
	// device (grids past CUDA's limits, say), for a variant whose Setup is
	// written by hand: Supports runs it on a Base that holds the problem,
	// the settled configuration and the device's limits. Declared
	// variants check their declaration instead (Decl.Validate).
	Check func(b *Base) error

	decl *Decl // the declaration Setup comes from, if any
}

// Supports is the variant's validity rule (convolve.Supporter): whether a
// plan of p under cfg on a device with limits lim would be refused before
// any device work, without a device. It checks the capabilities, the
// image's grid, the block and tunables the plan would settle on (from the
// tuning table for lim's device, or the family's defaults) and the
// declaration's kernels against lim's shared and constant memory (or
// Check); Plan calls it first, with the device's own limits.
func (v *Variant) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	_, err := v.supports(p, cfg, InfoOf(lim))
	return err
}

// supports is Supports on a device described by info; it returns the
// checked Base, with no device, for Plan to go on from.
func (v *Variant) supports(p convolve.Problem, cfg convolve.Config, info cudabind.DeviceInfo) (*Base, error) {
	b, err := newBase(v.Desc, v.Block, p, cfg)
	if err != nil {
		return nil, err
	}
	b.Info = info
	if sp := v.Desc.Caps.Space; sp != nil {
		set, err := tuning.Tables.Default()
		if err == nil {
			err = applyTuning(b, sp, set)
		}
		if err != nil {
			return nil, fmt.Errorf("variants: %s: %w", v.Desc.Name, err)
		}
	}
	switch {
	case v.decl != nil:
		c := *b
		c.setInStride(v.decl.InRowAlign)
		c.setOutStride(v.decl.OutRowAlign)
		if _, err := v.decl.resolve(&c); err != nil {
			return nil, named(v.Desc.Name, err)
		}
	case v.Check != nil:
		if err := v.Check(b); err != nil {
			return nil, named(v.Desc.Name, err)
		}
	}
	return b, nil
}

// DeviceLimits returns the limits of the device a plan under cfg runs on
// (convolve.Supporter), opening it; a *cudabind.UnavailableError where
// there is none.
func (v *Variant) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	d, err := configDevice(v.Desc.Name, cfg)
	if err != nil {
		return convolve.DeviceLimits{}, err
	}
	return Limits(d.Info()), nil
}

// Describe returns the variant's description.
func (v *Variant) Describe() convolve.Description { return v.Desc }

// Plan checks p and cfg against the capabilities, opens the default
// device (returning its *cudabind.UnavailableError when there is none),
// allocates the buffers, completes the block and tunables cfg leaves
// unset from the device's tuning table where the variant declares a
// tuning space (Capabilities.Space; see package tables/tuning), and runs
// Setup. The result is a
// convolve.DevicePlan.
func (v *Variant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	return v.plan(nil, p, cfg)
}

// PlanOn plans v on device d in place of the device cfg.Devices names
// (cfg.Devices is ignored): the way a multi-device plan puts one plan of
// a single-device variant on each of its devices, several Devices opened
// on one ordinal being logical devices of that GPU. v must be a *Variant
// (every declared variant and user kernel is); other variants are an
// error naming them. The result is the plan's *Base.
func PlanOn(v convolve.Variant, d *cudabind.Device, p convolve.Problem, cfg convolve.Config) (*Base, error) {
	vv, ok := v.(*Variant)
	if !ok {
		return nil, fmt.Errorf("variants: %s (%T) cannot be planned on a chosen device: it is not built on variants.Variant", v.Describe().Name, v)
	}
	if d == nil {
		return nil, fmt.Errorf("variants: %s: PlanOn a nil device", vv.Desc.Name)
	}
	cfg.Devices = nil
	pl, err := vv.plan(d, p, cfg)
	if err != nil {
		return nil, err
	}
	return pl.(*Base), nil
}

// plan is Plan on device d, or on the device cfg names when d is nil.
func (v *Variant) plan(d *cudabind.Device, p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if v.Setup == nil {
		return nil, fmt.Errorf("variants: %s has no Setup", v.Desc.Name)
	}
	// A problem or configuration invalid on any device is refused before
	// a device is opened.
	if _, err := newBase(v.Desc, v.Block, p, cfg); err != nil {
		return nil, err
	}
	if d == nil {
		var err error
		if d, err = configDevice(v.Desc.Name, cfg); err != nil {
			return nil, err
		}
	}
	// The validity rule first, on this device's limits: what it refuses is
	// refused before any device work, and the block and tunables it
	// settles on are the plan's.
	checked, err := v.supports(p, cfg, d.Info())
	if err != nil {
		return nil, err
	}
	b, err := newBaseOn(d, v.Desc, v.Block, p, checked.Config)
	if err != nil {
		return nil, err
	}
	b.Block = checked.Block
	b.setting, b.settingSource = checked.setting, checked.settingSource
	if err := v.Setup(b); err != nil {
		b.Close()
		return nil, err
	}
	if b.Enqueue == nil {
		b.Close()
		return nil, fmt.Errorf("variants: %s: Setup left Enqueue unset", v.Desc.Name)
	}
	return b, nil
}
