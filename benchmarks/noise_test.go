package benchmarks

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/runfile"
)

func TestSpread(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name         string
		xs           []float64
		median, want float64 // want: percent
	}{
		{"empty", nil, math.NaN(), inf},
		{"five samples have no interval", []float64{100, 101, 102, 103, 104}, 102, inf},
		// Six samples: the interval is [min, max] (order statistics 1 and 6).
		{"six samples", []float64{105, 100, 104, 101, 103, 102}, 102.5, 100 * 2.5 / 102.5},
		// Ten samples: the interval is [x(2), x(9)]: 95 and 105 around 100.
		{"ten samples", []float64{110, 90, 95, 98, 99, 100, 100, 101, 102, 105}, 100, 5},
		// The wider side counts: [x(2), x(9)] = [99, 110] around 100.
		{"asymmetric", []float64{98, 99, 100, 100, 100, 100, 100, 100, 110, 120}, 100, 10},
		// The median's interval ignores a lone outlier, unlike a standard deviation.
		{"outlier", []float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 1000}, 100, 0},
		{"constant", []float64{7, 7, 7, 7, 7, 7}, 7, 0},
		{"non-positive median", []float64{0, 0, 0, 0, 0, 0}, 0, inf},
	}
	for _, tt := range tests {
		m, got := spread(tt.xs)
		if !(m == tt.median || math.IsNaN(m) && math.IsNaN(tt.median)) {
			t.Errorf("%s: median %v, want %v", tt.name, m, tt.median)
		}
		if !(math.Abs(got-tt.want) < 1e-9 || math.IsInf(got, 1) && math.IsInf(tt.want, 1)) {
			t.Errorf("%s: spread(%v) = %v%%, want %v%%", tt.name, tt.xs, got, tt.want)
		}
	}
}

func TestNoiseTargetFor(t *testing.T) {
	n := Noise{Target: 1, Floor: 50 * time.Microsecond}
	tests := []struct {
		medianNs, want float64
	}{
		{1e6, 1},  // 1 ms
		{50e3, 1}, // at the floor
		{25e3, 2}, // half the floor: the same 0.5 us width is 2%
		{5e3, 10}, // 5 us: 10%
		{0, 1},    // no median yet
		{math.NaN(), 1},
	}
	for _, tt := range tests {
		if got := n.TargetFor(tt.medianNs); got != tt.want {
			t.Errorf("TargetFor(%v) = %v, want %v", tt.medianNs, got, tt.want)
		}
	}
	if got := (Noise{Target: 1}).TargetFor(5e3); got != 1 {
		t.Errorf("without a floor, TargetFor(5us) = %v, want 1", got)
	}
}

func TestNoiseValidate(t *testing.T) {
	good := DefaultNoise
	if err := good.Validate(); err != nil {
		t.Fatalf("DefaultNoise: %v", err)
	}
	bad := []struct {
		mod  func(*Noise)
		want string
	}{
		{func(n *Noise) { n.Target = 0 }, "noise target 0%"},
		{func(n *Noise) { n.Target = math.NaN() }, "noise target NaN%"},
		{func(n *Noise) { n.Floor = -1 }, "noise floor -1ns"},
		{func(n *Noise) { n.MinSamples = 0 }, "min samples 0"},
		{func(n *Noise) { n.MaxTime = 0 }, "max time 0s"},
		{func(n *Noise) { n.SampleTime = -time.Second }, "sample time -1s"},
		{func(n *Noise) { n.MinTime = -time.Second }, "min time -1s"},
		{func(n *Noise) { n.WarmUp = -time.Second }, "warm-up -1s"},
	}
	for _, tt := range bad {
		n := good
		tt.mod(&n)
		if err := n.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate() = %v, want an error with %q", err, tt.want)
		}
	}
}

// fakeTime is a clock that each sample advances by a fixed step.
type fakeTime struct {
	t    time.Time
	step time.Duration
}

func (f *fakeTime) now() time.Time { return f.t }

// takes returns a sample taker that yields per in turn (cycling) and
// advances the clock by one step per sample.
func takes(clock *fakeTime, per ...float64) (func() (Sample, error), *int) {
	n := 0
	return func() (Sample, error) {
		v := per[n%len(per)]
		n++
		clock.t = clock.t.Add(clock.step)
		return Sample{Per: v, Host: v + 1}, nil
	}, &n
}

func TestCollectStops(t *testing.T) {
	base := Noise{Target: 1, Floor: 50 * time.Microsecond, MinSamples: 10, MaxTime: time.Second}
	tests := []struct {
		name      string
		noise     Noise
		per       []float64
		step      time.Duration
		wantStop  Stop
		wantN     int
		maxSpread float64 // the set's spread is at most this
	}{
		// Steady 1 ms samples: the spread is 0 at MinSamples.
		{"steady", base, []float64{1e6}, time.Millisecond, stopNoise, 10, 0},
		// +-3% alternation never reaches 1%: the time limit stops it, after
		// 1 s of 10 ms samples.
		{"noisy", base, []float64{0.97e6, 1.03e6}, 10 * time.Millisecond, stopTime, 100, math.Inf(1)},
		// Short kernels (5 us) get the floor's width: +-3% is under 10%.
		{"short kernel", base, []float64{4.85e3, 5.15e3}, time.Millisecond, stopNoise, 10, 10},
		// Samples longer than MaxTime still number at least six.
		{"slow case", base, []float64{0.9e9, 1.1e9}, 2 * time.Second, stopTime, MinCISamples, math.Inf(1)},
		// MinSamples below six: the spread exists from six samples on.
		{"few", Noise{Target: 1, MinSamples: 2, MaxTime: time.Second}, []float64{1e6}, time.Millisecond, stopNoise, MinCISamples, 0},
	}
	for _, tt := range tests {
		clock := &fakeTime{t: time.Unix(0, 0), step: tt.step}
		take, _ := takes(clock, tt.per...)
		set, err := tt.noise.Collect(take, nil, clock.now, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if set.Stop != tt.wantStop || len(set.Per) != tt.wantN {
			t.Errorf("%s: stopped by %s after %d samples, want %s after %d", tt.name, set.Stop, len(set.Per), tt.wantStop, tt.wantN)
		}
		if set.Spread > tt.maxSpread || set.Stop == stopNoise && set.Spread > set.Target {
			t.Errorf("%s: spread %v%% (target %v%%), want at most %v%%", tt.name, set.Spread, set.Target, tt.maxSpread)
		}
		if len(set.Host) != len(set.Per) || set.Host[0] != set.Per[0]+1 {
			t.Errorf("%s: host samples %v do not follow the samples %v", tt.name, set.Host, set.Per)
		}
	}
}

// A line whose median is below the floor samples for MinTime before its
// spread may stop it, even when the spread is met at the first test; a
// line of longer runs stops at its first test; MaxTime still ends either.
func TestCollectMinTime(t *testing.T) {
	n := Noise{Target: 1, Floor: 50 * time.Microsecond, MinSamples: 10, MaxTime: time.Second, MinTime: 100 * time.Millisecond}
	for _, tt := range []struct {
		name     string
		n        Noise
		per      float64
		wantStop Stop
		wantN    int
	}{
		{"few microseconds", n, 5e3, stopNoise, 100},
		{"a millisecond", n, 1e6, stopNoise, 10},
		{"no min time", Noise{Target: 1, Floor: 50 * time.Microsecond, MinSamples: 10, MaxTime: time.Second}, 5e3, stopNoise, 10},
		{"max time first", Noise{Target: 1, Floor: 50 * time.Microsecond, MinSamples: 10, MaxTime: 30 * time.Millisecond, MinTime: 100 * time.Millisecond}, 5e3, stopTime, 30},
	} {
		clock := &fakeTime{t: time.Unix(0, 0), step: time.Millisecond}
		take, _ := takes(clock, tt.per)
		set, err := tt.n.Collect(take, nil, clock.now, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		// The spread is tested every twentieth of the set's size: the
		// stop comes within that of the wanted count.
		if set.Stop != tt.wantStop || len(set.Per) < tt.wantN || len(set.Per) > tt.wantN+tt.wantN/20 {
			t.Errorf("%s: stopped by %s after %d samples (%v), want %s after %d", tt.name, set.Stop, len(set.Per), set.Elapsed, tt.wantStop, tt.wantN)
		}
	}
}

// The warm-up times batches until its time has passed since the case's
// first run, counting the batch sizing, and none once it has.
func TestWarmUp(t *testing.T) {
	var batches []int
	run := func(k int) (time.Duration, time.Duration, error) {
		batches = append(batches, k)
		time.Sleep(time.Millisecond)
		return time.Millisecond, time.Millisecond, nil
	}
	prepared := 0
	prepare := func() error { prepared++; return nil }
	start := time.Now()
	n, err := warmUp(prepare, run, 3, start, 20*time.Millisecond)
	if err != nil || time.Since(start) < 20*time.Millisecond || n != 3*len(batches) || n == 0 || prepared != len(batches) {
		t.Errorf("warmUp = %d, %v after %v; batches %v, %d prepared: want batches of 3 for 20ms, each prepared", n, err, time.Since(start), batches, prepared)
	}
	batches = nil
	if n, err := warmUp(nil, run, 3, time.Now().Add(-time.Second), 20*time.Millisecond); n != 0 || err != nil || len(batches) != 0 {
		t.Errorf("a warm-up whose time has passed timed %d runs (%v)", n, err)
	}
	boom := errors.New("boom")
	if _, err := warmUp(nil, func(int) (time.Duration, time.Duration, error) { return 0, 0, boom }, 1, time.Now(), time.Second); !errors.Is(err, boom) {
		t.Errorf("a failing run: %v", err)
	}
}

func TestCollectErrors(t *testing.T) {
	clock := &fakeTime{t: time.Unix(0, 0), step: time.Millisecond}
	boom := errors.New("launch failed")
	_, err := DefaultNoise.Collect(func() (Sample, error) { return Sample{}, boom }, nil, clock.now, nil)
	if !errors.Is(err, boom) {
		t.Errorf("a failing sample: error %v, want %v", err, boom)
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		_, err := DefaultNoise.Collect(func() (Sample, error) { return Sample{Per: v}, nil }, nil, clock.now, nil)
		if err == nil {
			t.Errorf("a sample of %v ns: no error", v)
		}
	}
	if _, err := (Noise{}).Collect(nil, nil, clock.now, nil); err == nil {
		t.Errorf("the zero Noise: no error")
	}
}

// A long set says how far it is about every five seconds.
func TestCollectNotes(t *testing.T) {
	clock := &fakeTime{t: time.Unix(0, 0), step: time.Second}
	take, _ := takes(clock, 0.9e6, 1.1e6)
	var notes []string
	n := Noise{Target: 1, MinSamples: 10, MaxTime: 12 * time.Second}
	if _, err := n.Collect(take, nil, clock.now, func(s string) { notes = append(notes, s) }); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "sampling: 5 samples, median-ci95 none (too few samples)") ||
		!strings.HasPrefix(notes[1], "sampling: 10 samples, median-ci95 10.00%") {
		t.Errorf("notes %q", notes)
	}
}

func TestBatch(t *testing.T) {
	tests := []struct {
		perRun     time.Duration
		sampleTime time.Duration
		maxBatch   int
		want       int
	}{
		{2 * time.Millisecond, time.Millisecond, 1 << 20, 1},
		{time.Millisecond, time.Millisecond, 1 << 20, 1},
		{10 * time.Microsecond, time.Millisecond, 1 << 20, 100},
		{3 * time.Microsecond, time.Millisecond, 1 << 20, 400},
		{10 * time.Nanosecond, time.Millisecond, 1 << 20, 120000},
		{time.Nanosecond, time.Second, 1000, 1000},
		{0, time.Millisecond, 64, 64},
		{time.Microsecond, 0, 64, 1},
	}
	for _, tt := range tests {
		var sizes []int
		got, err := batch(func(k int) (time.Duration, error) {
			sizes = append(sizes, k)
			return time.Duration(k) * tt.perRun, nil
		}, tt.sampleTime, tt.maxBatch)
		if err != nil || got != tt.want {
			t.Errorf("batch(%v per run, sample %v, max %d) = %d, %v (batches %v), want %d", tt.perRun, tt.sampleTime, tt.maxBatch, got, err, sizes, tt.want)
		}
		if time.Duration(got)*tt.perRun < tt.sampleTime && got < tt.maxBatch {
			t.Errorf("batch(%v per run) = %d: a sample of %v is shorter than %v", tt.perRun, got, time.Duration(got)*tt.perRun, tt.sampleTime)
		}
	}
	boom := errors.New("boom")
	if _, err := batch(func(int) (time.Duration, error) { return 0, boom }, time.Millisecond, 10); !errors.Is(err, boom) {
		t.Errorf("batch with a failing run: %v", err)
	}
}

// A line's wall time follows the sampling rule: a slow case takes its six
// samples whatever MaxTime says, a fast one between its first test of the
// spread and MaxTime.
func TestLineTime(t *testing.T) {
	n := DefaultNoise // 10 samples before the first test, 2s, samples of 1ms or more, 100ms for runs under 50µs
	for _, tt := range []struct {
		perRun    time.Duration
		low, high time.Duration
		overrun   bool
	}{
		{6500 * time.Millisecond, 39 * time.Second, 39 * time.Second, true},
		{500 * time.Millisecond, 3 * time.Second, 3 * time.Second, true},
		{100 * time.Millisecond, time.Second, 2 * time.Second, false},
		{100 * time.Microsecond, 12 * time.Millisecond, 2*time.Second + 400*time.Microsecond, false},
		// Under the floor: the samples of 100 ms, 84 of 1.2 ms.
		{10 * time.Microsecond, 84 * 1200 * time.Microsecond, 2*time.Second + 400*time.Microsecond, false},
	} {
		low, high := n.LineTime(tt.perRun)
		if low != tt.low || high != tt.high {
			t.Errorf("LineTime(%v) = %v, %v; want %v, %v", tt.perRun, low, high, tt.low, tt.high)
		}
		if least, over := n.Overrun(tt.perRun); over != tt.overrun || least != 6*max(tt.perRun, 1200*time.Microsecond) {
			t.Errorf("Overrun(%v) = %v, %v; want %v", tt.perRun, least, over, tt.overrun)
		}
	}
}

// The rule's configuration line states its target as package results
// reads it (runfile.ParseNoiseTarget).
func TestNoiseStringTarget(t *testing.T) {
	for _, n := range []Noise{DefaultNoise, quickNoise, {Target: 2.5, Floor: time.Millisecond, MinSamples: 10, MaxTime: time.Second}} {
		target, floor, ok := runfile.ParseNoiseTarget(n.String())
		if !ok || target != n.Target || floor != n.Floor {
			t.Errorf("%q reads as %v, %v, %v; want %v, %v", n.String(), target, floor, ok, n.Target, n.Floor)
		}
	}
}

// A case's first line follows its warm-up, which its progress note
// names; later lines do not repeat it.
func TestRunnerWarmUp(t *testing.T) {
	var progress strings.Builder
	n := quickNoise
	n.WarmUp = 30 * time.Millisecond
	c := Case{Variant: "cpu-naive", Width: 16, Height: 12, Filter: "gauss3", Channels: 1, Cache: Hot, Timing: CPUTiming}
	r := &Runner{CPUThreads: 1, Seed: 1, Progress: newProgress(&progress, "test", 1, nowForTest()), Noise: n}
	for range 2 {
		benchOnce(t, func(b *testing.B) { r.Run(b, c) })
	}
	r.Finish(nowForTest())
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	out := progress.String()
	if !strings.Contains(out, "  line 1: after a warm-up of ") || !strings.Contains(out, " runs in ") ||
		!strings.Contains(out, "  line 2: ") || strings.Count(out, "warm-up") != 1 {
		t.Errorf("progress %q: want the warm-up named by line 1 alone", out)
	}
}
