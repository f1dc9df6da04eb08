package tune

import (
	"flag"
	"os"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convtest"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/variants"
	"github.com/convbench/convbench/internal/gputest"
	"github.com/convbench/convbench/tables/tuning"
)

// tunedCases is TestTunedProperties's random cases per property and
// setting when -convtest.n is not given: a table holds ten settings or
// more, and each is checked across every problem kind the suite draws.
const tunedCases = 40

// tunedProps runs TestTunedProperties: each tuned setting compiles its own
// kernels for the whole suite, minutes of NVRTC on a cold cache, so the
// default run leaves it to make test-long and gpu-run.sh's tune-props
// stage ($CONVBENCH_TEST_LONG=1 turns it on). The registered variants meet every property at their defaults
// and at the tuning space's values in package properties.
var tunedProps = flag.Bool("tune.props", os.Getenv(convtest.EnvLong) == "1", "run the property suite on every setting of this GPU's tuning table (TestTunedProperties)")

func gpuLimits(t *testing.T) (cudabind.DeviceInfo, convolve.DeviceLimits) {
	t.Helper()
	d := gputest.DeviceNoLeakCheck(t)
	return d.Info(), variants.Limits(d.Info())
}

// TestTuneGPU tunes gpu-tiled and gpu-regtile for K=5 at 512x512 on this
// GPU within a small budget: the default and the chosen setting pass
// verification and are timed.
func TestTuneGPU(t *testing.T) {
	_, lim := gpuLimits(t)
	for _, name := range []string{"gpu-tiled", "gpu-regtile"} {
		v, err := convolve.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Tune(v, Class{Type: convolve.Float32, K: 5, Size: convolve.SizeSmall}, Options{Budget: 6, Samples: 3, Limits: lim})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.Default.Status != tuning.OK || e.Chosen.Status != tuning.OK || e.Chosen.MedianNS <= 0 || e.Chosen.MedianNS > e.Default.MedianNS {
			t.Errorf("%s: default %+v, chosen %+v", name, e.Default, e.Chosen)
		}
		for _, c := range e.Candidates {
			t.Logf("%s: %s %v %s %.0f ns %s", name, c.Block, c.Tunables, c.Status, c.MedianNS, c.Error)
		}
	}
}

// TestTunedProperties runs the property suite on every setting of this
// GPU's tuning table (the embedded one, or CONVBENCH_TUNING's): each
// variant fixed at its entry's block and tunables (Fixed). It skips when
// there is no GPU or no table for it, and without -tune.props. Each setting gets tunedCases random
// cases per property unless -convtest.n sets another count.
func TestTunedProperties(t *testing.T) {
	info, lim := gpuLimits(t)
	if !*tunedProps {
		t.Skip("the tuned settings' properties run with -tune.props (make test-long, gpu-run.sh tune-props)")
	}
	set, err := tuning.Tables.Default()
	if err != nil {
		t.Fatal(err)
	}
	tab := set.Table(info.Name)
	if tab == nil {
		t.Skipf("no tuning table for %s (tables: %v)", info.Name, set.GPUs())
	}
	opts := convtest.Options{}
	if f := flag.Lookup("convtest.n"); f != nil && f.Value.String() == "0" {
		opts.N = tunedCases
	}
	for _, e := range tab.Entries {
		t.Run(e.Key(), func(t *testing.T) {
			v, err := convolve.Lookup(e.Variant)
			if err != nil {
				t.Fatal(err)
			}
			s, err := e.Chosen.Setting()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s fixed at %v", e.Variant, s)
			convtest.TestVariantOptions(t, Fixed(v, s, lim), opts)
		})
	}
}
