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
	// meter reads, when ok; meterOn says whether the meter is on.
	noEnergy(meterOn bool) (e LineEnergy, ok bool)
	// reportOwn reports the metrics of a line whose time is not a run's
	// and returns true, or reports nothing and returns false.
	reportOwn(b *testing.B, s *caseState) bool
	// timeUnit is the unit of the case's own median (gpu-ns/op,
	// total-ns/op), or "" when ns/op, the host's, is all.
	timeUnit() string
	// reportPeaks reports the shares of the hardware's limits that a run
	// of p taking per reaches: the device's peaks for GPU runs (and the
	// host-copy bound of total-time ones), the CPU's ceilings for CPU
	// runs.
	reportPeaks(r *Runner, b *testing.B, c Case, p convolve.Problem, per time.Duration)
	// threads is GOMAXPROCS while the case's runs are timed, or 0 to
	// keep it.
	threads(r *Runner) int
	// note is the mode's part of a line's progress note, or "".
	note(s *caseState) string
	// nominal is the time of one run of GPU case c at the nominal rates
	// the sweep's estimate assumes (EstimateSweep).
	nominal(c Case) time.Duration
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

// modeDefaults are the answers of a GPU mode that times batches of the
// plan's runs with the host clock (runs) with no preparation of its own,
// keeps GOMAXPROCS, and reports their rates and the device's peaks.
type modeDefaults struct{}

func (modeDefaults) beforePlan(*Runner, *caseState) error                    { return nil }
func (modeDefaults) ready(*Runner, Case, *caseState, convolve.Variant) error { return nil }
func (modeDefaults) warmsUp() bool                                           { return true }
func (modeDefaults) guarded() bool                                           { return true }
func (modeDefaults) flushesL2() bool                                         { return false }
func (modeDefaults) noEnergy(bool) (LineEnergy, bool)                        { return LineEnergy{}, false }
func (modeDefaults) reportOwn(*testing.B, *caseState) bool                   { return false }
func (modeDefaults) timeUnit() string                                        { return "" }
func (modeDefaults) threads(*Runner) int                                     { return 0 }
func (modeDefaults) note(*caseState) string                                  { return "" }
func (modeDefaults) nominal(c Case) time.Duration                            { return nominalRun(c, false) }

// reportPeaks reports the shares of the device's FP32 peak (not for
// RGB->YUV, which counts no FLOPs) and copy bandwidth that a run of p
// taking per reaches, where they were measured.
func (modeDefaults) reportPeaks(r *Runner, b *testing.B, _ Case, p convolve.Problem, per time.Duration) {
	tp := convolve.ThroughputOf(p)
	if p.Op != convolve.RGBToYUV && r.Peaks.FP32GFLOPs > 0 {
		b.ReportMetric(convolve.PercentOf(tp.GFLOPPerSec(per), r.Peaks.FP32GFLOPs), "%peak-fp32")
	}
	if r.Peaks.CopyGBps > 0 {
		b.ReportMetric(convolve.PercentOf(tp.GBPerSec(per), r.Peaks.CopyGBps), "%peak-bw")
		b.ReportMetric(copyBWPercent(p, per, r.Peaks.CopyGBps), "%copy-bw")
	}
}

// runs times k runs of the case's Plan.Run with the host clock, the
// case's time and the host's alike.
func (modeDefaults) runs(_ *Runner, s *caseState) (runFunc, func() error, bool) {
	return func(k int) (time.Duration, time.Duration, error) {
		t0 := time.Now()
		for range k {
			if err := s.plan.Run(s.in, s.out); err != nil {
				return 0, 0, err
			}
		}
		d := time.Since(t0)
		return d, d, nil
	}, nil, false
}

// cpuMode times Plan.Run of a CPU variant with the host clock.
type cpuMode struct{ modeDefaults }

func (cpuMode) guarded() bool         { return false }
func (cpuMode) threads(r *Runner) int { return r.CPUThreads }
func (cpuMode) noEnergy(bool) (LineEnergy, bool) {
	return LineEnergy{Omitted: energyOff}, true
}

// reportPeaks reports a CPU run's shares of the CPU's measured ceilings:
// %copy-bw, its GB/s (input read and output written once) as a
// percentage of cpu-copy-gbps; and for a plan that is a FLOPCounter,
// exec-GFLOP/s, the operations it executed per second, and %peak-fma,
// that rate as a percentage of cpu-fma-gflops. A ceiling not measured,
// or a plan that does not count, leaves its metrics out.
func (cpuMode) reportPeaks(r *Runner, b *testing.B, _ Case, p convolve.Problem, per time.Duration) {
	if r.Peaks.CPUCopyGBps > 0 {
		b.ReportMetric(convolve.PercentOf(convolve.ThroughputOf(p).GBPerSec(per), r.Peaks.CPUCopyGBps), "%copy-bw")
	}
	fc, ok := r.cur.plan.(FLOPCounter)
	if !ok || fc.RunFLOPs() <= 0 {
		return
	}
	gf := float64(fc.RunFLOPs()) / per.Seconds() / 1e9
	b.ReportMetric(gf, "exec-GFLOP/s")
	if r.Peaks.CPUFMAGFLOPs > 0 {
		b.ReportMetric(convolve.PercentOf(gf, r.Peaks.CPUFMAGFLOPs), "%peak-fma")
	}
}

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

func (totalMode) timeUnit() string             { return "total-ns/op" }
func (totalMode) nominal(c Case) time.Duration { return nominalRun(c, true) }

// reportPeaks reports the device's peaks and the host-copy bound of a run
// of p (hostCopyBound) with its share of per, where the bandwidths were
// measured.
func (m totalMode) reportPeaks(r *Runner, b *testing.B, c Case, p convolve.Problem, per time.Duration) {
	m.modeDefaults.reportPeaks(r, b, c, p, per)
	if bound := hostCopyBound(p, c.Config().Devices, r.Peaks.H2DGBps, r.Peaks.D2HGBps, r.Peaks.BothGBps); bound > 0 {
		b.ReportMetric(float64(bound.Nanoseconds()), "copy-bound-ns/op")
		b.ReportMetric(convolve.PercentOf(float64(bound), float64(per)), "%copy-bound")
	}
}

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

// nominal is the time of one plan: a cold one's NVRTC compile, or a warm
// one's.
func (m planMode) nominal(Case) time.Duration {
	if m.cold {
		return nominalColdPlan
	}
	return nominalWarmPlan
}
func (planMode) guarded() bool { return false }
func (planMode) noEnergy(meterOn bool) (LineEnergy, bool) {
	return LineEnergy{Omitted: energyPlanTiming, Detail: "timing=plan"}, meterOn
}

// reportOwn reports the compiles and cache hits per plan beside a
// plan's time, ns/op (the caller's); rates of pixels and bytes do not
// apply to it.
func (planMode) reportOwn(b *testing.B, s *caseState) bool {
	b.ReportMetric(float64(s.compiles)/float64(max(s.plans, 1)), "compiles/op")
	b.ReportMetric(float64(s.hits)/float64(max(s.plans, 1)), "cache-hits/op")
	return true
}

func (planMode) note(s *caseState) string {
	if s.plans == 0 {
		return ""
	}
	return fmt.Sprintf("; %d plans, %d NVRTC compiles, %d compile-cache hits", s.plans, s.compiles, s.hits)
}
