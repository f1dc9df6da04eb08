package variants

import (
	"fmt"

	"github.com/convbench/convbench/convolve"
)

// The validity rules (convolve.Supporter) of the variants whose Plan is
// written by hand rather than built on Variant: each is Variant.Supports
// of a Variant with the same description, default block and device-free
// checks, so that one rule serves both.

func (v *loopVariant) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	return (&Variant{Desc: v.desc}).Supports(p, cfg, lim)
}

func (v *loopVariant) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	return (&Variant{Desc: v.desc}).DeviceLimits(cfg)
}

func (v nppInterior) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	return (&Variant{Desc: v.desc, Check: checkNPP}).Supports(p, cfg, lim)
}

func (v nppInterior) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	return (&Variant{Desc: v.desc}).DeviceLimits(cfg)
}

func (v *yuvVariant) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	return (&Variant{Desc: v.desc, Block: yuvBlock}).Supports(p, cfg, lim)
}

func (v *yuvVariant) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	return (&Variant{Desc: v.desc}).DeviceLimits(cfg)
}

// Supports is cuDNN's rule: the capabilities, a forced algorithm's
// tunable, and cuDNN's own check of the convolution's descriptors.
func (v *cudnnPeer) Supports(p convolve.Problem, cfg convolve.Config, lim convolve.DeviceLimits) error {
	if err := (&Variant{Desc: v.desc}).Supports(p, cfg, lim); err != nil {
		return err
	}
	if _, err := v.forcedAlgo(cfg); err != nil {
		return err
	}
	if err := cudnnConv(p, v.math).Validate(); err != nil {
		return &convolve.CapabilityError{Variant: v.desc.Name, What: "image", Value: fmt.Sprintf("%v: %v", p.Input, err)}
	}
	return nil
}

func (v *cudnnPeer) DeviceLimits(cfg convolve.Config) (convolve.DeviceLimits, error) {
	return (&Variant{Desc: v.desc}).DeviceLimits(cfg)
}
