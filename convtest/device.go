package convtest

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

// Warmer is a GPU variant that prepares ahead what its plans will need,
// as it compiles their kernels. Before the first case of a variant that
// declares a GPU (Capabilities.GPU) and is a Warmer, TestVariant warms
// every specialization the run will plan (the pool drawn from the seed,
// the specializations the properties' fixes make of it and the edge-case
// table) on all cores, so that the plans, made one at a time, find what
// they need ready. Other variants are planned as their cases come.
type Warmer interface {
	convolve.Variant
	// Warm prepares what a plan of p under cfg will need and releases
	// anything else it made. It may be called from several goroutines at
	// once. An error that is or wraps an UnavailableError says the
	// hardware is absent and ends the warming; any other error is that
	// of a plan the checks will meet and report.
	Warm(p convolve.Problem, cfg convolve.Config) error
}

// AllocationCounter is a GPU variant that counts the allocations live on
// the device its plans allocate on. For a variant that declares a GPU
// (Capabilities.GPU) and is an AllocationCounter, TestVariant checks
// that planning, running, a rejected run and closing leave that count
// where it was (property no-leak and the bad-input checks). The checks
// of other variants count their open plans only.
type AllocationCounter interface {
	convolve.Variant
	// LiveAllocations returns the number of allocations live on the
	// device the variant's plans use, or an error when that device cannot
	// be used (the count is then not checked).
	LiveAllocations() (int, error)
}

// DeviceReleaser is a GPU variant that can give up what this process
// holds on its GPUs once a sticky error has made them unusable here. A
// GPU may run no other process's work while a process holds a context a
// fault poisoned, and the checks of the shrink candidates that follow
// such an error run in child processes: before the first of them, the
// checks call ReleaseDevice of a variant that is a DeviceReleaser, once.
type DeviceReleaser interface {
	convolve.Variant
	// ReleaseDevice releases this process's poisoned device contexts.
	// The variant's device is not used again in this process.
	ReleaseDevice() error
}

// OutputPoisoner is a plan that computes into an output buffer of its own
// (a GPU plan's device memory) and copies that buffer into Run's out. The
// checks fill a run's out with a poison (NaN for float32) to find the
// elements a variant leaves unwritten; Run's copy would overwrite that
// poison with whatever the plan's buffer held. Before each checked run of
// a plan that is an OutputPoisoner, the checks ask it to fill its buffer
// with the same poison, so that an element the run does not write comes
// back as the poison. An error that is or wraps errors.ErrUnsupported
// leaves the buffer as it is (the poison cannot be set there); any other
// fails the case.
type OutputPoisoner interface {
	convolve.Plan
	// PoisonOutput fills the plan's own output buffer with v in the
	// output's element type.
	PoisonOutput(v float64) error
}

// UnavailableError is an error saying that the hardware or a library a
// variant needs is absent on this machine, such as cudabind's
// *UnavailableError. When the first plan TestVariant makes of a variant
// that declares a GPU fails with an error that is or wraps one whose
// Unavailable method reports true, the test skips with its message
// instead of failing.
type UnavailableError interface {
	error
	Unavailable() bool
}

// unavailable returns the message of the UnavailableError err is or
// wraps, when there is one that reports true.
func unavailable(err error) (string, bool) {
	var ue UnavailableError
	if errors.As(err, &ue) && ue.Unavailable() {
		return ue.Error(), true
	}
	return "", false
}

// liveAllocations is the live allocations on the device of e's variant,
// or false when it counts none: it declares no GPU (its checks run beside
// GPU ones and must not count their allocations), is not an
// AllocationCounter, or its device cannot be used.
func (e *env) liveAllocations() (int, bool) {
	c, ok := e.variant.(AllocationCounter)
	if !ok || !e.desc.Caps.GPU {
		return 0, false
	}
	n, err := c.LiveAllocations()
	if err != nil {
		return 0, false
	}
	return n, true
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

// warmed records the GPU variants (by name and seed) already warmed.
var warmed sync.Map

// warmVariant compiles, on every core, the kernels GPU variant v will
// need for seed: its specialization pool, the specializations the
// properties' fixes make of it, and the adapted edge-case table. Plans
// made later, one at a time, then find their modules in the compile
// cache. It does nothing for a CPU variant or one that is not a Warmer,
// or on a machine without the hardware v needs.
func warmVariant(t *testing.T, v convolve.Variant, o Options) {
	w, ok := v.(Warmer)
	d := v.Describe()
	if !ok || !d.Caps.GPU {
		return
	}
	seed := o.Seed
	if _, done := warmed.LoadOrStore(fmt.Sprintf("%s\x00%d\x00%d", d.Name, seed, o.Pool), true); done {
		return
	}
	var specs []testCase
	add := func(c testCase) {
		if _, err := c.Problem(); err == nil {
			specs = append(specs, c)
		}
	}
	r := newRule(v)
	for _, c := range variantPool(&env{name: d.Name, variant: v, desc: d, rule: r, poolSize: o.Pool}, derivedSeed(seed, d.Name, "pool")) {
		add(c)
		// The specializations the properties' fixes make of it
		// (another element type, border or compile option).
		for _, pr := range properties {
			if pr.fix != nil {
				if f := pr.fix(newDomain(d.Caps, pr, nil), c).normalize(); f != c && r.check(f) == nil {
					add(f)
				}
			}
		}
	}
	cases, _ := edgeCasesFor(d.Caps, r)
	for _, c := range cases {
		add(c)
	}
	if len(specs) == 0 {
		return
	}
	start := time.Now()
	unlock := useDevice(true, false)
	warm, refused, err := warmAll(w, specs, runtime.NumCPU())
	unlock()
	if _, ok := unavailable(err); ok {
		return
	}
	t.Logf("precompiled the kernels of %d specializations of %s on %d workers in %v (%d refused at plan time)",
		warm, d.Name, runtime.NumCPU(), time.Since(start).Round(time.Millisecond), refused)
}

// warmAll calls w.Warm on every case of specs, on up to workers
// goroutines, and counts the cases warmed and refused. The first case
// runs alone: when it finds the hardware absent (an UnavailableError),
// warmAll returns that error at once.
func warmAll(w Warmer, specs []testCase, workers int) (warm, refused int, err error) {
	if len(specs) == 0 {
		return 0, 0, nil
	}
	var mu sync.Mutex // guards warm and refused
	record := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			refused++
		} else {
			warm++
		}
	}
	warmOne := func(c testCase) error {
		p, err := c.Problem()
		if err != nil {
			return err
		}
		return w.Warm(p, c.Config())
	}
	err = warmOne(specs[0])
	if _, ok := unavailable(err); ok {
		return 0, 0, err
	}
	record(err)
	next := make(chan testCase)
	var wg sync.WaitGroup
	for range max(1, min(workers, len(specs)-1)) {
		wg.Go(func() {
			for c := range next {
				record(warmOne(c))
			}
		})
	}
	for _, c := range specs[1:] {
		next <- c
	}
	close(next)
	wg.Wait()
	return warm, refused, nil
}
