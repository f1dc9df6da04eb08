package devfacts

import (
	"math"
	"testing"

	"github.com/convbench/convbench/internal/gputest"
)

// TestKnownConsistent: every entry of Known is complete and its numbers
// agree with each other: a shared-memory opt-in within the SM's share, a
// block's threads within the SM's, one entry a name.
func TestKnownConsistent(t *testing.T) {
	if len(Known) < 5 {
		t.Fatalf("Known has %d devices, want at least H100, H200, A100, L4 and an RTX 4090", len(Known))
	}
	seen := map[string]bool{}
	for _, d := range Known {
		if seen[d.Name] {
			t.Errorf("%s listed twice", d.Name)
		}
		seen[d.Name] = true
		if d.Major < 7 || d.SMs <= 0 || d.TotalMemBytes <= 0 || d.ConstantBytes <= 0 || d.RegistersPerBlock <= 0 {
			t.Errorf("%s: incomplete entry %+v", d.Name, d)
		}
		if d.SharedPerBlock > d.SharedPerBlockOptin || d.SharedPerBlockOptin > d.SharedPerSM {
			t.Errorf("%s: shared memory per block %d, opt-in %d, per SM %d: want default <= opt-in <= per SM", d.Name, d.SharedPerBlock, d.SharedPerBlockOptin, d.SharedPerSM)
		}
		if d.MaxThreadsPerBlock > d.MaxThreadsPerSM {
			t.Errorf("%s: %d threads per block over %d per SM", d.Name, d.MaxThreadsPerBlock, d.MaxThreadsPerSM)
		}
	}
}

// TestKnownDerived: the numbers knownDevices derives from a row are the
// devices' own: the data-sheet peak bandwidth and the shared-memory
// opt-in cuDeviceGetAttribute reports.
func TestKnownDerived(t *testing.T) {
	want := map[string]struct {
		peakGBps float64
		optin    int
	}{
		"NVIDIA H100 80GB HBM3":   {3352.32, 232448},
		"NVIDIA H200":             {4814.304, 232448},
		"NVIDIA A100-SXM4-80GB":   {2039.04, 166912},
		"NVIDIA L4":               {300.048, 101376},
		"NVIDIA GeForce RTX 4090": {1008.096, 101376},
	}
	for _, d := range Known {
		w, ok := want[d.Name]
		if !ok {
			t.Errorf("%s: no expected values", d.Name)
			continue
		}
		if math.Abs(d.PeakBandwidthGBps-w.peakGBps) > 1e-9 || d.SharedPerBlockOptin != w.optin {
			t.Errorf("%s: PeakBandwidthGBps %v, SharedPerBlockOptin %d; want %v and %d", d.Name, d.PeakBandwidthGBps, d.SharedPerBlockOptin, w.peakGBps, w.optin)
		}
	}
}

// TestGPUKnownMatchesDevice: where this host's GPU is one of Known, the
// limits the validity rules read agree with the device's own.
func TestGPUKnownMatchesDevice(t *testing.T) {
	info := gputest.Device(t).Info()
	for _, k := range Known {
		if k.Name != info.Name {
			continue
		}
		for _, f := range []struct {
			name       string
			known, got int
		}{
			{"SMs", k.SMs, info.SMs}, {"SharedPerBlockOptin", k.SharedPerBlockOptin, info.SharedPerBlockOptin},
			{"SharedPerSM", k.SharedPerSM, info.SharedPerSM}, {"MaxThreadsPerBlock", k.MaxThreadsPerBlock, info.MaxThreadsPerBlock},
			{"MaxThreadsPerSM", k.MaxThreadsPerSM, info.MaxThreadsPerSM}, {"RegistersPerBlock", k.RegistersPerBlock, info.RegistersPerBlock},
			{"ConstantBytes", k.ConstantBytes, info.ConstantBytes}, {"MaxTex2DLinearWidth", k.MaxTex2DLinearWidth, info.MaxTex2DLinearWidth},
			{"MaxTex2DLinearHeight", k.MaxTex2DLinearHeight, info.MaxTex2DLinearHeight},
		} {
			if f.known != f.got {
				t.Errorf("%s: Known has %s %d, the device reports %d", k.Name, f.name, f.known, f.got)
			}
		}
		return
	}
	t.Skipf("%s is not one of Known's devices", info.Name)
}
