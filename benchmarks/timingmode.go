package benchmarks

import (
	"fmt"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/gpu/variants"
)

// timingMode is how the runner times a case and what it reports of the
// time, one small type per kind of case (modeOf): the host clock around
// CPU runs (cpuMode) or GPU runs end to end (totalMode), CUDA events
// around the device work, hot or after an L2 flush, launched or replayed
// from graphs (kernelMode), or the host clock around plans (planMode).
type timingMode interface {
	// beforePlan readies the case's host buffers before its plan is
	// made (pinned memory for total-time cases).
	beforePlan(r *Runner, s *caseState) error
	// ready readies a planned case whose output passed the gate for its
	// samples: its warm-ups, its input on the device.
	ready(r *Runner, c Case, s *caseState, v convolve.Variant) error
	// runs returns run, which times k runs (the case's time and the
	// host's), and prepare, which, when not nil, runs before each sample
	// outside its timed runs and the energy counter's readings; with
	// oneRun a sample is one run, not a batch.
	runs(r *Runner, s *caseState) (run runFunc, prepare func() error, oneRun bool)
	// warmsUp reports whether the case's runs are timed and discarded
	// for Noise.WarmUp before its first line.
	warmsUp() bool
	// guarded reports whether the clock guard watches the samples: those
	// of GPU cases that time device work. A plan's time is the host's
	// (NVRTC, driver calls), and an idle GPU's SM clock is low, so the
	// guard would discard every sample of a plan-timing case.
	guarded() bool
	// flushesL2 reports whether each sample flushes L2 before its one
	// timed run.
	flushesL2() bool
	// noEnergy is why lines of the case carry no energy whatever the
	// meter reads, when ok.
	noEnergy() (e LineEnergy, ok bool)
	// reportOwn reports the metrics of a line whose time is not a run's
	// and returns true, or reports nothing and returns false.
	reportOwn(b *testing.B, s *caseState, set SampleSet) bool
	// timeUnit is the unit of the case's own median (gpu-ns/op,
	// total-ns/op), or "" when ns/op, the host's, is all.
	timeUnit() string
	// copyBound reports whether lines carry the host-copy bound
	// (copy-bound-ns/op, %copy-bound).
	copyBound() bool
	// note is the mode's part of a line's progress note, or "".
	note(s *caseState) string
}

// runFunc times k runs and returns the case's time and the host's.
type runFunc func(k int) (time.Duration, time.Duration, error)

// modeOf is the timing mode of case c: cpuMode for CPU variants, and
// for GPU variants the mode its Timing and Cache name.
func modeOf(c Case) timingMode {
	if !c.GPU {
		return cpuMode{}
	}
	switch c.Timing {
	case totalTiming:
		return totalMode{pinned: c.Mem == pinned}
	case planTiming:
		return planMode{cold: c.Cache == Cold}
	case graphTiming:
		return kernelMode{graph: true, cold: c.Cache == Cold}
	case KernelTiming:
		return kernelMode{cold: c.Cache == Cold}
	}
	return totalMode{}
}

// modeDefaults are the answers of a mode that times runs of a plan in
// batches with no preparation of its own and reports only their rates.
type modeDefaults struct{}

func (modeDefaults) beforePlan(*Runner, *caseState) error                    { return nil }
func (modeDefaults) ready(*Runner, Case, *caseState, convolve.Variant) error { return nil }
func (modeDefaults) warmsUp() bool                                           { return true }
func (modeDefaults) guarded() bool                                           { return true }
func (modeDefaults) flushesL2() bool                                         { return false }
func (modeDefaults) noEnergy() (LineEnergy, bool)                            { return LineEnergy{}, false }
func (modeDefaults) reportOwn(*testing.B, *caseState, SampleSet) bool        { return false }
func (modeDefaults) timeUnit() string                                        { return "" }
func (modeDefaults) copyBound() bool                                         { return false }
func (modeDefaults) note(*caseState) string                                  { return "" }

// hostRuns times k runs of the case's Plan.Run with the host clock, the
// case's time and the host's alike.
func hostRuns(s *caseState) runFunc {
	return func(k int) (time.Duration, time.Duration, error) {
		t0 := time.Now()
		for range k {
			if err := s.plan.Run(s.in, s.out); err != nil {
				return 0, 0, err
			}
		}
		d := time.Since(t0)
		return d, d, nil
	}
}

// cpuMode times Plan.Run of a CPU variant with the host clock.
type cpuMode struct{ modeDefaults }

func (cpuMode) runs(_ *Runner, s *caseState) (runFunc, func() error, bool) {
	return hostRuns(s), nil, false
}
func (cpuMode) guarded() bool { return false }

// totalMode times Plan.Run of a GPU variant end to end with the host
// clock (totalTiming), from pinned host memory with pinned.
type totalMode struct {
	modeDefaults
	pinned bool
}

func (m totalMode) beforePlan(r *Runner, s *caseState) error {
	if !m.pinned {
		return nil
	}
	if r.Device == nil {
		return fmt.Errorf("mem=pinned needs a GPU")
	}
	pin, free, err := r.Device.NewPinnedImage(s.in.Geometry)
	if err != nil {
		return fmt.Errorf("pinned input: %w", err)
	}
	s.free = append(s.free, free)
	if err := pin.CopyFrom(s.in); err != nil {
		return fmt.Errorf("pinned input: %w", err)
	}
	s.in = pin
	pout, free, err := r.Device.NewPinnedImage(s.out.Geometry)
	if err != nil {
		return fmt.Errorf("pinned output: %w", err)
	}
	s.free = append(s.free, free)
	s.out = pout
	return nil
}

func (totalMode) runs(_ *Runner, s *caseState) (runFunc, func() error, bool) {
	return hostRuns(s), nil, false
}
func (totalMode) timeUnit() string { return "total-ns/op" }
func (totalMode) copyBound() bool  { return true }

// kernelMode times the device work alone with CUDA events
// (KernelTiming), replayed from CUDA graphs with graph (graphTiming), one
// run a sample after an L2 flush with cold.
type kernelMode struct {
	modeDefaults
	graph, cold bool
}

func (m kernelMode) ready(_ *Runner, c Case, s *caseState, _ convolve.Variant) error {
	dp, ok := s.plan.(convolve.DevicePlan)
	if !ok {
		return fmt.Errorf("plan of %s (%T) cannot time its kernel alone: not a convolve.DevicePlan", c.Variant, s.plan)
	}
	s.dev = dp
	if err := dp.Upload(s.in); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	if _, err := dp.TimeKernel(1); err != nil { // warm-up
		return fmt.Errorf("warm-up: %w", err)
	}
	if m.graph {
		// Captures both graphs and replays each once, so that no
		// timed sample includes a capture.
		if _, err := dp.TimeKernelGraph(variants.GraphBatch + 1); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	return nil
}

func (m kernelMode) runs(r *Runner, s *caseState) (runFunc, func() error, bool) {
	if !m.cold {
		return func(k int) (time.Duration, time.Duration, error) {
			t0 := time.Now()
			d, err := m.timeKernel(s, k)
			return d, time.Since(t0), err
		}, nil, false
	}
	prepare := func() error {
		if err := r.Device.FlushL2(); err != nil {
			return fmt.Errorf("flush L2: %w", err)
		}
		return nil
	}
	return func(int) (time.Duration, time.Duration, error) {
		t0 := time.Now()
		d, err := m.timeKernel(s, 1)
		return d, time.Since(t0), err
	}, prepare, true
}

// timeKernel times n runs of the case's device work, launched or
// replayed from graphs.
func (m kernelMode) timeKernel(s *caseState, n int) (time.Duration, error) {
	if m.graph {
		return s.dev.TimeKernelGraph(n)
	}
	return s.dev.TimeKernel(n)
}

func (m kernelMode) flushesL2() bool { return m.cold }
func (kernelMode) timeUnit() string  { return "gpu-ns/op" }

// planMode times plans instead of runs (planTiming): a batch of warm
// ones a sample, or one cold one (each compiles for about as long as a
// sample lasts anyway), made with the compile caches bypassed.
type planMode struct {
	modeDefaults
	cold bool
}

func (m planMode) ready(_ *Runner, c Case, s *caseState, v convolve.Variant) error {
	// One untimed plan as the case times them: a cold one must
	// compile, else there is no cold plan to time.
	s.variant, s.cfg = v, c.Config()
	_, err := s.timePlans(m.cold, 1)
	return err
}

func (m planMode) runs(_ *Runner, s *caseState) (runFunc, func() error, bool) {
	return func(k int) (time.Duration, time.Duration, error) {
		d, err := s.timePlans(m.cold, k)
		return d, d, err
	}, nil, m.cold
}

func (planMode) warmsUp() bool { return false }
func (planMode) guarded() bool { return false }
func (planMode) noEnergy() (LineEnergy, bool) {
	return LineEnergy{Omitted: energyPlanTiming, Detail: "timing=plan"}, true
}

// reportOwn reports a plan's time as ns/op (the caller's) with the
// compiles and cache hits per plan; rates of pixels and bytes do not
// apply to it.
func (planMode) reportOwn(b *testing.B, s *caseState, set SampleSet) bool {
	b.ReportMetric(float64(s.compiles)/float64(max(s.plans, 1)), "compiles/op")
	b.ReportMetric(float64(s.hits)/float64(max(s.plans, 1)), "cache-hits/op")
	b.ReportMetric(set.Spread, "median-ci95-%")
	b.ReportMetric(float64(len(set.Per)), "samples")
	return true
}

func (planMode) note(s *caseState) string {
	if s.plans == 0 {
		return ""
	}
	return fmt.Sprintf("; %d plans, %d NVRTC compiles, %d compile-cache hits", s.plans, s.compiles, s.hits)
}
