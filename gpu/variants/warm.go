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

// WarmSide is the largest image side Warm plans with. A kernel's
// specialization (Defines) depends on the filter size, block, border,
// element type, channels and layout, not on the image size, so a small
// image compiles the same module.
const WarmSide = 16

// WarmStats counts what Warm did.
type WarmStats struct {
	Planned int // plans made and closed
	Failed  int // plans refused (capabilities, compile errors): the real run reports them
}

// Warm compiles the kernels of specs on up to workers goroutines before
// they are needed: it plans each GPU spec on an image of at most
// WarmSide x WarmSide with the same specialization and closes the plan at
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

// warmOne plans s on a small image and closes the plan. A variant with a
// tuning space gets the block and tunables its plan of the real problem
// would take (SettledConfig), which the small image alone could change.
func warmOne(s WarmSpec) error {
	cfg := s.Config
	if v, ok := s.Variant.(*Variant); ok && v.Desc.Caps.Space != nil {
		if d, err := cudabind.Default(); err == nil {
			cfg = SettledConfig(v, s.Problem, cfg, d.Info())
		}
	}
	p := s.Problem
	p.Input.Width = min(p.Input.Width, WarmSide)
	p.Input.Height = min(p.Input.Height, WarmSide)
	p.Input.Stride = 0
	pl, err := convolve.PlanFor(s.Variant, p, cfg)
	if err != nil {
		return err
	}
	return pl.Close()
}
