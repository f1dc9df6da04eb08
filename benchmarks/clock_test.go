package benchmarks

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeClocks returns SM clock readings in turn (the last one repeats) and
// a fixed state around them.
type fakeClocks struct {
	mhz   []int
	reads int
	err   error // returned from the read numbered errAt (1-based)
	errAt int
}

func (f *fakeClocks) SMClockMHz() (int, error) {
	f.reads++
	if f.err != nil && f.reads == f.errAt {
		return 0, f.err
	}
	v := f.mhz[min(f.reads-1, len(f.mhz)-1)]
	return v, nil
}

func (f *fakeClocks) State() (GPUState, error) {
	return GPUState{SMClockMHz: 1980, PowerW: 300, HasPower: true, TempC: 40, HasTemp: true}, nil
}

func TestClockGuardDiscards(t *testing.T) {
	const boost = 1980 // limit: 1782 MHz
	tests := []struct {
		name string
		// mhz are the readings before and after each sample, in turn.
		mhz        []int
		maxRetakes int
		// samples are numbered from 1 in the order taken; want lists the
		// numbers of those kept.
		want          []int
		discarded     int
		keptThrottled int
	}{
		{"full clock", []int{1980}, 100, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 0},
		// A GPU waking from idle: the first two samples start at 345 MHz.
		{"idle at start", []int{345, 1500, 1600, 1980}, 100, []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 2, 0},
		// The reading after the sample counts as much as the one before.
		{"drops during a sample", []int{1980, 1980, 1980, 1700, 1980}, 100, []int{1, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 1, 0},
		// The limit itself is fine; one MHz under it is not.
		{"at the limit", []int{1782}, 100, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 0},
		{"under the limit then up", []int{1781, 1781, 1980}, 100, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 1, 0},
		// A GPU that stays throttled: three retakes, then samples are kept
		// and counted.
		{"always throttled", []int{1400}, 3, []int{4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, 3, 10},
		{"no retakes allowed", []int{1400}, 0, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 10},
	}
	for _, tt := range tests {
		clocks := &fakeClocks{mhz: tt.mhz}
		g := &ClockGuard{Clocks: clocks, MaxMHz: boost, MaxRetakes: tt.maxRetakes}
		clock := &fakeTime{t: time.Unix(0, 0), step: time.Millisecond}
		n := 0
		take := func() (Sample, error) {
			n++
			clock.t = clock.t.Add(clock.step)
			// Each sample's value is its number, so the kept ones show.
			return Sample{Per: 1e6 + float64(n), Host: 1}, nil
		}
		// A loose target: the set stops at its tenth kept sample.
		set, err := Noise{Target: 100, MinSamples: 10, MaxTime: time.Hour}.Collect(take, g, clock.now, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var kept []int
		for _, v := range set.Per {
			kept = append(kept, int(v-1e6))
		}
		if !slices.Equal(kept, tt.want) {
			t.Errorf("%s: kept samples %v, want %v", tt.name, kept, tt.want)
		}
		if set.Discarded != tt.discarded || set.KeptThrottled != tt.keptThrottled {
			t.Errorf("%s: discarded %d, kept throttled %d; want %d, %d", tt.name, set.Discarded, set.KeptThrottled, tt.discarded, tt.keptThrottled)
		}
		if clocks.reads != 2*n {
			t.Errorf("%s: %d clock reads for %d samples, want two per sample", tt.name, clocks.reads, n)
		}
		if set.Start.SMClockMHz != 1980 || !set.End.HasPower || set.End.PowerW != 300 || set.End.TempC != 40 {
			t.Errorf("%s: start %v end %v, want the clocks' state", tt.name, set.Start, set.End)
		}
	}
}

// Off, the guard reads nothing and keeps every sample; it never makes up
// a clock.
func TestClockGuardOff(t *testing.T) {
	for _, g := range []*ClockGuard{nil, {Off: "no GPU"}, {Clocks: &fakeClocks{mhz: []int{100}}, MaxMHz: 0}} {
		clock := &fakeTime{t: time.Unix(0, 0), step: time.Millisecond}
		take, n := takes(clock, 1e6)
		set, err := Noise{Target: 1, MinSamples: 10, MaxTime: time.Hour}.Collect(take, g, clock.now, nil)
		if err != nil {
			t.Fatal(err)
		}
		if *n != 10 || set.Discarded != 0 || set.KeptThrottled != 0 || set.Start != (GPUState{}) || set.End != (GPUState{}) {
			t.Errorf("guard %+v: %d samples, set %+v; want 10 samples and no clock", g, *n, set)
		}
		if g.On() || g.Throttled(1) {
			t.Errorf("guard %+v is on", g)
		}
	}
}

func TestClockGuardReadError(t *testing.T) {
	boom := errors.New("NVML_ERROR_GPU_IS_LOST")
	for _, at := range []int{1, 2, 5} {
		g := &ClockGuard{Clocks: &fakeClocks{mhz: []int{1980}, err: boom, errAt: at}, MaxMHz: 1980, MaxRetakes: 10}
		clock := &fakeTime{t: time.Unix(0, 0), step: time.Millisecond}
		take, _ := takes(clock, 1e6)
		if _, err := DefaultNoise.Collect(take, g, clock.now, nil); !errors.Is(err, boom) || !strings.Contains(err.Error(), "SM clock") {
			t.Errorf("read %d fails: error %v, want one wrapping %v", at, err, boom)
		}
	}
}

func TestClockGuardConfigLines(t *testing.T) {
	on := &ClockGuard{Clocks: &fakeClocks{mhz: []int{1980}}, MaxMHz: 1980, MaxRetakes: 100}
	want := []string{
		"# measured gpu-max-sm-mhz: 1980",
		"clock-guard: on, samples taken below 90% of gpu-max-sm-mhz are discarded and taken again, at most 100 per line",
	}
	if got := on.ConfigLines(); !slices.Equal(got, want) {
		t.Errorf("on: %q, want %q", got, want)
	}
	off := &ClockGuard{Off: "NVML: libnvidia-ml.so.1 cannot be opened"}
	if got := off.ConfigLines(); len(got) != 1 || got[0] != "clock-guard: off (NVML: libnvidia-ml.so.1 cannot be opened); samples are kept whatever the SM clock" {
		t.Errorf("off: %q", got)
	}
	if got := (GPUState{SMClockMHz: 1755, PowerW: 512.25, HasPower: true, TempC: 61, HasTemp: true}).String(); got != "1755 MHz, 512.2 W, 61 C" {
		t.Errorf("GPUState.String() = %q", got)
	}
	if got := (GPUState{SMClockMHz: 1410}).String(); got != "1410 MHz" {
		t.Errorf("GPUState.String() without power and temperature = %q", got)
	}
	if got := (GPUState{SMClockMHz: 1410, HasProcesses: true}).String(); got != "1410 MHz" {
		t.Errorf("GPUState.String() with no other process = %q", got)
	}
	if got := (GPUState{SMClockMHz: 1410, OtherProcesses: 2, HasProcesses: true}).String(); got != "1410 MHz, 2 other processes on the GPU" {
		t.Errorf("GPUState.String() with two other processes = %q", got)
	}
}
