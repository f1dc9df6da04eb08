package benchmarks

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// fakeCompileCache stands in for the NVRTC compile cache and its
// counters: a plan of a compiling variant compiles its one kernel while
// the cache is bypassed or before it holds the kernel, and hits it after.
type fakeCompileCache struct {
	mu       sync.Mutex
	stats    cudabind.CacheStats
	bypassed int
	held     bool
	// leaky serves hits while bypassed: a bypass that does not work.
	leaky bool
}

func (f *fakeCompileCache) read() cudabind.CacheStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

func (f *fakeCompileCache) bypass() func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bypassed++
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.bypassed--
	}
}

// compile is what one plan of a compiling variant does to the cache.
func (f *fakeCompileCache) compile() {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.bypassed > 0 && !f.leaky:
		f.stats.Misses++
		f.stats.Bypassed++
	case f.held:
		f.stats.MemoryHits++
	default:
		f.stats.Misses++
		f.held = true
	}
}

// useFakeCompileCache makes the runner read and bypass f for the rest of
// the test.
func useFakeCompileCache(t *testing.T, f *fakeCompileCache) {
	read, bypass := readCompileStats, bypassCompileCache
	readCompileStats, bypassCompileCache = f.read, f.bypass
	t.Cleanup(func() { readCompileStats, bypassCompileCache = read, bypass })
}

// compilingVariant is cpu-naive dressed as a GPU variant whose plans
// compile through cache (none when cache is nil, as the cuDNN peers').
type compilingVariant struct {
	convolve.Variant
	cache *fakeCompileCache
}

func (v compilingVariant) Describe() convolve.Description {
	d := v.Variant.Describe()
	d.Name, d.Caps.GPU = "gpu-fake", true
	return d
}

func (v compilingVariant) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	if v.cache != nil {
		v.cache.compile()
	}
	return v.Variant.Plan(p, cfg)
}

// noDevice is a Device for cases that never touch it.
type noDevice struct{}

func (noDevice) FlushL2() error { return errors.New("no device") }
func (noDevice) NewPinnedImage(convolve.Geometry) (*convolve.Image, func() error, error) {
	return nil, nil, errors.New("no device")
}

// A plan-timing case times plans: a cold one compiles every plan with the
// caches bypassed, a warm one hits them, and each line says how many
// compiles and hits a plan had (compiles/op, cache-hits/op) and reports
// ns/op alone for its time, unwatched by the clock guard (whose clock here
// is always throttled). A cold plan that hits the cache fails the case; a
// cold plan that compiles nothing skips it.
func TestRunnerPlanTiming(t *testing.T) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		cache        Cache
		fake         *fakeCompileCache // nil: the plan compiles nothing
		wantCompiles float64
		wantHits     float64
		wantErr      string // the case's error, which fails or skips it
	}{
		{name: "cold", cache: Cold, fake: &fakeCompileCache{}, wantCompiles: 1},
		{name: "cold, cached before", cache: Cold, fake: &fakeCompileCache{held: true}, wantCompiles: 1},
		{name: "warm", cache: Hot, fake: &fakeCompileCache{}, wantHits: 1},
		{name: "warm, nothing compiled", cache: Hot},
		{name: "cold, the bypass leaks", cache: Cold, fake: &fakeCompileCache{held: true, leaky: true},
			wantErr: "a cold plan hit the compile cache 1 times with the caches bypassed"},
		{name: "cold, nothing compiled", cache: Cold, wantErr: errNoCompile.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := tt.fake
			if fake == nil {
				fake = &fakeCompileCache{} // the variant never compiles through it
			}
			useFakeCompileCache(t, fake)
			v := compilingVariant{Variant: naive, cache: tt.fake}
			c := Case{Variant: "gpu-fake", Op: convolve.Filter2D, Width: 32, Height: 24, Filter: "gauss3", Channels: 1,
				Cache: tt.cache, Timing: planTiming, GPU: true}
			want := "variant=gpu-fake/size=32x24/filter=gauss3/k=3/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=" +
				string(tt.cache) + "/timing=plan/mem=none/opts=default"
			if c.Name() != want {
				t.Errorf("name %s, want %s", c.Name(), want)
			}
			var progress strings.Builder
			r := &Runner{Device: noDevice{}, Seed: 1, Noise: quickNoise, Progress: newProgress(&progress, "test", 1, nowForTest()),
				Guard:  &ClockGuard{Clocks: &fakeClocks{mhz: []int{100}}, MaxMHz: 1980, MaxRetakes: 3},
				Lookup: func(string) (convolve.Variant, error) { return v, nil }}
			res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
			caseErr := r.cur.err
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" {
				if caseErr == nil || !strings.Contains(caseErr.Error(), tt.wantErr) || res.N != 0 {
					t.Errorf("case error %v, result %+v; want an error containing %q and no result", caseErr, res, tt.wantErr)
				}
				return
			}
			if caseErr != nil || res.N == 0 {
				t.Fatalf("the case did not run: %v\n%s", caseErr, progress.String())
			}
			if res.Extra["compiles/op"] != tt.wantCompiles || res.Extra["cache-hits/op"] != tt.wantHits {
				t.Errorf("compiles/op %v, cache-hits/op %v; want %v, %v", res.Extra["compiles/op"], res.Extra["cache-hits/op"], tt.wantCompiles, tt.wantHits)
			}
			if res.Extra["samples"] < MinCISamples || res.T <= 0 {
				t.Errorf("samples %v, time %v", res.Extra["samples"], res.T)
			}
			for _, unit := range []string{"gpu-ns/op", "MPix/s", "GB/s", "throttled-samples", "sm-mhz-start"} {
				if _, ok := res.Extra[unit]; ok {
					t.Errorf("a plan-timing case reports %s", unit)
				}
			}
			if !strings.Contains(progress.String(), "NVRTC compiles") {
				t.Errorf("progress lacks the plans' compile counts:\n%s", progress.String())
			}
			if fake.bypassed != 0 {
				t.Errorf("%d bypasses left in effect", fake.bypassed)
			}
		})
	}
}

// timePlans checks every plan it times against the compile-cache
// counters: a cold plan must compile and hit nothing (a plan that compiles
// nothing is errNoCompile), a warm one must not compile.
func TestTimePlansErrors(t *testing.T) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Case{Op: convolve.Filter2D, Width: 16, Height: 8, Filter: "gauss3", Channels: 1}.Problem()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		fake    *fakeCompileCache
		compile bool
		cold    bool
		want    string
	}{
		{"cold, compiled", &fakeCompileCache{held: true}, true, true, ""},
		{"cold, hit", &fakeCompileCache{held: true, leaky: true}, true, true, "a cold plan hit the compile cache 1 times"},
		{"cold, nothing compiled", &fakeCompileCache{}, false, true, errNoCompile.Error()},
		{"warm, hit", &fakeCompileCache{held: true}, true, false, ""},
		{"warm, compiled", &fakeCompileCache{}, true, false, "a warm plan compiled 1 kernels with NVRTC"},
		{"warm, nothing compiled", &fakeCompileCache{}, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useFakeCompileCache(t, tt.fake)
			v := compilingVariant{Variant: naive}
			if tt.compile {
				v.cache = tt.fake
			}
			s := &caseState{prob: p, variant: v}
			d, err := s.timePlans(tt.cold, 3)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("timePlans: %v", err)
			case tt.want == "" && d <= 0:
				t.Errorf("timePlans took %v", d)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("timePlans: %v, want an error containing %q", err, tt.want)
			}
			if tt.want == errNoCompile.Error() && !errors.Is(err, errNoCompile) {
				t.Errorf("timePlans: %v is not errNoCompile", err)
			}
			if tt.fake.bypassed != 0 {
				t.Errorf("%d bypasses left in effect", tt.fake.bypassed)
			}
		})
	}
}

// On a GPU, a cold plan of a real family compiles its kernels with NVRTC
// with the caches bypassed, every time, and a warm one compiles nothing.
func TestGPUPlanTiming(t *testing.T) {
	h := gpuHost(t)
	for _, cache := range []Cache{Cold, Hot} {
		c := Case{Variant: "gpu-regtile", Op: convolve.Filter2D, Width: 256, Height: 256, Filter: "gauss5", Channels: 1,
			Cache: cache, Timing: planTiming, GPU: true}
		r := &Runner{Device: h.Device, Peaks: h.Peaks(), Noise: quickNoise, Guard: h.Guard}
		before := cudabind.ReadCacheStats()
		res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
		plans := r.cur.plans
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		after := cudabind.ReadCacheStats()
		if res.N == 0 || res.T <= 0 || res.Extra["samples"] < MinCISamples {
			t.Fatalf("%s: did not run: %+v", c.Name(), res)
		}
		compiles, hits := res.Extra["compiles/op"], res.Extra["cache-hits/op"]
		switch {
		case cache == Cold && (compiles < 1 || hits != 0 || after.Bypassed-before.Bypassed < plans):
			t.Errorf("%s: compiles/op %v, cache-hits/op %v, %d bypassed compiles for %d plans; want every plan compiled, none hit",
				c.Name(), compiles, hits, after.Bypassed-before.Bypassed, plans)
		case cache == Hot && (compiles != 0 || hits < 1):
			t.Errorf("%s: compiles/op %v, cache-hits/op %v; want none compiled, every plan hit", c.Name(), compiles, hits)
		}
		t.Logf("%s: %v per plan, %v", c.Name(), time.Duration(res.Extra["ns/op"]), res.Extra)
	}
}

// Preset plan times a warm and a cold plan of every registered GPU family
// that compiles with NVRTC, each on one problem it runs; the default
// preset times gpu-regtile's alone, so that it grows by two cases.
func TestPlanPresets(t *testing.T) {
	env := Env{GPU: true, GPUs: 1, Pinned: true, Variants: convolve.Variants()}
	plans := func(preset string) map[string][]Cache {
		p, err := lookupPreset(preset)
		if err != nil {
			t.Fatal(err)
		}
		ex := p.Expand(env)
		byVariant := map[string][]Cache{}
		for _, c := range ex.Cases {
			if c.Timing == planTiming {
				byVariant[c.Variant] = append(byVariant[c.Variant], c.Cache)
			}
		}
		return byVariant
	}
	got := plans("plan")
	for _, v := range convolve.Variants() {
		d := v.Describe()
		// Not the wrappers, the peers that compile nothing, auto-bf16
		// (auto's choice over more paths) or the user kernels other
		// tests register.
		left := slices.ContainsFunc([]string{"gpu-slab", "gpu-stream", "cudnn", "user-"}, func(p string) bool { return strings.HasPrefix(d.Name, p) }) ||
			d.Name == "npp-interior" || d.Name == "auto-bf16"
		want := d.Caps.GPU && !left
		if caches := got[d.Name]; want != (len(caches) > 0) || want && !slices.Equal(caches, []Cache{Hot, Cold}) {
			t.Errorf("preset plan: %s has plans %v; want warm and cold %v", d.Name, caches, want)
		}
	}
	if def := plans("default"); len(def) != 1 || !slices.Equal(def["gpu-regtile"], []Cache{Hot, Cold}) {
		t.Errorf("preset default: plans %v, want gpu-regtile's warm and cold", def)
	}
}
