package benchmarks

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

// TestMultiGPUPreset checks preset 004-multigpu's cases: gpus=all names
// every GPU present and collapses into gpus=0 on one GPU, two logical
// devices of GPU 0 are there on any host, the 32768x32768 images only
// pinned with four streams and resident, and every case carries its
// devices in its name.
func TestMultiGPUPreset(t *testing.T) {
	p, err := lookupPreset("004-multigpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, gpus := range []int{1, 2} {
		ex := p.Expand(Env{GPU: true, GPUs: gpus, Pinned: true, Variants: convolve.Variants()})
		seen := map[string]int{}
		for _, c := range ex.Cases {
			if c.Variant != multiGPU {
				t.Errorf("case of %s", c.Variant)
			}
			if !strings.Contains(c.Name(), "/gpus="+c.GPUs) || c.GPUs == "" || c.GPUs == "all" {
				t.Errorf("%d GPUs: case %s does not name its devices", gpus, c.Name())
			}
			seen[c.GPUs]++
			if c.Width == 32768 && c.Timing == totalTiming && (c.Mem != pinned || c.Tune != "streams=4" && c.Tune != "chunks=16,streams=4") {
				t.Errorf("32768x32768 case %s is not the pinned four-stream pipeline of 4 or 16 chunks a device", c.Name())
			}
		}
		want := []string{"0", "0,0"}
		if gpus == 2 {
			want = []string{"0", "0,0", "0,1"}
		}
		if got := slices.Sorted(func(yield func(string) bool) {
			for k := range seen {
				if !yield(k) {
					return
				}
			}
		}); !slices.Equal(got, want) {
			t.Errorf("%d GPUs: device lists %v, want %v", gpus, got, want)
		}
		// Per type and filter, on one GPU: 8192 total 2 mems x 2 streams,
		// resident on 0 and 0,0, pinned four-stream on 0,0, and 32768
		// total (4 and 16 chunks) and resident: 10.
		if gpus == 1 && len(ex.Cases) != 40 {
			t.Errorf("one GPU: %d cases, want 40 (2 types x 2 filters x 10)", len(ex.Cases))
		}
	}
	// An ordinal that is not present leaves its cases out with a note.
	pp, _ := BuildSweep("", Axes{Variants: []string{multiGPU}, GPUs: []string{"1"}})
	ex := pp.Expand(Env{GPU: true, GPUs: 1, Variants: convolve.Variants()})
	if len(ex.Cases) != 0 || !containsLine(ex.Notes, "device 1 is not present") {
		t.Errorf("gpus=1 on one GPU: %d cases, notes %q", len(ex.Cases), ex.Notes)
	}
	// A single-device variant refuses two devices.
	pp, _ = BuildSweep("", Axes{Variants: []string{"gpu-regtile"}, GPUs: []string{"0,0", "0"}})
	ex = pp.Expand(Env{GPU: true, GPUs: 1, Variants: convolve.Variants()})
	if len(ex.Cases) != 1 || ex.Cases[0].GPUs != "0" {
		t.Errorf("gpu-regtile on gpus 0,0 and 0: %d cases", len(ex.Cases))
	}
}

func TestParseGPUs(t *testing.T) {
	got, err := parseGPUs("0,0 all  0,1")
	if err != nil || !slices.Equal(got, []string{"0,0", "all", "0,1"}) {
		t.Errorf("parseGPUs = %v, %v", got, err)
	}
	for _, bad := range []string{"", "x", "0,-1", "0;1"} {
		if _, err := parseGPUs(bad); err == nil {
			t.Errorf("parseGPUs(%q) succeeded", bad)
		}
	}
	c := Case{Variant: multiGPU, GPUs: "0,0", GPU: true}
	if devs := c.Config().Devices; !slices.Equal(devs, []int{0, 0}) {
		t.Errorf("Config().Devices = %v", devs)
	}
}

// TestHostCopyBound checks the bound's arithmetic: an 8192x8192 f32
// image in and its f32 output back at 25 and 20 GB/s, the directions
// overlapped (the slower, D2H, sets the bound), shared by the links of
// distinct GPUs only.
func TestHostCopyBound(t *testing.T) {
	p := convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: 8192, Height: 8192, Channels: 1}, Filter: &convolve.Filter{Width: 1, Height: 1, Weights: []float32{1}}}
	bytes := 8192.0 * 8192 * 4
	want := time.Duration(bytes / 20 / 1e9 * 1e9)
	for _, tc := range []struct {
		devs  []int
		links float64
	}{{nil, 1}, {[]int{0}, 1}, {[]int{0, 0}, 1}, {[]int{0, 1}, 2}} {
		got := hostCopyBound(p, tc.devs, 25, 20, 0)
		if d := got - time.Duration(float64(want)/tc.links); d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("devices %v: bound %v, want %v", tc.devs, got, time.Duration(float64(want)/tc.links))
		}
	}
	if hostCopyBound(p, nil, 0, 20, 0) != 0 {
		t.Error("a bound without the H2D bandwidth")
	}
	// Both ways at once at 30 GB/s: 2 x 8192^2 x 4 bytes take longer than
	// the output alone at 20.
	if got, want := hostCopyBound(p, nil, 25, 20, 30), time.Duration(2*bytes/30); got-want < -time.Microsecond || got-want > time.Microsecond {
		t.Errorf("bound with the bidirectional bandwidth %v, want %v", got, want)
	}
}

// TestScalingEfficiency: a case on two GPUs after its gpus=0 counterpart
// carries T1 / (2 x T2); one without a counterpart, or on one device,
// carries none.
func TestScalingEfficiency(t *testing.T) {
	r := &Runner{}
	one := Case{Variant: multiGPU, Op: convolve.Filter2D, Width: 64, Height: 64, Filter: "gauss5", Timing: totalTiming, Mem: pinned, GPU: true, GPUs: "0"}
	two := one
	two.GPUs = "0,1"
	if _, ok := r.scaling(two, 60); ok {
		t.Error("an efficiency before the one-GPU case ran")
	}
	if _, ok := r.scaling(one, 100); ok {
		t.Error("an efficiency on one GPU")
	}
	if eff, ok := r.scaling(two, 60); !ok || eff != 100.0/120 {
		t.Errorf("efficiency %v, %v; want 100/(2x60)", eff, ok)
	}
	logical := one
	logical.GPUs = "0,0"
	if eff, ok := r.scaling(logical, 80); !ok || eff != 100.0/80 {
		t.Errorf("two logical devices of one GPU: efficiency %v, %v; want 100/(1x80)", eff, ok)
	}
}

func TestTimelineCase(t *testing.T) {
	p, _ := lookupPreset("004-multigpu")
	ex := p.Expand(Env{GPU: true, GPUs: 2, Pinned: true, Variants: convolve.Variants()})
	c, ok := timelineCase(ex.Cases)
	if !ok || c.GPUs != "0,1" || c.Width != 32768 || c.Filter != "gauss21" || c.Mem != pinned || c.Tune != "streams=4" {
		t.Errorf("timeline case %s, %v", c.Name(), ok)
	}
	if _, ok := timelineCase([]Case{{Variant: "gpu-tiled", GPU: true, Timing: totalTiming, Mem: pinned}}); ok {
		t.Error("a timeline case of a single-device variant")
	}
}

func TestConfigLinesHostCopy(t *testing.T) {
	h := Host{GPU: &GPUInfo{Name: "X", Count: 2, H2DGBps: 25.25, D2HGBps: 26.5}}
	lines := configLines(h, "s", 1, 0)
	for _, want := range []string{"gpu-count: 2", "# measured gpu-h2d-gbps: 25.2", "# measured gpu-d2h-gbps: 26.5"} {
		if !slices.Contains(lines, want) {
			t.Errorf("config lines %q lack %q", lines, want)
		}
	}
}

// TestMemCapFlag: -mem-cap gives the slab cases the cap as their
// memcap-kib tunable and leaves other variants' cases as they were.
func TestMemCapFlag(t *testing.T) {
	var a Axes
	for _, f := range AxisFlags() {
		if f.Name == "mem-cap" {
			if err := f.Apply(&a, "64MiB"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a.MemCap != 64<<20 {
		t.Fatalf("-mem-cap 64MiB: %d bytes", a.MemCap)
	}
	a.Variants = []string{multiGPU, "gpu-regtile"}
	pp, _ := BuildSweep("", a)
	ex := pp.Expand(Env{GPU: true, GPUs: 1, Variants: convolve.Variants()})
	for _, c := range ex.Cases {
		if got := strings.Contains(c.Tune, "memcap-kib=65536"); got != (c.Variant == multiGPU) {
			t.Errorf("case %s: tune %q", c.Name(), c.Tune)
		}
	}
	if len(ex.Cases) != 2 {
		t.Errorf("%d cases", len(ex.Cases))
	}
	for _, bad := range []string{"1000", "x", "0KiB", "-5MiB"} {
		if _, err := parseBytes(bad); err == nil {
			t.Errorf("parseBytes(%q) succeeded", bad)
		}
	}
}
