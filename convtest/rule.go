package convtest

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/convbench/convbench/convolve"
)

// rule is a variant's validity rule on one device: convolve.Supports
// with the limits of the device the variant's plans run on (zero limits
// where it names none: the rule then checks what needs no device). The
// generator consults it, so that a drawn case is one the variant
// accepts; it counts the draws it refused, which are redrawn.
type rule struct {
	v   convolve.Variant
	lim convolve.DeviceLimits
	// refused counts the draws the rule refused; first is the first
	// refusal's error.
	refused atomic.Int64
	once    sync.Once
	first   error
}

// newRule is v's rule on the device its plans run on: the device's own
// limits for a convolve.Supporter that can read them, zero limits
// otherwise (a variant that is not a Supporter, or no device: the GPU
// tests then skip).
func newRule(v convolve.Variant) *rule {
	r := &rule{v: v}
	if s, ok := v.(convolve.Supporter); ok {
		if lim, err := s.DeviceLimits(convolve.Config{}); err == nil {
			r.lim = lim
		}
	}
	return r
}

// check returns the rule's verdict on c: nil, or why the variant does
// not take it (the case is invalid, or unsupported on the device).
func (r *rule) check(c testCase) error {
	p, err := c.Problem()
	if err != nil {
		return err
	}
	return convolve.Supports(r.v, p, c.Config(), r.lim)
}

// accepts reports whether the rule accepts p under cfg, counting a
// refusal.
func (r *rule) accepts(p convolve.Problem, cfg convolve.Config) bool {
	err := convolve.Supports(r.v, p, cfg, r.lim)
	if err == nil {
		return true
	}
	r.refused.Add(1)
	r.once.Do(func() { r.first = err })
	return false
}

// summary says how many draws the rule refused, and the first reason.
func (r *rule) summary() string {
	n := r.refused.Load()
	if n == 0 {
		return fmt.Sprintf("the validity rule of %s on %s refused no draw", r.v.Describe().Name, r.device())
	}
	return fmt.Sprintf("the validity rule of %s on %s refused %d draws, redrawn (first: %v)", r.v.Describe().Name, r.device(), n, r.first)
}

func (r *rule) device() string { return deviceName(r.lim) }

// deviceName names the device of lim, or "any device" for zero limits.
func deviceName(lim convolve.DeviceLimits) string {
	if lim.Name == "" {
		return "any device"
	}
	return lim.Name
}
