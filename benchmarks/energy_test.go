package benchmarks

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/convolve"
)

// fakeCounter returns its readings in turn (the last one repeats), or err
// at the read numbered errAt (1-based).
type fakeCounter struct {
	mj    []uint64
	reads int
	err   error
	errAt int
}

func (f *fakeCounter) EnergyMJ() (uint64, error) {
	f.reads++
	if f.err != nil && (f.errAt == 0 || f.reads == f.errAt) {
		return 0, f.err
	}
	return f.mj[min(f.reads-1, len(f.mj)-1)], nil
}

// A sample's use is the counter's advance between the readings around
// its timed runs; a reading that fails or goes back marks the use, and
// never the sample, failed.
func TestEnergyMeterMeter(t *testing.T) {
	boom := errors.New("NVML_ERROR_GPU_IS_LOST")
	tests := []struct {
		name    string
		counter *fakeCounter
		want    EnergyUse
		failed  string // a part of want.Failed
	}{
		{"advance", &fakeCounter{mj: []uint64{1000, 1450}}, EnergyUse{MJ: 450, Runs: 8, Samples: 1}, ""},
		{"no advance", &fakeCounter{mj: []uint64{1000, 1000}}, EnergyUse{Runs: 8, Samples: 1}, ""},
		{"past 2^32", &fakeCounter{mj: []uint64{1<<32 - 5, 1<<32 + 5}}, EnergyUse{MJ: 10, Runs: 8, Samples: 1}, ""},
		{"went back", &fakeCounter{mj: []uint64{1000, 900}}, EnergyUse{Runs: 8, Samples: 1}, "went back from 1000 to 900 mJ"},
		{"first reading fails", &fakeCounter{mj: []uint64{1000}, err: boom, errAt: 1}, EnergyUse{Runs: 8, Samples: 1}, "GPU_IS_LOST"},
		{"second reading fails", &fakeCounter{mj: []uint64{1000}, err: boom, errAt: 2}, EnergyUse{Runs: 8, Samples: 1}, "GPU_IS_LOST"},
	}
	for _, tt := range tests {
		clock := &fakeTime{t: time.Unix(0, 0)}
		m := &EnergyMeter{Counter: tt.counter}
		ran := false
		u, err := m.Meter(8, clock.now, func() error {
			ran = true
			clock.t = clock.t.Add(3 * time.Millisecond)
			return nil
		})
		if err != nil || !ran {
			t.Fatalf("%s: Meter: %v, ran %v", tt.name, err, ran)
		}
		want := tt.want
		want.Span = 3 * time.Millisecond
		if tt.failed == "" && u != want || tt.failed != "" && (!strings.Contains(u.Failed, tt.failed) || u.MJ != 0 || u.Runs != 8) {
			t.Errorf("%s: use %+v, want %+v (failed: %q)", tt.name, u, want, tt.failed)
		}
	}
	// The runs' own error comes back; an off meter only runs them.
	runErr := errors.New("launch failed")
	for _, m := range []*EnergyMeter{nil, {Off: "no GPU"}, {Counter: &fakeCounter{mj: []uint64{1}}}} {
		u, err := m.Meter(1, time.Now, func() error { return runErr })
		if !errors.Is(err, runErr) {
			t.Errorf("meter %+v: error %v, want the runs' own", m, err)
		}
		if !m.On() && u != (EnergyUse{}) {
			t.Errorf("an off meter metered %+v", u)
		}
	}
}

// The energy of a line is the counter's advance over the runs its
// samples timed; it is left out, by a named rule, when the meter is off,
// a reading failed, the samples span less than MinSpan, or the counter
// stood still.
func TestEnergyPerRun(t *testing.T) {
	on := &EnergyMeter{Counter: &fakeCounter{mj: []uint64{0}}}
	slow := &EnergyMeter{Counter: &fakeCounter{mj: []uint64{0}}, MinSpan: 500 * time.Millisecond}
	tests := []struct {
		name  string
		meter *EnergyMeter
		use   EnergyUse
		want  float64    // mJ per run, when rule is ""
		rule  EnergyRule // the rule that leaves it out
	}{
		// 120 samples of 1 ms, 50 runs each, 300 W: 36 J over 6000 runs.
		{"kernel", on, EnergyUse{MJ: 36000, Span: 120 * time.Millisecond, Runs: 6000, Samples: 120}, 6, ""},
		{"one long run a sample", on, EnergyUse{MJ: 90000, Span: 300 * time.Millisecond, Runs: 3, Samples: 3}, 30000, ""},
		{"at the minimum span", on, EnergyUse{MJ: 7, Span: defaultEnergyMinSpan, Runs: 2, Samples: 2}, 3.5, ""},
		{"under the minimum span", on, EnergyUse{MJ: 3000, Span: defaultEnergyMinSpan - time.Microsecond, Runs: 100, Samples: 10}, 0, energyShortSpan},
		{"ten samples of a millisecond", on, EnergyUse{MJ: 0, Span: 10 * time.Millisecond, Runs: 500, Samples: 10}, 0, energyShortSpan},
		{"a meter's own minimum", slow, EnergyUse{MJ: 120000, Span: 400 * time.Millisecond, Runs: 100, Samples: 40}, 0, energyShortSpan},
		{"a meter's own minimum met", slow, EnergyUse{MJ: 150000, Span: 500 * time.Millisecond, Runs: 100, Samples: 50}, 1500, ""},
		{"counter still", on, EnergyUse{MJ: 0, Span: time.Second, Runs: 100, Samples: 100}, 0, energyStill},
		{"a failed reading", on, EnergyUse{MJ: 36000, Span: time.Second, Runs: 100, Samples: 100, Failed: "reading the energy counter: boom"}, 0, energyUnread},
		{"nothing metered", on, EnergyUse{}, 0, energyUnread},
		// An energy phase of 11000 runs over 110 ms drew 22 J: 2 mJ a run.
		{"energy phase", on, EnergyUse{MJ: 22000, Span: 110 * time.Millisecond, Runs: 11000, Samples: 1, Phase: true}, 2, ""},
		{"energy phase too short", on, EnergyUse{MJ: 17600, Span: 88 * time.Millisecond, Runs: 11000, Samples: 1, Phase: true}, 0, energyShortSpan},
		{"energy phase, counter still", on, EnergyUse{Span: 110 * time.Millisecond, Runs: 11000, Samples: 1, Phase: true}, 0, energyStill},
		{"meter off", &EnergyMeter{Off: "NVML: libnvidia-ml.so.1 cannot be opened"}, EnergyUse{MJ: 36000, Span: time.Second, Runs: 100, Samples: 100}, 0, energyOff},
		{"no meter", nil, EnergyUse{MJ: 36000, Span: time.Second, Runs: 100, Samples: 100}, 0, energyOff},
	}
	for _, tt := range tests {
		got := tt.meter.PerRun(tt.use)
		if got.Omitted != tt.rule || got.Reported() != (tt.rule == "") {
			t.Errorf("%s: omitted by %q (%s), want %q", tt.name, got.Omitted, got.Detail, tt.rule)
			continue
		}
		if tt.rule == "" && got.MJPerRun != tt.want {
			t.Errorf("%s: %v mJ a run, want %v", tt.name, got.MJPerRun, tt.want)
		}
		if tt.rule != "" && got.Detail == "" {
			t.Errorf("%s: omitted by %q without the line's numbers", tt.name, got.Omitted)
		}
	}
}

func TestGFLOPPerJoule(t *testing.T) {
	// gauss5 over 4096x4096: 2*25*4096*4096 = 838.9 MFLOP a run.
	gauss5 := convolve.Throughput{Pixels: 4096 * 4096, Channels: 1, KW: 5, KH: 5}.Flops()
	tests := []struct {
		flops, mj, want float64
	}{
		{1e9, 1000, 1},            // 1 GFLOP for 1 J
		{1e9, 1, 1000},            // for 1 mJ
		{gauss5, 6, gauss5 / 6e6}, // 6 mJ a run: 139.8 GFLOP/J
		{2 * 9 * 1024 * 1024, 0.5, 37.748736},
		{1e9, 0, 0},
		{1e9, -1, 0},
		{1e9, math.NaN(), 0},
	}
	for _, tt := range tests {
		if got := gflopPerJoule(tt.flops, tt.mj); math.Abs(got-tt.want) > 1e-12*math.Abs(tt.want) {
			t.Errorf("gflopPerJoule(%v, %v) = %v, want %v", tt.flops, tt.mj, got, tt.want)
		}
	}
}

// A set's energy sums its kept samples: those the clock guard discards
// and takes again leave theirs out.
func TestCollectSumsKeptEnergy(t *testing.T) {
	clocks := &fakeClocks{mhz: []int{1400, 1980}} // the first sample is throttled
	g := &ClockGuard{Clocks: clocks, MaxMHz: 1980, MaxRetakes: 10}
	clock := &fakeTime{t: time.Unix(0, 0)}
	n := 0
	take := func() (Sample, error) {
		n++
		clock.t = clock.t.Add(time.Millisecond)
		// The discarded first sample drew 1000 mJ; each kept one n mJ.
		mj := uint64(n)
		if n == 1 {
			mj = 1000
		}
		return Sample{Per: 1e6, Host: 1e6, Energy: EnergyUse{MJ: mj, Span: time.Millisecond, Runs: 4, Samples: 1}}, nil
	}
	set, err := Noise{Target: 100, MinSamples: 10, MaxTime: time.Hour}.Collect(take, g, clock.now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if set.Discarded != 1 || len(set.Per) != 10 {
		t.Fatalf("%d discarded, %d kept; want 1 and 10", set.Discarded, len(set.Per))
	}
	want := EnergyUse{MJ: 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11, Span: 10 * time.Millisecond, Runs: 40, Samples: 10}
	if set.Energy != want {
		t.Errorf("set energy %+v, want %+v", set.Energy, want)
	}
}

// steppingCounter is a counter that advances by step mJ every period of
// its clock, as NVML's does at its driver's updates.
type steppingCounter struct {
	clock  *fakeTime
	start  time.Time
	period time.Duration
	step   uint64
}

func (c *steppingCounter) EnergyMJ() (uint64, error) {
	return 5000 + c.step*uint64(c.clock.t.Sub(c.start)/c.period), nil
}

func TestMeasureEnergyPeriod(t *testing.T) {
	for _, period := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond} {
		clock := &fakeTime{t: time.Unix(0, 0).Add(period / 3)}
		c := &steppingCounter{clock: clock, start: time.Unix(0, 0), period: period, step: 700}
		sleep := func(d time.Duration) { clock.t = clock.t.Add(d) }
		got, err := measureEnergyPeriod(c, 200*time.Microsecond, time.Second, clock.now, sleep)
		if err != nil || got < period-200*time.Microsecond || got > period+200*time.Microsecond {
			t.Errorf("period %v: measured %v, %v", period, got, err)
		}
	}
	// The least span is ten periods, at least defaultEnergyMinSpan, rounded
	// up to 50ms.
	for _, tt := range []struct{ period, span time.Duration }{
		{time.Millisecond, 100 * time.Millisecond},
		{10 * time.Millisecond, 100 * time.Millisecond},
		{11 * time.Millisecond, 150 * time.Millisecond},
		{20 * time.Millisecond, 200 * time.Millisecond},
		{100 * time.Millisecond, time.Second},
	} {
		clock := &fakeTime{t: time.Unix(0, 0).Add(tt.period / 3)}
		c := &steppingCounter{clock: clock, start: time.Unix(0, 0), period: tt.period, step: 700}
		sleep := func(d time.Duration) { clock.t = clock.t.Add(d) }
		m := energyMeterFor(c, "", clock.now, sleep)
		if !m.On() || m.MinSpan != tt.span || m.Period < tt.period-200*time.Microsecond || m.Period > tt.period+200*time.Microsecond {
			t.Errorf("period %v: meter %+v, want on with MinSpan %v", tt.period, m, tt.span)
		}
	}
	clock := &fakeTime{t: time.Unix(0, 0)}
	sleep := func(d time.Duration) { clock.t = clock.t.Add(d) }
	still := &fakeCounter{mj: []uint64{42}}
	if _, err := measureEnergyPeriod(still, time.Millisecond, time.Second, clock.now, sleep); err == nil || !strings.Contains(err.Error(), "advanced 0 times in 1s") || !strings.Contains(err.Error(), "42 mJ") {
		t.Errorf("a counter that stands still: %v", err)
	}
	if m := energyMeterFor(still, "", clock.now, sleep); m.On() || !strings.Contains(m.Off, "advanced 0 times") {
		t.Errorf("a counter that stands still gives the meter %+v", m)
	}
	back := &fakeCounter{mj: []uint64{42, 41}}
	if _, err := measureEnergyPeriod(back, time.Millisecond, time.Second, clock.now, sleep); err == nil || !strings.Contains(err.Error(), "went back from 42 to 41") {
		t.Errorf("a counter that goes back: %v", err)
	}
	boom := errors.New("NVML_ERROR_NOT_SUPPORTED")
	if _, err := measureEnergyPeriod(&fakeCounter{err: boom}, time.Millisecond, time.Second, clock.now, sleep); !errors.Is(err, boom) {
		t.Errorf("an unreadable counter: %v", err)
	}
	if m := energyMeterFor(nil, "NVML: no library", clock.now, sleep); m.On() || m.Off != "NVML: no library" {
		t.Errorf("no counter gives the meter %+v", m)
	}
}

func TestEnergyConfigLine(t *testing.T) {
	tests := []struct {
		meter      *EnergyMeter
		want, note string
	}{
		{&EnergyMeter{Counter: &fakeCounter{mj: []uint64{1}}, Period: 10*time.Millisecond + 23*time.Microsecond, MinSpan: 150 * time.Millisecond},
			"gpu-energy: NVML energy counter over at least ten of its update periods of timed runs (rounded up to 50ms, at least 100ms), where it advanced: a GPU line's samples, or where they span less an energy phase after them between two of the counter's updates at least 3 update periods apart (rounded up to 50ms, at least 100ms), read beside the runs; cache=cold lines their samples alone; timing=plan lines and lines on other GPUs none",
			"energy: NVML's counter, updates about every 10ms; GPU lines carry mJ/op and GFLOP/J over at least 150ms of timed runs: their samples', or where the samples span less an energy phase's after them, between two updates at least 100ms apart (cache=cold lines their samples' alone)"},
		{&EnergyMeter{Counter: &fakeCounter{mj: []uint64{1}}, Period: 100*time.Millisecond + 700*time.Microsecond, MinSpan: time.Second + 50*time.Millisecond},
			"gpu-energy: NVML energy counter over at least ten of its update periods of timed runs (rounded up to 50ms, at least 100ms), where it advanced: a GPU line's samples, or where they span less an energy phase after them between two of the counter's updates at least 3 update periods apart (rounded up to 50ms, at least 100ms), read beside the runs; cache=cold lines their samples alone; timing=plan lines and lines on other GPUs none",
			"energy: NVML's counter, updates about every 100.7ms; GPU lines carry mJ/op and GFLOP/J over at least 1.05s of timed runs: their samples', or where the samples span less an energy phase's after them, between two updates at least 350ms apart (cache=cold lines their samples' alone)"},
		{&EnergyMeter{Counter: &fakeCounter{mj: []uint64{1}}},
			"gpu-energy: NVML energy counter over at least 100ms of timed runs, where it advanced: a GPU line's samples, or where they span less an energy phase after them of as many of the line's runs as its ns/op puts at 110ms, more until they span 100ms, stopped at 200ms; cache=cold lines their samples alone; timing=plan lines and lines on other GPUs none",
			"energy: NVML's counter, an update period not measured; GPU lines carry mJ/op and GFLOP/J over at least 100ms of timed runs: their samples', or an energy phase's of about 110ms after them where the samples span less (cache=cold lines their samples' alone)"},
		{&EnergyMeter{Off: "NVML: libnvidia-ml.so.1 cannot be opened"},
			"gpu-energy: off (NVML: libnvidia-ml.so.1 cannot be opened); lines carry no mJ/op or GFLOP/J",
			"energy: not recorded (NVML: libnvidia-ml.so.1 cannot be opened): GPU lines carry no mJ/op or GFLOP/J"},
		{nil, "gpu-energy: off (no energy counter); lines carry no mJ/op or GFLOP/J",
			"energy: not recorded (no energy counter): GPU lines carry no mJ/op or GFLOP/J"},
	}
	for _, tt := range tests {
		if got := tt.meter.ConfigLine(); got != tt.want {
			t.Errorf("ConfigLine() = %q\nwant %q", got, tt.want)
		}
		if got := tt.meter.Note(); got != tt.note {
			t.Errorf("Note() = %q\nwant %q", got, tt.note)
		}
	}
	h := Host{GPU: &GPUInfo{Name: "X"}, Energy: tests[3].meter}
	lines := configLines(h, "s", 1, 0)
	if last := lines[len(lines)-1]; last != tests[3].want {
		t.Errorf("ConfigLines end with %q, want the meter's line", last)
	}
	for _, l := range configLines(Host{}, "s", 1, 0) {
		if strings.HasPrefix(l, "gpu-energy") {
			t.Errorf("a host without a GPU has the line %q", l)
		}
	}
}

// wattCounter draws watts from the wall clock since start, as a GPU
// whose power does not change and whose counter updates continuously.
type wattCounter struct {
	start time.Time
	watts float64
}

func (c *wattCounter) EnergyMJ() (uint64, error) {
	return uint64(time.Since(c.start).Seconds() * c.watts * 1e3), nil
}

// fakeDevice is a Device for GPU cases that need none of it: pageable
// total-time cases of a CPU variant.
type fakeDevice struct{}

func (fakeDevice) FlushL2() error { return nil }
func (fakeDevice) NewPinnedImage(convolve.Geometry) (*convolve.Image, func() error, error) {
	return nil, nil, errors.New("fakeDevice: no pinned memory")
}

// multiDeviceNaive is cpu-naive declared a GPU variant that runs on
// several devices, so that cases naming their devices (gpus) plan; it
// runs on the CPU whatever they name.
type multiDeviceNaive struct{ convolve.Variant }

func (v multiDeviceNaive) Describe() convolve.Description {
	d := v.Variant.Describe()
	d.Caps.GPU, d.Caps.MultiDevice = true, true
	return d
}

func (v multiDeviceNaive) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	cfg.Devices = nil
	return v.Variant.Plan(p, cfg)
}

// The runner reports mJ/op and GFLOP/J on the lines of GPU cases on
// device 0 (over their samples, or an energy phase after them where they
// span too little time: TestRunnerEnergyPhase), and leaves them out
// otherwise with one progress note per reason. The GPU cases here are
// cpu-naive's runs (multiDeviceNaive) timed as a pipeline (timing=total)
// on a fake device, metered by a 100 W counter.
func TestRunnerEnergyMetrics(t *testing.T) {
	gpuCase := Case{Variant: "cpu-naive", Width: 64, Height: 48, Filter: "gauss5", Channels: 1, Cache: Hot, Timing: totalTiming, Mem: pageable, GPU: true}
	twoGPUs := gpuCase
	twoGPUs.GPUs = "0,1"
	logical := gpuCase
	logical.GPUs = "0,0"
	cpuCase := Case{Variant: "cpu-naive", Width: 64, Height: 48, Filter: "gauss5", Channels: 1, Cache: Hot, Timing: CPUTiming}
	counter := &wattCounter{start: time.Now(), watts: 100}
	tests := []struct {
		name     string
		meter    *EnergyMeter
		cases    []Case
		reported []bool   // whether each case's line carries energy
		notes    []string // parts of the energy notes, one per note, in order
	}{
		{"metered", &EnergyMeter{Counter: counter, MinSpan: time.Millisecond}, []Case{cpuCase, gpuCase, logical, cpuCase}, []bool{false, true, true, false},
			[]string{"energy: NVML's counter, an update period not measured; GPU lines carry mJ/op and GFLOP/J over at least 1ms of timed runs"}},
		{"other GPUs", &EnergyMeter{Counter: counter, MinSpan: time.Millisecond}, []Case{twoGPUs, gpuCase, twoGPUs}, []bool{false, true, false},
			[]string{"energy: NVML's counter",
				"energy: lines where the case runs on other GPUs than the metered device 0 carry no mJ/op or GFLOP/J, the first " + twoGPUs.Name() + " line 1 (gpus=0,1)"}},
		{"off", &EnergyMeter{Off: "NVML: libnvidia-ml.so.1 cannot be opened"}, []Case{cpuCase, gpuCase, twoGPUs}, []bool{false, false, false},
			[]string{"energy: not recorded (NVML: libnvidia-ml.so.1 cannot be opened): GPU lines carry no mJ/op or GFLOP/J"}},
		{"no meter", nil, []Case{gpuCase}, []bool{false}, []string{"energy: not recorded (no energy counter)"}},
		{"CPU cases only", &EnergyMeter{Off: "no GPU"}, []Case{cpuCase}, []bool{false}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var progress strings.Builder
			r := &Runner{Device: fakeDevice{}, CPUThreads: 1, Seed: 1, Noise: quickNoise, Energy: tt.meter,
				Progress: newProgress(&progress, "test", len(tt.cases), nowForTest()),
				Lookup: func(name string) (convolve.Variant, error) {
					v, err := convolve.Lookup(name)
					return multiDeviceNaive{v}, err
				}}
			for i, c := range tt.cases {
				res := benchOnce(t, func(b *testing.B) { r.Run(b, c) })
				mj, hasMJ := res.Extra["mJ/op"]
				gfj, hasGFJ := res.Extra["GFLOP/J"]
				if hasMJ != tt.reported[i] || hasGFJ != tt.reported[i] {
					t.Errorf("case %d (%s): mJ/op %v (%v), GFLOP/J %v (%v); want reported %v", i, c.Name(), mj, hasMJ, gfj, hasGFJ, tt.reported[i])
				}
				if !hasMJ {
					continue
				}
				// 100 W over the mean time of a run, which a pause of
				// the host in one of so few samples can put well above
				// their median.
				if per := res.Extra["total-ns/op"]; !(mj > 0.5*per*1e-4 && mj < 20*per*1e-4) {
					t.Errorf("case %d: %v mJ a run at 100 W, %v ns a run", i, mj, per)
				}
				p, err := c.Problem()
				if err != nil {
					t.Fatal(err)
				}
				if want := convolve.ThroughputOf(p).Flops() / (mj * 1e6); math.Abs(gfj-want) > 1e-9*want {
					t.Errorf("case %d: GFLOP/J %v, want FLOP a run / (mJ a run x 1e6) = %v", i, gfj, want)
				}
			}
			r.Finish(nowForTest())
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, l := range strings.Split(progress.String(), "\n") {
				if strings.HasPrefix(l, "  energy:") {
					notes = append(notes, strings.TrimPrefix(l, "  "))
				}
			}
			if len(notes) != len(tt.notes) {
				t.Fatalf("energy notes %q, want %d", notes, len(tt.notes))
			}
			for i, want := range tt.notes {
				if !strings.HasPrefix(notes[i], want) {
					t.Errorf("note %q\nwant %q...", notes[i], want)
				}
			}
			if tt.name == "metered" && !strings.Contains(progress.String(), " mJ a run (") {
				t.Errorf("the line notes do not give the energy:\n%s", progress.String())
			}
		})
	}
}

// ExampleEnergyMeter_PerRun: a line of 120 samples of a millisecond, 50
// runs each, over which the counter advanced 36 J, drew 6 mJ a run; ten
// such samples are too short for the counter, and PerRun says why (the
// runner then meters an energy phase after them instead).
func ExampleEnergyMeter_PerRun() {
	m := &EnergyMeter{Counter: &fakeCounter{mj: []uint64{0}}}
	long := m.PerRun(EnergyUse{MJ: 36000, Span: 120 * time.Millisecond, Runs: 6000, Samples: 120})
	short := m.PerRun(EnergyUse{MJ: 3000, Span: 10 * time.Millisecond, Runs: 500, Samples: 10})
	fmt.Println(long.MJPerRun, "mJ a run")
	fmt.Printf("left out: %s (%s)\n", short.Omitted, short.Detail)
	// Output:
	// 6 mJ a run
	// left out: the metered runs span too little time for the counter's resolution (10 samples span 10ms, under 100ms)
}
