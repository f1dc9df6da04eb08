package benchmarks

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// steppedGPU is a GPU that draws watts at all times and whose energy
// counter the driver brings up to date every period, the first update
// offset after start, on a fake clock that its runs advance by wall
// each: the counter NVML reads between updates.
type steppedGPU struct {
	clock          fakeTime
	start          time.Time
	period, offset time.Duration
	watts          float64
	wall           time.Duration
	runs           int
	calls          []int
	err            error // what the fifth call returns
}

func newSteppedGPU(period, offset time.Duration, watts float64, wall time.Duration) *steppedGPU {
	t0 := time.Unix(0, 0)
	return &steppedGPU{clock: fakeTime{t: t0}, start: t0, period: period, offset: offset, watts: watts, wall: wall}
}

func (g *steppedGPU) EnergyMJ() (uint64, error) {
	since := g.clock.t.Sub(g.start)
	if since < g.offset {
		return 5000, nil
	}
	last := g.offset + (since-g.offset)/g.period*g.period
	return 5000 + uint64(math.Round(last.Seconds()*g.watts*1e3)), nil
}

func (g *steppedGPU) run(k int) error {
	g.calls = append(g.calls, k)
	if g.err != nil && len(g.calls) == 5 {
		return g.err
	}
	g.runs += k
	g.clock.t = g.clock.t.Add(time.Duration(k) * g.wall)
	return nil
}

// An aligned energy phase measures the power between two counter updates
// at least alignedSpan apart, each dated within half a short batch, and
// reports it times a run's wall time: within a percent of the true
// energy of a run where runs are short, within the dating's share where
// a run is a sizeable part of a period; it lasts the span and at most
// about two periods more, and no call exceeds the line's batch.
func TestAlignedEnergyPhase(t *testing.T) {
	tests := []struct {
		name           string
		period, offset time.Duration
		watts          float64
		wall           time.Duration // a run's
		batch          int
		tolerance      float64 // relative error allowed of mJ/op
	}{
		{"short runs, 100ms updates", 100 * time.Millisecond, 37 * time.Millisecond, 500, 10 * time.Microsecond, 100, 0.01},
		{"short runs, 10ms updates", 10 * time.Millisecond, 3 * time.Millisecond, 300, 7 * time.Microsecond, 1000, 0.01},
		{"runs in large batches", 100 * time.Millisecond, 90 * time.Millisecond, 650, 3 * time.Microsecond, 100000, 0.01},
		// A run of 17ms dates each update within 8.5ms, over at least
		// 350ms.
		{"long runs", 100 * time.Millisecond, 5 * time.Millisecond, 420, 17 * time.Millisecond, 1, 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSteppedGPU(tt.period, tt.offset, tt.watts, tt.wall)
			m := &EnergyMeter{Counter: g, Period: tt.period, MinSpan: 10 * tt.period}
			u, err := m.Phase(tt.wall, tt.batch, g.clock.now, g.run)
			if err != nil {
				t.Fatal(err)
			}
			if u.Failed != "" || !u.Phase || u.Samples != 1 || u.Updates < m.alignedSpan() {
				t.Fatalf("use %+v: want a phase between updates at least %v apart", u, m.alignedSpan())
			}
			e := m.PerRun(u)
			want := tt.watts * tt.wall.Seconds() * 1e3
			if !e.Reported() || math.Abs(e.MJPerRun-want) > tt.tolerance*want {
				t.Errorf("line energy %+v, want %.4g mJ a run within %.0f%%", e, want, 100*tt.tolerance)
			}
			if took := g.clock.t.Sub(g.start); took > m.alignedSpan()+2*tt.period+2*tt.wall*time.Duration(tt.batch) {
				t.Errorf("the phase took %v, over its span %v and two periods", took, m.alignedSpan())
			}
			for i, k := range g.calls {
				if k < 1 || k > tt.batch {
					t.Errorf("call %d times %d runs, want 1 to the batch of %d", i, k, tt.batch)
				}
			}
			if u.Runs > g.runs {
				t.Errorf("%d runs between the updates, of %d timed", u.Runs, g.runs)
			}
		})
	}
}

// A counter that does not advance ends the phase after its limit with the
// reason, and the line carries none; the runs' error comes back.
func TestAlignedEnergyPhaseFaults(t *testing.T) {
	still := newSteppedGPU(100*time.Millisecond, 0, 0, 10*time.Microsecond)
	m := &EnergyMeter{Counter: still, Period: 100 * time.Millisecond, MinSpan: time.Second}
	u, err := m.Phase(10*time.Microsecond, 100, still.clock.now, still.run)
	if err != nil {
		t.Fatal(err)
	}
	if e := m.PerRun(u); e.Reported() || e.Omitted != energyUnread || !strings.Contains(e.Detail, "did not advance") {
		t.Errorf("a still counter: line energy %+v, want none, saying it did not advance", e)
	}
	if took := still.clock.t.Sub(still.start); took > m.alignedSpan()+5*m.Period {
		t.Errorf("a still counter kept the phase going %v", took)
	}
	boom := errors.New("launch failed")
	g := newSteppedGPU(100*time.Millisecond, 0, 100, 10*time.Microsecond)
	g.err = boom
	if _, err := (&EnergyMeter{Counter: g, Period: 100 * time.Millisecond}).Phase(10*time.Microsecond, 100, g.clock.now, g.run); !errors.Is(err, boom) {
		t.Errorf("a failing run: %v, want its error", err)
	}
}

// The number of runs that fill a span: at least one, at most the batch.
func TestRunsIn(t *testing.T) {
	for _, tt := range []struct {
		d, perRun time.Duration
		batch     int
		want      int
	}{
		{2 * time.Millisecond, 10 * time.Microsecond, 1000, 200},
		{2 * time.Millisecond, 10 * time.Microsecond, 100, 100},
		{2 * time.Millisecond, 3 * time.Microsecond, 1000, 667},
		{2 * time.Millisecond, 17 * time.Millisecond, 10, 1},
		{2 * time.Millisecond, 0, 10, 1},
	} {
		if got := runsIn(tt.d, tt.perRun, tt.batch); got != tt.want {
			t.Errorf("runsIn(%v, %v, %d) = %d, want %d", tt.d, tt.perRun, tt.batch, got, tt.want)
		}
	}
}
