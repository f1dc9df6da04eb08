package properties

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/variants"
)

// liveAllocations is the default device's count of live allocations, or
// false when there is no device.
func liveAllocations() (int, bool) {
	dev, err := cudabind.Default()
	if err != nil {
		return 0, false
	}
	return dev.LiveAllocations(), true
}

// unavailable returns the reason CUDA cannot run here, when err says so.
func unavailable(err error) (string, bool) {
	var ua *cudabind.UnavailableError
	if errors.As(err, &ua) {
		return ua.Error(), true
	}
	return "", false
}

// warmOnce compiles, on every core, the GPU kernels the selected variants
// will need: the specialization pool of each for the suite's seed and the
// adapted edge-case table. Plans made later, one at a time, then find
// their modules in the compile cache.
var warmOnce sync.Once

func warmGPU(t *testing.T) {
	warmOnce.Do(func() {
		seed := suiteSeed()
		var specs []variants.WarmSpec
		add := func(v convolve.Variant, c Case) {
			p, err := c.Problem()
			if err == nil {
				specs = append(specs, variants.WarmSpec{Variant: v, Problem: p, Config: c.Config()})
			}
		}
		for _, v := range convolve.Variants() {
			d := v.Describe()
			if !d.Caps.GPU || !variantSelected(d.Name) {
				continue
			}
			for _, c := range specPool(d.Caps, derivedSeed(seed, d.Name, "pool")) {
				add(v, c)
				// The specializations the properties' fixes make of it
				// (another element type, border or compile option).
				for _, pr := range properties {
					if pr.fix != nil {
						if f := pr.fix(newDomain(d.Caps, pr, nil), c).normalize(); f != c {
							add(v, f)
						}
					}
				}
			}
			cases, _ := edgeCasesFor(d.Caps)
			for _, c := range cases {
				add(v, c)
			}
		}
		start := time.Now()
		stats, err := variants.Warm(specs, runtime.NumCPU(), nil)
		if _, ok := unavailable(err); ok || len(specs) == 0 {
			return
		}
		t.Logf("precompiled the kernels of %d specializations on %d workers in %v (%d refused at plan time)",
			stats.Planned, runtime.NumCPU(), time.Since(start).Round(time.Millisecond), stats.Failed)
	})
}
