package benchmarks

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind/variants"
)

// Device is what the runner needs from a GPU besides the variants' plans.
type Device interface {
	// FlushL2 evicts the device's L2 cache; cold cases call it before
	// every timed sample, outside the timed region.
	FlushL2() error
	// NewPinnedImage allocates an image of geometry g in page-locked host
	// memory and returns the function that frees it.
	NewPinnedImage(g convolve.Geometry) (*convolve.Image, func() error, error)
}

// Peaks are the device limits the %peak metrics divide by.
type Peaks struct {
	CopyGBps   float64 // measured device copy bandwidth, bytes read + written
	FP32GFLOPs float64 // FP32 peak
}

// Runner runs cases as sub-benchmarks. It keeps the plan, images and gate
// result of the current case across the calls testing makes while it
// sizes b.N, and releases them when the next case starts.
type Runner struct {
	Device     Device // nil without a GPU
	Peaks      Peaks
	CPUThreads int // GOMAXPROCS while a CPU variant runs; 0 keeps testing's
	Progress   *Progress
	Seed       uint64
	// Now is the clock of the progress lines; nil means time.Now.
	Now func() time.Time

	cur *caseState
}

type caseState struct {
	name    string
	prob    convolve.Problem
	plan    convolve.Plan
	dev     convolve.DevicePlan
	in, out *convolve.Image
	free    []func() error
	metrics convolve.Metrics
	gate    GateMode
	timing  Timing
	// maxULP is the largest ULP distance from cpu-naive (NaiveULP), when
	// hasULP.
	maxULP int64
	hasULP bool
	err    error
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Close releases the current case's plan and memory.
func (r *Runner) Close() error {
	if r.cur == nil {
		return nil
	}
	err := r.cur.release()
	r.cur = nil
	return err
}

func (s *caseState) release() error {
	var errs []error
	if s.plan != nil {
		errs = append(errs, s.plan.Close())
	}
	for _, f := range s.free {
		errs = append(errs, f())
	}
	s.plan, s.dev, s.in, s.out, s.free = nil, nil, nil, nil, nil
	return errors.Join(errs...)
}

// Prepare plans the case, fills its input, runs it once end to end and
// checks the output against the reference. It returns the case state
// whether the gate passed or not; state.err says what went wrong.
func (r *Runner) prepare(c Case) *caseState {
	s := &caseState{name: c.Name(), timing: c.Timing}
	s.err = r.setup(c, s)
	return s
}

func (r *Runner) setup(c Case, s *caseState) error {
	p, err := c.Problem()
	if err != nil {
		return err
	}
	s.prob = p
	v, err := convolve.Lookup(c.Variant)
	if err != nil {
		return err
	}
	if c.GPU && r.Device == nil {
		return fmt.Errorf("variant %s needs a GPU and none is usable", c.Variant)
	}
	in, err := NewInput(p, r.Seed)
	if err != nil {
		return err
	}
	s.in = in
	if s.out, err = p.NewOutput(); err != nil {
		return err
	}
	if c.Timing == TotalTiming && c.Mem == Pinned {
		if r.Device == nil {
			return fmt.Errorf("mem=pinned needs a GPU")
		}
		pin, free, err := r.Device.NewPinnedImage(in.Geometry)
		if err != nil {
			return fmt.Errorf("pinned input: %w", err)
		}
		s.free = append(s.free, free)
		if err := pin.CopyFrom(in); err != nil {
			return fmt.Errorf("pinned input: %w", err)
		}
		s.in = pin
		pout, free, err := r.Device.NewPinnedImage(s.out.Geometry)
		if err != nil {
			return fmt.Errorf("pinned output: %w", err)
		}
		s.free = append(s.free, free)
		s.out = pout
	}
	if s.plan, err = convolve.PlanFor(v, p, c.Config()); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	// Correctness gate: poison, run once end to end, compare.
	s.out.Fill(math.NaN())
	if err := s.plan.Run(s.in, s.out); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	s.metrics, s.gate, err = Gate(p, s.in, s.out)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	if !s.metrics.OK() {
		return fmt.Errorf("output differs from the reference (%s gate): %v", s.gate, s.metrics)
	}
	if (c.ULP || c.Opts == NoFMA) && HasNaiveULP(p) {
		if s.maxULP, _, err = NaiveULP(p, s.in, s.out); err != nil {
			return fmt.Errorf("gate: %w", err)
		}
		s.hasULP = true
		if err := checkBitExact(c, s.maxULP); err != nil {
			return err
		}
	}
	if c.GPU && (c.Timing == KernelTiming || c.Timing == GraphTiming) {
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
		if c.Timing == GraphTiming {
			// Captures both graphs and replays each once, so that no
			// timed sample includes a capture.
			if _, err := dp.TimeKernelGraph(variants.GraphBatch + 1); err != nil {
				return fmt.Errorf("warm-up: %w", err)
			}
		}
	}
	return nil
}

// checkBitExact fails a Filter2D case compiled with --fmad=false whose
// variant declares convolve.Capabilities.ReferenceOrder (cpu-naive's
// summation order) and yet differs from cpu-naive.
func checkBitExact(c Case, maxULP int64) error {
	if c.Opts != NoFMA || c.Op != convolve.Filter2D {
		return nil
	}
	v, err := convolve.Lookup(c.Variant)
	if err != nil {
		return err
	}
	if !v.Describe().Caps.ReferenceOrder {
		return nil
	}
	if maxULP != 0 {
		return fmt.Errorf("compiled with --fmad=false, %s sums in cpu-naive's order and must match it bit for bit; it is %d ULPs away", c.Variant, maxULP)
	}
	return nil
}

// Run is the body of the sub-benchmark for c.
func (r *Runner) Run(b *testing.B, c Case) {
	name := c.Name()
	r.Progress.Start(name, r.now())
	if r.cur == nil || r.cur.name != name {
		if err := r.Close(); err != nil {
			b.Logf("releasing the previous case: %v", err)
		}
		b.StopTimer()
		r.cur = r.prepare(c)
	}
	s := r.cur
	if s.err != nil {
		b.Fatalf("%s: %v", c.Variant, s.err)
	}
	var per time.Duration
	var err error
	switch {
	case !c.GPU:
		per = r.timeCPU(b, s)
	case c.Timing == TotalTiming:
		per, err = r.timeTotal(b, s)
	case c.Cache == Cold:
		per, err = r.timeCold(b, s)
	default:
		per, err = r.timeHot(b, s)
	}
	if err != nil {
		b.Fatalf("%s: timing: %v", c.Variant, err)
	}
	r.report(b, c, s.prob, per)
	if s.hasULP {
		b.ReportMetric(float64(s.maxULP), "max-ulp")
	}
}

func (r *Runner) timeCPU(b *testing.B, s *caseState) time.Duration {
	if r.CPUThreads > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(r.CPUThreads))
	}
	b.ResetTimer()
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		if err := s.plan.Run(s.in, s.out); err != nil {
			b.Fatalf("run: %v", err)
		}
	}
	b.StopTimer()
	return b.Elapsed() / time.Duration(b.N)
}

func (r *Runner) timeTotal(b *testing.B, s *caseState) (time.Duration, error) {
	b.ResetTimer()
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		if err := s.plan.Run(s.in, s.out); err != nil {
			return 0, err
		}
	}
	b.StopTimer()
	return b.Elapsed() / time.Duration(b.N), nil
}

func (r *Runner) timeHot(b *testing.B, s *caseState) (time.Duration, error) {
	b.ResetTimer()
	b.StartTimer()
	d, err := s.timeKernel(b.N)
	b.StopTimer()
	return d / time.Duration(b.N), err
}

// timeKernel times n runs of the case's device work the way its timing says.
func (s *caseState) timeKernel(n int) (time.Duration, error) {
	if s.timing == GraphTiming {
		return s.dev.TimeKernelGraph(n)
	}
	return s.dev.TimeKernel(n)
}

func (r *Runner) timeCold(b *testing.B, s *caseState) (time.Duration, error) {
	b.ResetTimer()
	b.StopTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		if err := r.Device.FlushL2(); err != nil {
			return 0, fmt.Errorf("flush L2: %w", err)
		}
		b.StartTimer()
		d, err := s.timeKernel(1)
		b.StopTimer()
		if err != nil {
			return 0, err
		}
		total += d
	}
	return total / time.Duration(b.N), nil
}

// report adds the case's metrics: the device or total time per operation
// and the rates derived from it.
func (r *Runner) report(b *testing.B, c Case, p convolve.Problem, per time.Duration) {
	if per <= 0 {
		b.Fatalf("%s: measured a non-positive time %v per operation", c.Variant, per)
	}
	switch {
	case c.GPU && (c.Timing == KernelTiming || c.Timing == GraphTiming):
		b.ReportMetric(float64(per.Nanoseconds()), "gpu-ns/op")
	case c.GPU && c.Timing == TotalTiming:
		b.ReportMetric(float64(per.Nanoseconds()), "total-ns/op")
	}
	tp := convolve.ThroughputOf(p)
	b.ReportMetric(tp.MPixPerSec(per), "MPix/s")
	gbs := tp.GBPerSec(per)
	b.ReportMetric(gbs, "GB/s")
	if p.Op != convolve.RGBToYUV {
		gf := tp.GFLOPPerSec(per)
		b.ReportMetric(gf, "GFLOP/s")
		if c.GPU && r.Peaks.FP32GFLOPs > 0 {
			b.ReportMetric(convolve.PercentOf(gf, r.Peaks.FP32GFLOPs), "%peak-fp32")
		}
	}
	if c.GPU && r.Peaks.CopyGBps > 0 {
		b.ReportMetric(convolve.PercentOf(gbs, r.Peaks.CopyGBps), "%peak-bw")
	}
}

// UnitLines are the benchfmt unit metadata lines of the metrics Run
// reports, printed once before the benchmarks.
func UnitLines() []string {
	return []string{
		"Unit gpu-ns/op better=lower",
		"Unit total-ns/op better=lower",
		"Unit MPix/s better=higher",
		"Unit GB/s better=higher",
		"Unit GFLOP/s better=higher",
		"Unit %peak-bw better=higher",
		"Unit %peak-fp32 better=higher",
		"Unit max-ulp better=lower assume=exact",
	}
}
