package benchmarks

import (
	"slices"
	"testing"

	"github.com/convbench/convbench/runfile"
)

// Two hosts of the same hardware write the same configuration lines,
// whatever they measured (copy bandwidths, compute rates, clocks): those
// are in measured lines, which benchstat does not group by, each of which
// reads back as written.
func TestConfigLinesOfTwoHosts(t *testing.T) {
	host := func(scale float64) Host {
		return Host{
			GPU: &GPUInfo{Name: "X", CC: "9.0", SMs: 132, PeakGBps: 4800 * scale, CopyGBps: 4100 * scale, PeakGFLOPs: 66900 * scale,
				Count: 2, H2DGBps: 25 * scale, D2HGBps: 26 * scale, BothGBps: 40 * scale},
			CPU:   &CPUCeilings{CopyGBps: 50 * scale, ScalarGFLOPs: 7 * scale, FMAGFLOPs: 90 * scale},
			Guard: &ClockGuard{Clocks: &fakeClocks{mhz: []int{1980}}, MaxMHz: int(1980 * scale), MaxRetakes: 100},
		}
	}
	lines := func(h Host) (config, measured []string) {
		for _, l := range append(configLines(h, "s", 2, 0), h.Guard.ConfigLines()...) {
			if k, v, ok := runfile.ParseMeasured(l); ok {
				if !runfile.IsMeasured(k) || v == "" {
					t.Errorf("measured line %q: key %q, value %q", l, k, v)
				}
				measured = append(measured, k)
				continue
			}
			config = append(config, l)
		}
		return config, measured
	}
	c1, m1 := lines(host(1))
	c2, m2 := lines(host(1.3))
	if !slices.Equal(c1, c2) {
		t.Errorf("the configuration lines differ between hosts:\n%q\n%q", c1, c2)
	}
	slices.Sort(m1)
	want := runfile.MeasuredKeys()
	slices.Sort(want)
	if !slices.Equal(m1, want) || !slices.Equal(m1, slices.Sorted(slices.Values(m2))) {
		t.Errorf("measured lines of %q, want one of each of %q", m1, want)
	}
}
