package variants

import (
	"errors"
	"sync"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// WarmSpec is one plan a run is about to make: the variant, the problem
// and the configuration.
type WarmSpec struct {
	Variant convolve.Variant
	Problem convolve.Problem
	Config  convolve.Config
}

// warmSide is the largest image side Warm plans with. A kernel's
// specialization (Defines) depends on the filter size, block, border,
// element type, channels and layout, not on the image size, so a small
// image compiles the same module.
const warmSide = 16

// WarmStats counts what Warm did.
type WarmStats struct {
	Planned int // plans made and closed
	Failed  int // plans refused (capabilities, compile errors): the real run reports them
}

// Warm compiles the kernels of specs on up to workers goroutines before
// they are needed: it plans each GPU spec on an image of at most
// warmSide x warmSide with the same specialization and closes the plan at
// once, so that the real plans, made one at a time, find their modules in
// the compile cache. NVRTC runs on the calling goroutines, so compiles
// overlap. Specs of CPU variants are skipped. Failures are counted, not
// returned: the plan of the real problem meets and reports them. Warm
// stops at once, returning the error, when no GPU is usable. progress,
// when not nil, is called after each spec with the count done.
func Warm(specs []WarmSpec, workers int, progress func(done, total int)) (WarmStats, error) {
	var gpu []WarmSpec
	for _, s := range specs {
		if s.Variant != nil && s.Variant.Describe().Caps.GPU {
			gpu = append(gpu, s)
		}
	}
	var stats WarmStats
	if len(gpu) == 0 {
		return stats, nil
	}
	var mu sync.Mutex // guards stats and the progress calls
	record := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			stats.Failed++
		} else {
			stats.Planned++
		}
		if progress != nil {
			progress(stats.Planned+stats.Failed, len(gpu))
		}
	}
	// The first plan also opens the device: fail fast without one.
	err := warmOne(gpu[0])
	var ue *cudabind.UnavailableError
	if errors.As(err, &ue) {
		return stats, err
	}
	record(err)
	next := make(chan WarmSpec)
	var wg sync.WaitGroup
	for range max(1, min(workers, len(gpu)-1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				record(warmOne(s))
			}
		}()
	}
	for _, s := range gpu[1:] {
		next <- s
	}
	close(next)
	wg.Wait()
	return stats, nil
}

// WarmPlan plans v for p under cfg on an image of at most warmSide x
// warmSide with the same specialization and closes the plan at once, so
// that a plan of p made later finds its modules in the compile cache: what
// Warm does for one spec. A variant with a tuning space gets the block and
// tunables its plan of p would take (SettledConfig), which the small image
// alone could change. It returns the plan's error: a
// *cudabind.UnavailableError without a GPU.
func WarmPlan(v convolve.Variant, p convolve.Problem, cfg convolve.Config) error {
	if vv, ok := v.(*Variant); ok && vv.Desc.Caps.Space != nil {
		if d, err := cudabind.Default(); err == nil {
			cfg = SettledConfig(vv, p, cfg, d.Info())
		}
	}
	p.Input.Width = min(p.Input.Width, warmSide)
	p.Input.Height = min(p.Input.Height, warmSide)
	p.Input.Stride = 0
	pl, err := convolve.PlanFor(v, p, cfg)
	if err != nil {
		return err
	}
	return pl.Close()
}

// warmOne is WarmPlan of s.
func warmOne(s WarmSpec) error { return WarmPlan(s.Variant, s.Problem, s.Config) }

// defaultLiveAllocations is the default device's count of live
// allocations, or its *cudabind.UnavailableError.
func defaultLiveAllocations() (int, error) {
	d, err := cudabind.Default()
	if err != nil {
		return 0, err
	}
	return d.LiveAllocations(), nil
}

// Warm compiles the kernels a plan of p under cfg will need (WarmPlan).
// With LiveAllocations and ReleaseDevice it makes every variant of the
// package, user kernels included, one the property suite warms, checks
// for leaked device allocations and lets release a poisoned device
// (convtest.Warmer, convtest.AllocationCounter, convtest.DeviceReleaser);
// the package's other variant types have the same three methods.
func (v *Variant) Warm(p convolve.Problem, cfg convolve.Config) error { return WarmPlan(v, p, cfg) }

// LiveAllocations is the default device's count of live allocations, or
// its *cudabind.UnavailableError.
func (v *Variant) LiveAllocations() (int, error) { return defaultLiveAllocations() }

// ReleaseDevice resets the device contexts of this process that a sticky
// error poisoned (ReleaseFaulted), so that child processes can use the
// GPU while this one lives (convtest.DeviceReleaser).
func (v *Variant) ReleaseDevice() error { return ReleaseFaulted() }

// ReleaseFaulted resets every device context of this process that a
// sticky error poisoned (cudabind.ResetFaulted). The GPU variants of
// other packages release their devices with it.
func ReleaseFaulted() error {
	_, err := cudabind.ResetFaulted()
	return err
}

func (v *loopVariant) Warm(p convolve.Problem, cfg convolve.Config) error { return WarmPlan(v, p, cfg) }
func (v *loopVariant) LiveAllocations() (int, error)                      { return defaultLiveAllocations() }
func (v *loopVariant) ReleaseDevice() error                               { return ReleaseFaulted() }

func (v *cudnnPeer) Warm(p convolve.Problem, cfg convolve.Config) error { return WarmPlan(v, p, cfg) }
func (v *cudnnPeer) LiveAllocations() (int, error)                      { return defaultLiveAllocations() }
func (v *cudnnPeer) ReleaseDevice() error                               { return ReleaseFaulted() }

func (v nppInterior) Warm(p convolve.Problem, cfg convolve.Config) error { return WarmPlan(v, p, cfg) }
func (v nppInterior) LiveAllocations() (int, error)                      { return defaultLiveAllocations() }
func (v nppInterior) ReleaseDevice() error                               { return ReleaseFaulted() }

func (v *yuvVariant) Warm(p convolve.Problem, cfg convolve.Config) error { return WarmPlan(v, p, cfg) }
func (v *yuvVariant) LiveAllocations() (int, error)                      { return defaultLiveAllocations() }
func (v *yuvVariant) ReleaseDevice() error                               { return ReleaseFaulted() }
