package benchmarks

import (
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

func TestCaseName(t *testing.T) {
	tests := []struct {
		c    Case
		want string
	}{
		{Case{Variant: "gpu-shared", Op: convolve.Filter2D, Width: 2048, Height: 2048, Filter: "gauss5",
			Block: convolve.Block{X: 32, Y: 8}, Channels: 1, Cache: Hot, Timing: KernelTiming, GPU: true},
			"variant=gpu-shared/size=2048x2048/filter=gauss5/k=5/block=32x8/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default"},
		{Case{Variant: "cpu-naive", Op: convolve.Filter2D, Width: 1000, Height: 10000, Filter: "box11",
			Type: convolve.Int16, Channels: 3, Layout: convolve.Planar, Cache: Hot, Timing: CPUTiming},
			"variant=cpu-naive/size=1000x10000/filter=box11/k=11/block=none/border=zero/type=i16/ch=3/layout=planar/cache=hot/timing=cpu/mem=none"},
		{Case{Variant: "gpu-rgb2yuv", Op: convolve.RGBToYUV, Width: 1024, Height: 1024, Type: convolve.Uint8,
			Channels: 3, Cache: Hot, Timing: totalTiming, Mem: pinned, GPU: true},
			"variant=gpu-rgb2yuv/size=1024x1024/filter=rgb2yuv/k=1/block=default/border=zero/type=u8/ch=3/layout=interleaved/cache=hot/timing=total/mem=pinned/opts=default"},
		{Case{Variant: "gpu-sobel", Op: convolve.SobelMagnitude, Width: 64, Height: 32, Type: convolve.Uint8,
			Channels: 1, Cache: Cold, Timing: KernelTiming, GPU: true, Block: convolve.Block{X: 16, Y: 16}},
			"variant=gpu-sobel/size=64x32/filter=sobel-mag/k=3/block=16x16/border=zero/type=u8/ch=1/layout=interleaved/cache=cold/timing=kernel/mem=none/opts=default"},
		{Case{Variant: "gpu-naive", Op: convolve.Filter2D, Width: 1024, Height: 1024, Filter: "box25",
			Block: convolve.Block{X: 32, Y: 32}, Channels: 1, Cache: Hot, Timing: KernelTiming, Opts: noFMA, GPU: true},
			"variant=gpu-naive/size=1024x1024/filter=box25/k=25/block=32x32/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=nofma"},
		{Case{Variant: "gpu-const", Op: convolve.Filter2D, Width: 1024, Height: 1024, Filter: "box3",
			Channels: 1, Cache: Hot, Timing: KernelTiming, Opts: fastMath, GPU: true},
			"variant=gpu-const/size=1024x1024/filter=box3/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=fast-math"},
		// A CPU case names no compile options whatever Opts holds: its
		// name has no opts key, as names stored before the key existed.
		{Case{Variant: "cpu-fast", Op: convolve.Filter2D, Width: 8, Height: 8, Filter: "box3",
			Channels: 1, Cache: Hot, Timing: CPUTiming, Opts: noFMA},
			"variant=cpu-fast/size=8x8/filter=box3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"},
	}
	for _, tt := range tests {
		if got := tt.c.Name(); got != tt.want {
			t.Errorf("Name() =\n %s\nwant\n %s", got, tt.want)
		}
		kv, err := runfile.Parse("BenchmarkConv/" + tt.want)
		if err != nil {
			t.Fatalf("runfile.Parse(%q): %v", tt.want, err)
		}
		if kv["variant"] != tt.c.Variant || kv["ch"] == "" || kv["mem"] == "" || kv["opts"] != tt.c.optsKey() {
			t.Errorf("runfile.Parse(%q) = %v", tt.want, kv)
		}
		if len(kv) != len(runfile.Keys()) {
			t.Errorf("runfile.Parse(%q): %d keys, want %d", tt.want, len(kv), len(runfile.Keys()))
		}
	}
}

func TestCaseConfig(t *testing.T) {
	tests := []struct {
		opts            Opts
		noFMA, fastMath bool
	}{{defaultOpts, false, false}, {noFMA, true, false}, {fastMath, false, true}}
	for _, tt := range tests {
		c := Case{Variant: "gpu-naive", Block: convolve.Block{X: 8, Y: 4}, Opts: tt.opts, GPU: true}
		cfg := c.Config()
		if cfg.NoFMA != tt.noFMA || cfg.FastMath != tt.fastMath || cfg.Block != c.Block {
			t.Errorf("opts %q: Config() = %+v", tt.opts, cfg)
		}
	}
}

func TestCaseProblemAndWork(t *testing.T) {
	c := Case{Variant: "cpu-naive", Op: convolve.Filter2D, Width: 100, Height: 50, Filter: "box7", Channels: 3, Type: convolve.Int16, Layout: convolve.Planar}
	p, err := c.Problem()
	if err != nil {
		t.Fatal(err)
	}
	if p.Filter.Width != 7 || p.Input.Channels != 3 || p.Input.Type != convolve.Int16 || p.Input.Layout != convolve.Planar {
		t.Errorf("Problem() = %v", p)
	}
	if got, want := c.Work(), int64(100*50*3*49); got != want {
		t.Errorf("Work() = %d, want %d", got, want)
	}
	bad := c
	bad.Filter = "gauss4"
	if _, err := bad.Problem(); err == nil {
		t.Errorf("Problem() with filter gauss4: no error")
	}
}

func TestTuneInName(t *testing.T) {
	c := Case{Variant: "gpu-sobel", Op: convolve.SobelMagnitude, Width: 1024, Height: 1024, Type: convolve.Uint8, Channels: 1,
		Cache: Hot, Timing: KernelTiming, GPU: true, Tune: "shared=1"}
	const want = "variant=gpu-sobel/size=1024x1024/filter=sobel-mag/k=3/block=default/border=zero/type=u8/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/tune=shared=1"
	if got := c.Name(); got != want {
		t.Errorf("Name() =\n %s\nwant\n %s", got, want)
	}
	kv, err := runfile.Parse(want)
	if err != nil || kv["tune"] != "shared=1" {
		t.Errorf("Parse: tune %q, err %v", kv["tune"], err)
	}
	if got := c.Config().Tunables; len(got) != 1 || got["shared"] != 1 {
		t.Errorf("Config().Tunables = %v, want shared=1", got)
	}
	// Without a tunable the name is what it was before the key existed.
	c.Tune = ""
	name := c.Name()
	if strings.Contains(name, "tune=") {
		t.Errorf("Name() of a case with no tunable carries tune: %s", name)
	}
	if kv, _ := runfile.Parse(name); kv["tune"] != "default" {
		t.Errorf("runfile.Parse(%s): tune %q, want default", name, kv["tune"])
	}
	if c.Config().Tunables != nil {
		t.Errorf("Config().Tunables of a case with no tunable = %v", c.Config().Tunables)
	}
}

// TestTunedVsDefaultPreset: preset tuned-vs-default pairs every case
// planned from the tuning table (no tune key) with one on the family's
// defaults (tune=untuned, convolve.Config.Untuned).
func TestTunedVsDefaultPreset(t *testing.T) {
	p, err := lookupPreset("tuned-vs-default")
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Expand(Env{GPU: true, Variants: convolve.Variants()})
	tuned, untuned := map[string]bool{}, map[string]bool{}
	for _, c := range ex.Cases {
		key := c.Variant + " " + c.Filter
		switch c.Tune {
		case "":
			tuned[key] = true
			if c.Config().Untuned {
				t.Errorf("%s: Untuned without tune=untuned", c.Name())
			}
		case tuneUntuned:
			untuned[key] = true
			if !c.Config().Untuned || !strings.HasSuffix(c.Name(), "/tune=untuned") {
				t.Errorf("%s: config %v", c.Name(), c.Config())
			}
		default:
			t.Errorf("%s: tune %q", c.Name(), c.Tune)
		}
	}
	if len(tuned) != 14 || len(untuned) != 14 {
		t.Errorf("%d tuned and %d untuned cases, want 14 of each (2 variants x 5 dense K, gpu-sepfused x 4 Gaussian K)", len(tuned), len(untuned))
	}
	for k := range tuned {
		if !untuned[k] {
			t.Errorf("%s has no untuned twin", k)
		}
	}
}
