package benchmarks

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/convbench/convbench/runfile"
)

// Clocks reads the state of the GPU the cases run on; cudabind's NVML
// binding is one (see openHost), tests use fakes.
type Clocks interface {
	// SMClockMHz is the SM clock now.
	SMClockMHz() (int, error)
	// State is the SM clock, and the power draw, temperature and
	// other processes on the GPU where the driver reports them.
	State() (GPUState, error)
}

// GPUState is what Clocks.State reads at one moment.
type GPUState struct {
	SMClockMHz int
	PowerW     float64 // with HasPower
	TempC      int     // with HasTemp
	HasPower   bool
	HasTemp    bool
	// OtherProcesses is how many processes other than this one held a
	// compute context on the GPU, with HasProcesses.
	OtherProcesses int
	HasProcesses   bool
}

// String renders the state as "1980 MHz, 312.4 W, 41 C", and "2 other
// processes on the GPU" where there were any, leaving out what the driver
// did not report.
func (s GPUState) String() string {
	parts := []string{fmt.Sprintf("%d MHz", s.SMClockMHz)}
	if s.HasPower {
		parts = append(parts, fmt.Sprintf("%.1f W", s.PowerW))
	}
	if s.HasTemp {
		parts = append(parts, fmt.Sprintf("%d C", s.TempC))
	}
	if s.HasProcesses && s.OtherProcesses > 0 {
		parts = append(parts, fmt.Sprintf("%d other processes on the GPU", s.OtherProcesses))
	}
	return strings.Join(parts, ", ")
}

// throttleFraction is the share of the maximum SM clock below which a
// sample counts as taken by a throttled GPU.
const throttleFraction = 0.9

// defaultMaxRetakes bounds the samples of one result line that the
// guard discards and takes again.
const defaultMaxRetakes = 100

// ClockGuard discards samples taken while the SM clock is below
// throttleFraction of the maximum (boost) SM clock, at most MaxRetakes
// per sample set; later throttled samples are kept and counted. A guard
// with nil Clocks is off: the output says why (Off) and no clock is
// assumed.
type ClockGuard struct {
	Clocks     Clocks // nil: off
	MaxMHz     int    // maximum SM clock, from the driver
	MaxRetakes int
	Off        string // why the guard is off
}

// On reports whether the guard watches the clock.
func (g *ClockGuard) On() bool { return g != nil && g.Clocks != nil && g.MaxMHz > 0 }

// LimitMHz is the lowest SM clock, in MHz, of a sample that counts:
// throttleFraction of MaxMHz, rounded up.
func (g *ClockGuard) LimitMHz() int {
	return int(math.Ceil(throttleFraction * float64(g.MaxMHz)))
}

// Throttled reports whether a sample whose lowest SM clock reading was
// mhz was taken below the limit.
func (g *ClockGuard) Throttled(mhz int) bool { return g.On() && mhz < g.LimitMHz() }

// ConfigLines are the output's lines of the guard: the maximum SM clock
// (a measured line, runfile.KeyGPUMaxSMMHz, since it differs from board
// to board) and the rule when it is on, the reason when off.
func (g *ClockGuard) ConfigLines() []string {
	if !g.On() {
		why := "no clock source"
		if g != nil && g.Off != "" {
			why = g.Off
		}
		return []string{runfile.ConfigLine(runfile.KeyClockGuard, "off ("+why+"); samples are kept whatever the SM clock")}
	}
	return []string{
		runfile.MeasuredLine(runfile.KeyGPUMaxSMMHz, strconv.Itoa(g.MaxMHz)),
		runfile.ConfigLine(runfile.KeyClockGuard, fmt.Sprintf("on, samples taken below %.0f%% of %s are discarded and taken again, at most %d per line",
			100*throttleFraction, runfile.KeyGPUMaxSMMHz, g.MaxRetakes)),
	}
}
