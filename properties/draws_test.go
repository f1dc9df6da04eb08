package properties

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
	"github.com/convbench/convbench/gpu/variants"
)

// drawSeeds are the seeds TestDrawsWithinDeviceLimits draws from: the
// default seed and others spread over the seed space, so that the suite's
// result on a GPU host does not depend on which seed it is given.
var drawSeeds = []int64{convtest.DefaultSeed, 1, 2, 3, 1795912028, 3591824364, 1795912182, 424242, 987654321, 2718281828}

// TestDrawsWithinDeviceLimits draws the property suite's cases of every
// registered GPU variant, over many seeds, for each GPU the project
// supports (variants.KnownLimits), and checks each drawn case, edge case
// and bad-input base case against the variant's validity rule on that
// device: a case the rule refuses would fail the suite there. It needs no
// GPU.
func TestDrawsWithinDeviceLimits(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 3
	}
	checkGPUVariantDraws(t, drawSeeds, n)
}

// TestEveryPropertyDrawsAtAnySeed draws one case of every property, for
// every registered GPU variant on every supported device, at many more
// seeds than TestDrawsWithinDeviceLimits: at no seed may a property find
// no case (the suite would fail it as exhausted) or draw one the validity
// rule refuses.
func TestEveryPropertyDrawsAtAnySeed(t *testing.T) {
	seeds := make([]int64, 30)
	for i := range seeds {
		seeds[i] = 610077523 + int64(i)*7919
	}
	if testing.Short() {
		seeds = seeds[:10]
	}
	checkGPUVariantDraws(t, seeds, 1)
}

// checkGPUVariantDraws runs convtest.CheckDraws at seeds, n cases a
// property, for every registered GPU variant (a parallel subtest each)
// on each device of variants.KnownLimits, and fails on every problem it
// reports.
func checkGPUVariantDraws(t *testing.T, seeds []int64, n int) {
	lims := variants.KnownLimits()
	for _, v := range convolve.Variants() {
		if !v.Describe().Caps.GPU {
			continue
		}
		t.Run(v.Describe().Name, func(t *testing.T) {
			t.Parallel()
			drawn := 0
			for _, lim := range lims {
				k, problems := convtest.CheckDraws(v, lim, seeds, n)
				drawn += k
				for _, p := range problems {
					t.Error(p)
				}
			}
			t.Logf("%d cases drawn over %d seeds and %d devices", drawn, len(seeds), len(lims))
		})
	}
}
