package variants

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/internal/gputest"
)

// suiteSlots is how many agreement suites TestAgreementSuites runs at
// once; their compiles share the cores (warmAll, compileSlots).
const suiteSlots = 6

// agreementSuite is one variant's (or one family's) agreement check.
type agreementSuite struct {
	name string
	run  func(t *testing.T)
}

// agreementSuites lists every agreement check: each GPU variant and
// channel strategy over its cases and the agreement sizes, and the
// families with suites of their own (regtile and sepfused over their
// tunables and fill paths, gpu-fft under its bound, the tensor-core
// variants under their error models).
func agreementSuites() []agreementSuite {
	var ss []agreementSuite
	for vi, gv := range gpuVariants {
		ss = append(ss, agreementSuite{gv.String(), func(t *testing.T) { variantAgreement(t, vi, gv) }})
	}
	for vi, gv := range channelVariants {
		ss = append(ss, agreementSuite{gv.String(), func(t *testing.T) { channelAgreement(t, vi, gv) }})
	}
	return append(ss,
		agreementSuite{"regtile-over-tunables", regtileAgreement},
		agreementSuite{"sepfused-over-tunables", sepfusedAgreement},
		agreementSuite{"fft", fftAgreement},
		agreementSuite{"tensor-core", tcAgreement},
	)
}

// TestAgreementSuites runs the agreement suites, suiteSlots at a time
// (the device is shared: plans of several suites run at once), and then
// checks that the device holds no more allocations than before them. In
// a default run each case meets two of its suite's image sizes (sizesFor);
// CONVBENCH_TEST_LONG=1 checks every case on every size.
func TestAgreementSuites(t *testing.T) {
	d := gputest.DeviceNoLeakCheck(t)
	leakCheck := gputest.LeakCheck(t, d)
	slots := make(chan struct{}, suiteSlots)
	t.Run("suites", func(t *testing.T) {
		for _, s := range agreementSuites() {
			t.Run(s.name, func(t *testing.T) {
				t.Parallel()
				slots <- struct{}{}
				defer func() { <-slots }()
				s.run(t)
			})
		}
	})
	leakCheck()
}

// TestSizesFor: outside a long run each case meets two distinct sizes,
// and consecutive cases cover every size; a long run meets them all.
func TestSizesFor(t *testing.T) {
	defer func(l bool) { longRun = l }(longRun)
	for _, all := range [][]convolve.Geometry{agreementSizes, regtileSizes} {
		longRun = false
		seen := map[convolve.Geometry]bool{}
		for i := range len(all) {
			got := sizesFor(i, all)
			if len(got) != 2 || got[0] == got[1] {
				t.Errorf("sizesFor(%d) over %d sizes = %v, want two distinct sizes", i, len(all), got)
			}
			for _, g := range got {
				seen[g] = true
			}
		}
		if len(seen) != len(all) {
			t.Errorf("%d cases over %d sizes met %d of them", len(all), len(all), len(seen))
		}
		longRun = true
		if got := sizesFor(3, all); len(got) != len(all) {
			t.Errorf("long run: sizesFor(3) = %d sizes, want %d", len(got), len(all))
		}
	}
}
