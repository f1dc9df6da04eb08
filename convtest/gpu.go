package convtest

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/gpu/variants"
)

// liveAllocations is the default device's count of live allocations for
// the checks of a GPU variant, or false for a CPU variant (whose checks
// run beside GPU ones and must not count their allocations) or when there
// is no device.
func (e *env) liveAllocations() (int, bool) {
	if !e.desc.Caps.GPU {
		return 0, false
	}
	dev, err := cudabind.Default()
	if err != nil {
		return 0, false
	}
	return dev.LiveAllocations(), true
}

// deviceUse orders the checks of GPU variants tested at once, in parallel
// tests of one process: a check that compares the device's live
// allocations before and after holds it alone, every other check of a GPU
// variant shares it.
var deviceUse sync.RWMutex

// shared takes deviceUse for a check of e that may run beside others and
// returns its release; it takes nothing for a CPU variant.
func (e *env) shared() (unlock func()) { return useDevice(e.desc.Caps.GPU, false) }

// exclusive takes deviceUse for a check of e that counts the device's
// live allocations and returns its release; it takes nothing for a CPU
// variant.
func (e *env) exclusive() (unlock func()) { return useDevice(e.desc.Caps.GPU, true) }

// useDevice takes deviceUse, alone or shared, when gpu is set, and
// returns its release. Everything a GPU variant's test allocates on the
// device happens under it: warming, probing, every check.
func useDevice(gpu, alone bool) (unlock func()) {
	switch {
	case !gpu:
		return func() {}
	case alone:
		deviceUse.Lock()
		return deviceUse.Unlock
	}
	deviceUse.RLock()
	return deviceUse.RUnlock
}

// unavailable returns the reason CUDA cannot run here, when err says so.
func unavailable(err error) (string, bool) {
	var ua *cudabind.UnavailableError
	if errors.As(err, &ua) {
		return ua.Error(), true
	}
	return "", false
}

// warmed records the GPU variants (by name and seed) whose kernels are
// compiled already.
var warmed sync.Map

// warmGPU compiles, on every core, the kernels GPU variant v will need
// for seed: its specialization pool, the specializations the properties'
// fixes make of it, and the adapted edge-case table. Plans made later, one
// at a time, then find their modules in the compile cache. It does nothing
// for a CPU variant or without a GPU.
func warmGPU(t *testing.T, v convolve.Variant, seed int64) {
	d := v.Describe()
	if !d.Caps.GPU {
		return
	}
	if _, done := warmed.LoadOrStore(fmt.Sprintf("%s\x00%d", d.Name, seed), true); done {
		return
	}
	var specs []variants.WarmSpec
	add := func(c testCase) {
		p, err := c.Problem()
		if err == nil {
			specs = append(specs, variants.WarmSpec{Variant: v, Problem: p, Config: c.Config()})
		}
	}
	for _, c := range specPool(d.Caps, derivedSeed(seed, d.Name, "pool")) {
		add(c)
		// The specializations the properties' fixes make of it
		// (another element type, border or compile option).
		for _, pr := range properties {
			if pr.fix != nil {
				if f := pr.fix(newDomain(d.Caps, pr, nil), c).normalize(); f != c {
					add(f)
				}
			}
		}
	}
	cases, _ := edgeCasesFor(d.Caps)
	for _, c := range cases {
		add(c)
	}
	start := time.Now()
	unlock := useDevice(true, false)
	stats, err := variants.Warm(specs, runtime.NumCPU(), nil)
	unlock()
	if _, ok := unavailable(err); ok || len(specs) == 0 {
		return
	}
	t.Logf("precompiled the kernels of %d specializations of %s on %d workers in %v (%d refused at plan time)",
		stats.Planned, d.Name, runtime.NumCPU(), time.Since(start).Round(time.Millisecond), stats.Failed)
}
