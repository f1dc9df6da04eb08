package benchmarks

import (
	"errors"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/variants"
)

// No preset runs a case its variant refuses, by the variant's validity
// rule (convolve.Supports), on the GPUs the presets are run on, the H100
// and the H200; the default preset, which make bench runs on any GPU,
// none on any GPU the project supports (variants.KnownLimits: also the
// A100, L4 and RTX 4090). Where another preset's case does not fit a
// smaller GPU (a tuning candidate over its shared memory), a sweep there
// skips it as unsupported; the test names those cases.
func TestPresetsSupportedOnKnownDevices(t *testing.T) {
	env := Env{GPU: true, GPUs: 2, Pinned: true, CPUCap: DefaultCPUCap, Variants: convolve.Variants()}
	for _, p := range presets {
		cases, skipped := 0, map[string]int{}
		for _, c := range p.Expand(env).Cases {
			if !c.GPU {
				continue
			}
			v, err := convolve.Lookup(c.Variant)
			if err != nil {
				t.Fatal(err)
			}
			prob, err := c.Problem()
			if err != nil {
				t.Fatal(err)
			}
			cases++
			for _, lim := range variants.KnownLimits() {
				err := convolve.Supports(v, prob, c.Config(), lim)
				ce := new(convolve.CapabilityError)
				switch hopper := strings.Contains(lim.Name, "H100") || strings.Contains(lim.Name, "H200"); {
				case err == nil:
				case !errors.As(err, &ce):
					t.Errorf("preset %s, case %s on %s: %v", p.Name, c.Name(), lim.Name, err)
				case hopper || p.Name == "default":
					t.Errorf("preset %s: %s refuses case %s on %s: %v", p.Name, c.Variant, c.Name(), lim.Name, err)
				default:
					skipped[lim.Name]++
				}
			}
		}
		if len(skipped) > 0 {
			t.Logf("preset %s: of %d GPU cases, a sweep skips as unsupported %v", p.Name, cases, skipped)
		}
	}
}
