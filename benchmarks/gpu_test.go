package benchmarks

import (
	"testing"

	"github.com/convbench/convbench/convolve"
)

// gpuHost opens this host's GPU for a test, or skips with the reason.
func gpuHost(t *testing.T) Host {
	t.Helper()
	h := openHost(defaultMaxRetakes)
	if h.GPU == nil {
		t.Skip("no GPU: " + h.NoGPUReason)
	}
	return h
}

// Every way a GPU case is timed gives a sample set: a positive median of
// the case's time, its spread and at least six samples.
func TestGPURunnerTimings(t *testing.T) {
	h := gpuHost(t)
	base := Case{Variant: "gpu-naive", Op: convolve.Filter2D, Width: 256, Height: 256, Filter: "gauss3", Channels: 1, Cache: Hot, GPU: true}
	tests := []struct {
		mod  func(*Case)
		unit string
	}{
		{func(c *Case) { c.Timing = KernelTiming }, "gpu-ns/op"},
		{func(c *Case) { c.Timing = graphTiming }, "gpu-ns/op"},
		{func(c *Case) { c.Timing, c.Cache = KernelTiming, Cold }, "gpu-ns/op"},
		{func(c *Case) { c.Timing, c.Mem = totalTiming, pinned }, "total-ns/op"},
	}
	for _, tt := range tests {
		c := base
		tt.mod(&c)
		r := &Runner{Device: h.Device, Peaks: h.Peaks(), Noise: quickNoise, Guard: h.Guard}
		res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if res.Extra[tt.unit] <= 0 || res.Extra["samples"] < MinCISamples || res.Extra["median-ci95-%"] < 0 {
			t.Errorf("%s: %s %v, samples %v, median-ci95-%% %v", c.Name(), tt.unit, res.Extra[tt.unit], res.Extra["samples"], res.Extra["median-ci95-%"])
		}
		if _, ok := res.Extra["throttled-samples"]; ok != h.Guard.On() {
			t.Errorf("%s: throttled-samples reported %v with the guard on %v (%s)", c.Name(), ok, h.Guard.On(), h.Guard.Off)
		}
		t.Logf("%s: %v", c.Name(), res.Extra)
	}
}

// The guard reads the real SM clock through NVML: against a maximum
// clock no GPU reaches, every sample is throttled, so a line discards
// exactly its retakes and keeps the rest as throttled.
func TestGPUClockGuardDiscards(t *testing.T) {
	h := gpuHost(t)
	if !h.Guard.On() {
		t.Skip("clock guard off: " + h.Guard.Off)
	}
	g := *h.Guard
	g.MaxMHz *= 10
	g.MaxRetakes = 3
	c := Case{Variant: "gpu-naive", Op: convolve.Filter2D, Width: 256, Height: 256, Filter: "gauss3", Channels: 1, Cache: Hot, Timing: KernelTiming, GPU: true}
	r := &Runner{Device: h.Device, Peaks: h.Peaks(), Noise: quickNoise, Guard: &g}
	res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Extra["throttled-samples"] != 3 || res.Extra["throttled-kept"] != res.Extra["samples"] || res.Extra["samples"] < MinCISamples {
		t.Errorf("throttled-samples %v, throttled-kept %v, samples %v; want 3, all, at least %d",
			res.Extra["throttled-samples"], res.Extra["throttled-kept"], res.Extra["samples"], MinCISamples)
	}
	start, end := res.Extra["sm-mhz-start"], res.Extra["sm-mhz-end"]
	if start <= 0 || end <= 0 || end > float64(h.Guard.MaxMHz)*1.1 {
		t.Errorf("sm-mhz-start %v, sm-mhz-end %v (max %d MHz)", start, end, h.Guard.MaxMHz)
	}
	t.Logf("guard %v: %v", g.ConfigLines(), res.Extra)
}
