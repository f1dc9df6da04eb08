package benchmarks

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

func TestProbeCase(t *testing.T) {
	for _, tt := range []struct {
		w, h, k      int
		wantW, wantH int
	}{
		{512, 512, 3, 512, 512},   // small enough already
		{6000, 4000, 9, 627, 418}, // about 2^18 pixels, 3:2
		{100000, 40, 5, 8192, 32}, // the short side held at 32, the long one takes the pixels
		{65536, 64, 75, 4096, 64}, // never larger than the case
		{40, 100000, 5, 32, 8192},
	} {
		c := Case{Variant: "cpu-naive", Op: convolve.Filter2D, Width: tt.w, Height: tt.h, Filter: "box" + strconv.Itoa(tt.k), Type: convolve.Float32, Channels: 1, ULP: true}
		p := ProbeCase(c)
		if p.Width != tt.wantW || p.Height != tt.wantH || p.ULP || p.Variant != c.Variant || p.Filter != c.Filter {
			t.Errorf("ProbeCase(%dx%d box%d) = %s, want %dx%d without ULP", tt.w, tt.h, tt.k, p.Name(), tt.wantW, tt.wantH)
		}
	}
}

// The estimate probes each case shape once, scales its run time by
// pixels, and names the cases whose six samples outlast -max-time.
func TestEstimateSweep(t *testing.T) {
	mk := func(v string, w, h int, f string) Case {
		return Case{Variant: v, Op: convolve.Filter2D, Width: w, Height: h, Filter: f, Type: convolve.Float32, Channels: 1, Timing: CPUTiming}
	}
	cases := []Case{
		mk("cpu-naive", 6000, 4000, "dense9"),
		mk("cpu-naive", 12000, 8000, "dense9"), // the same probe, 4x the pixels
		mk("cpu-fast", 512, 512, "gauss5"),
		mk("cpu-bad", 512, 512, "gauss5"),
	}
	probes := map[string]int{}
	probe := func(c Case) (time.Duration, error) {
		probes[c.Variant]++
		switch c.Variant {
		case "cpu-naive": // 6.5s at 6000x4000
			return time.Duration(6.5e9 * float64(c.Width*c.Height) / 24e6), nil
		case "cpu-bad":
			return 0, errors.New("output differs from the reference")
		}
		return time.Millisecond, nil
	}
	n := DefaultNoise
	e := EstimateSweep(cases, n, 5, probe)
	if probes["cpu-naive"] != 1 || probes["cpu-fast"] != 1 {
		t.Errorf("probes %v, want one per case shape", probes)
	}
	if d := e.Cases[0].PerRun; math.Abs(d.Seconds()-6.5) > 0.1 {
		t.Errorf("cpu-naive 6000x4000 one run %v, want about 6.5s", d)
	}
	if d := e.Cases[1].PerRun; math.Abs(d.Seconds()-26) > 0.4 {
		t.Errorf("cpu-naive 12000x8000 one run %v, want about 26s", d)
	}
	// 2 runs of setup, a warm-up of one run and 5 lines of 6 samples.
	if c := e.Cases[0]; !c.Overrun || math.Abs(c.Low.Seconds()-13-6.5-5*39) > 2 || c.Low != c.High {
		t.Errorf("cpu-naive 6000x4000: overrun %v, %v to %v; want an overrun of about 214s", c.Overrun, c.Low, c.High)
	}
	if c := e.Cases[2]; c.Overrun || c.High < 5*n.MaxTime || c.Low > time.Second {
		t.Errorf("cpu-fast: overrun %v, %v to %v; want 5 lines between their first test and -max-time", c.Overrun, c.Low, c.High)
	}
	if c := e.Cases[3]; c.Err == nil || c.High > time.Second {
		t.Errorf("cpu-bad: err %v, high %v; want the probe's error and no lines", c.Err, c.High)
	}
	if got := e.Overruns(); len(got) != 2 {
		t.Errorf("%d overruns, want the 2 cpu-naive cases", len(got))
	}
	low, exp, high := e.Total()
	if !(low <= exp && exp <= high) || low < 1000*time.Second {
		t.Errorf("total %v <= %v <= %v, want at least the cpu-naive lines", low, exp, high)
	}
}

// On a sweep like the README's (a few slow cases of a time-bound variant
// beside many fast ones, all of them slower than the probes said), the
// time left stays within a quarter of the truth once the first case is
// done, where a count of cases misses it by far more.
func TestETAFollowsTheWork(t *testing.T) {
	var e SweepEstimate
	var truth []time.Duration
	add := func(v string, f string, expected, actual time.Duration) {
		c := Case{Variant: v, Op: convolve.Filter2D, Width: 6000, Height: 4000, Filter: f, Type: convolve.Float32, Channels: 1}
		e.Cases = append(e.Cases, CaseEstimate{Case: c, Low: expected, High: expected})
		truth = append(truth, actual)
	}
	for _, f := range []string{"gauss9", "dense9", "gauss7", "dense7"} {
		add("cpu-fast", f, 10*time.Second, 12*time.Second)
		add("cpu-fft", f, 10*time.Second, 9*time.Second)
		add("cpu-naive", f, 200*time.Second, 260*time.Second)
	}
	eta := NewETA(e)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var total time.Duration
	for _, d := range truth {
		total += d
	}
	var done time.Duration
	for i, c := range e.Cases {
		eta.Start(c.Case.Name(), now)
		left, ok := eta.Left(now)
		trueLeft := total - done
		if !ok {
			t.Fatalf("case %d: no estimate", i)
		}
		if i >= 3 && math.Abs(float64(left-trueLeft)) > 0.25*float64(trueLeft) {
			t.Errorf("at case %d: %v left, truly %v", i, left, trueLeft)
		}
		// Halfway through the case the estimate counts its rest.
		mid := now.Add(truth[i] / 2)
		if l, _ := eta.Left(mid); i >= 3 && math.Abs(float64(l-(trueLeft-truth[i]/2))) > 0.25*float64(trueLeft-truth[i]/2) {
			t.Errorf("halfway through case %d: %v left, truly %v", i, l, trueLeft-truth[i]/2)
		}
		now = now.Add(truth[i])
		done += truth[i]
	}
	eta.Finish(now)
	if l, ok := eta.Left(now); !ok || l != 0 {
		t.Errorf("after the last case: %v, %v; want 0", l, ok)
	}
	if eta.Start("variant=unknown", now) {
		t.Error("Start of a case the estimate lacks reported it known")
	}
	if _, ok := eta.Left(now); ok {
		t.Error("Left after an unknown case reported an estimate")
	}
}

// TestETAOtherVariants: a variant whose lines met the noise target at
// once (a fifth of the estimate) does not scale another variant's cases
// below their low estimate; once a case of that variant finished, its
// own ratio counts.
func TestETAOtherVariants(t *testing.T) {
	var e SweepEstimate
	add := func(v string, low, high time.Duration) {
		c := Case{Variant: v, Op: convolve.Filter2D, Width: 1024, Height: 1024 + len(e.Cases), Filter: "gauss5", Type: convolve.Float32, Channels: 1}
		e.Cases = append(e.Cases, CaseEstimate{Case: c, Low: low, High: high})
	}
	add("cpu-fast", 2*time.Second, 10*time.Second)
	add("cpu-fft", 6*time.Second, 10*time.Second)
	add("cpu-fft", 6*time.Second, 10*time.Second)
	eta := NewETA(e)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	eta.Start(e.Cases[0].Case.Name(), now)
	now = now.Add(2 * time.Second) // a fifth of its estimate
	eta.Start(e.Cases[1].Case.Name(), now)
	if left, _ := eta.Left(now); left != 12*time.Second {
		t.Errorf("after the fast variant: %v left, want 12s (the low estimates, not 10s x 0.2 each)", left)
	}
	now = now.Add(10 * time.Second) // cpu-fft ran to its estimate
	eta.Start(e.Cases[2].Case.Name(), now)
	if left, _ := eta.Left(now); left != 10*time.Second {
		t.Errorf("after one cpu-fft case: %v left, want its own ratio's 10s", left)
	}
}

// A probe runs the case through its gate and times it.
func TestRunnerProbe(t *testing.T) {
	r := &Runner{CPUThreads: 1, Seed: 1}
	c := Case{Variant: "cpu-fast", Op: convolve.Filter2D, Width: 64, Height: 48, Filter: "gauss3", Type: convolve.Float32, Channels: 1, Layout: convolve.Interleaved, Timing: CPUTiming, Cache: Hot}
	d, err := r.Probe(c, 10*time.Millisecond)
	if err != nil || d <= 0 || d > time.Second {
		t.Errorf("Probe = %v, %v; want a positive time under a second", d, err)
	}
	c.Variant = "no-such-variant"
	if _, err := r.Probe(c, 10*time.Millisecond); err == nil {
		t.Error("Probe of an unknown variant: no error")
	}
}

// The estimate of a GPU line that the energy meter tops up adds the
// aligned energy phase it runs where its samples span under a second, ten
// periods of the nominal counter's 100 ms (a period's wait, three periods
// between updates and a batch: 410 ms at the nominal run time); cold,
// plan-timing and multi-GPU lines, CPU lines and lines long enough run
// none; the ETA counts the phase.
func TestEstimateEnergyPhase(t *testing.T) {
	gpu := func(f func(c *Case)) Case {
		c := Case{Variant: "gpu-regtile", Op: convolve.Filter2D, Width: 1024, Height: 1024, Filter: "gauss5", Type: convolve.Float32, Channels: 1,
			Cache: Hot, Timing: KernelTiming, GPU: true}
		f(&c)
		return c
	}
	same := func(*Case) {}
	quick := Noise{Target: 1, Floor: 50 * time.Microsecond, MinSamples: 10, MaxTime: 50 * time.Millisecond, SampleTime: time.Millisecond}
	tests := []struct {
		name      string
		c         Case
		n         Noise
		low, high bool // whether the low and high lines run a phase
	}{
		{"kernel", gpu(same), DefaultNoise, true, false},
		{"kernel, -max-time 50ms", gpu(same), quick, true, true},
		{"graph", gpu(func(c *Case) { c.Timing = graphTiming }), quick, true, true},
		{"total", gpu(func(c *Case) { c.Timing, c.Mem = totalTiming, pageable }), quick, true, true},
		{"two logical devices of GPU 0", gpu(func(c *Case) { c.GPUs = "0,0" }), quick, true, true},
		// 32768x32768: a run of about 28ms, whose ten samples span 280ms.
		{"runs under a tenth of a second", gpu(func(c *Case) { c.Width, c.Height = 32768, 32768 }), DefaultNoise, true, false},
		// 32768x32768 dense31: a run of about 0.42s, whose samples span 4s.
		{"long runs", gpu(func(c *Case) { c.Width, c.Height, c.Filter = 32768, 32768, "dense31" }), DefaultNoise, false, false},
		{"cold", gpu(func(c *Case) { c.Cache = Cold }), quick, false, false},
		{"plan timing", gpu(func(c *Case) { c.Timing = planTiming }), quick, false, false},
		{"other GPUs", gpu(func(c *Case) { c.GPUs = "0,1" }), quick, false, false},
		{"CPU", Case{Variant: "cpu-fast", Op: convolve.Filter2D, Width: 64, Height: 64, Filter: "gauss3", Type: convolve.Float32, Channels: 1, Timing: CPUTiming}, quick, false, false},
	}
	const count = 3
	probe := func(Case) (time.Duration, error) { return 20 * time.Microsecond, nil }
	for _, tt := range tests {
		e := EstimateSweep([]Case{tt.c}, tt.n, count, probe)
		c := e.Cases[0]
		low, high := tt.n.LineTime(c.PerRun)
		var lowPhase, highPhase time.Duration
		// A period's wait for the first update, three periods to the
		// last and the batch under way: a tenth of a period, or a run.
		phase := 100*time.Millisecond + 300*time.Millisecond + max(10*time.Millisecond, c.PerRun)
		if tt.low {
			lowPhase = phase
		}
		if tt.high {
			highPhase = phase
		}
		if c.LowPhase != lowPhase || c.HighPhase != highPhase {
			t.Errorf("%s: phases %v, %v; want %v, %v", tt.name, c.LowPhase, c.HighPhase, lowPhase, highPhase)
		}
		setup := 2 * c.PerRun
		if tt.c.Timing != planTiming {
			setup += tt.n.WarmUpTime(c.PerRun)
		}
		if c.Low != setup+count*(low+lowPhase) || c.High != setup+count*(high+highPhase) {
			t.Errorf("%s: %v to %v, want %v to %v", tt.name, c.Low, c.High, setup+count*(low+lowPhase), setup+count*(high+highPhase))
		}
		// Before the first case, the time left is the case's expected
		// time, its lines' phases included.
		now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		if left, ok := NewETA(e).Left(now); !ok || left != setup+count*(high+highPhase) {
			t.Errorf("%s: ETA %v, %v; want %v", tt.name, left, ok, setup+count*(high+highPhase))
		}
	}
}

// A GPU case is not probed: its run time is the nominal one of its
// timing mode, a plan's for plan-timing cases, the device work's for
// kernel-timing ones and the device work's with the host copies for
// total-time ones.
func TestEstimateSweepNominal(t *testing.T) {
	c := Case{Variant: "gpu-fake", Op: convolve.Filter2D, Width: 1000, Height: 1000, Filter: "dense3", Type: convolve.Float32, Channels: 1, GPU: true}
	// 8 MB through device memory at 500 GB/s (16µs), 9e6 multiply-adds
	// at 2.5e12 a second (3.6µs), 8 MB over the host link at 10 GB/s
	// (800µs), after a launch of 10µs.
	device := 10*time.Microsecond + 16*time.Microsecond + 3600*time.Nanosecond
	for _, tt := range []struct {
		timing Timing
		cache  Cache
		want   time.Duration
	}{
		{KernelTiming, Hot, device},
		{KernelTiming, Cold, device},
		{graphTiming, Hot, device},
		{totalTiming, Hot, device + 800*time.Microsecond},
		{planTiming, Hot, 2 * time.Millisecond},
		{planTiming, Cold, 200 * time.Millisecond},
	} {
		c.Timing, c.Cache = tt.timing, tt.cache
		probe := func(Case) (time.Duration, error) { t.Fatal("a GPU case was probed"); return 0, nil }
		got := EstimateSweep([]Case{c}, DefaultNoise, 1, probe).Cases[0].PerRun
		if d := got - tt.want; d < -time.Nanosecond || d > time.Nanosecond {
			t.Errorf("timing=%s cache=%s: %v a run, want %v", tt.timing, tt.cache, got, tt.want)
		}
	}
}
