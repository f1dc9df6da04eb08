package results

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/runfile"
)

// Section is one part of the report: tables, plots and timelines.
type Section struct {
	ID        string // its builder's name, or "run-<host>-<preset>"
	Report    string // the preset it reads: "000".."004", "default", ...
	Title     string
	Notes     []string // paragraphs under the plots: what it could not show
	Tables    []*Table
	Plots     []*Plot
	Timelines []*Timeline // one overlapped run each
}

// add appends the tables of ts that are not nil to s.
func (s *Section) add(ts ...*Table) {
	for _, t := range ts {
		if t != nil {
			s.Tables = append(s.Tables, t)
		}
	}
}

// lead puts the tables of ts that have rows first in s, in order.
func (s *Section) lead(ts ...*Table) {
	s.Tables = append(slices.DeleteFunc(ts, func(t *Table) bool { return len(t.Rows) == 0 }), s.Tables...)
}

// sectionBuilders are the report's sections in the order it renders them.
var sectionBuilders = []struct {
	name  string
	build func(hosts []*Host) *Section
}{
	{"000", section000},
	{"001", section001},
	{"002", section002},
	{"003", section003},
	{"004", section004},
	{"multigpu", sectionMultiGPU},
	{"default", sectionDefault},
	{"launch", sectionLaunch},
	{"tuning_tiled", sectionTuningTiled},
	{"tuned", sectionTunedVsDefault},
	{"floors", sectionFloors},
	{"shapes", sectionShapes},
	{"crossover", sectionCrossover},
	{"roofline", sectionRoofline},
	{"across", sectionAcrossGPUs},
	{"cpu_roofline", sectionCPURoofline},
	{"cpu_peers", sectionCPUPeers},
	{"plan_cost", sectionPlanCost},
	{"spread", sectionSpread},
}

// sections builds every report section from the hosts' runs.
func sections(hosts []*Host) []*Section {
	secs := make([]*Section, len(sectionBuilders))
	for i, b := range sectionBuilders {
		secs[i] = b.build(hosts)
		secs[i].ID = b.name
	}
	keepCPUOnly(hosts, secs)
	return secs
}

// keepCPUOnly cuts each GPU-less host's tables to its CPU cases.
func keepCPUOnly(hosts []*Host, secs []*Section) {
	for _, h := range hosts {
		if h.GPU {
			continue
		}
		for _, s := range secs {
			s.Tables = slices.DeleteFunc(s.Tables, func(t *Table) bool {
				return strings.HasSuffix(t.ID, "-"+h.Slug) && !t.CPUOnly()
			})
		}
	}
}

func nan() float64 { return math.NaN() }

// nans is n NaNs: a series without points yet.
func nans(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = nan()
	}
	return out
}

// bandwidthPeak reads run's measured copy bandwidth (GB/s) and FP32 peak
// (GFLOP/s); ok is false unless both are positive numbers.
func bandwidthPeak(run *Run) (bw, peak float64, ok bool) {
	bw, err1 := strconv.ParseFloat(run.Config[runfile.KeyGPUCopyGBps], 64)
	peak, err2 := strconv.ParseFloat(run.Config[runfile.KeyGPUPeakFLOPs], 64)
	return bw, peak, err1 == nil && err2 == nil && bw > 0 && peak > 0
}

func val(v float64, ok bool) float64 {
	if !ok {
		return nan()
	}
	return v
}

func speedup(cpu, gpu float64) float64 {
	if math.IsNaN(cpu) || math.IsNaN(gpu) || gpu <= 0 {
		return nan()
	}
	return cpu / gpu
}

// mapCells is f of each of xs.
func mapCells[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// sweepTable adds to t a row per value a of axis: a, then h's time of
// each column's case q(a, column); it returns each column's times in ms.
func sweepTable(h *Host, t *Table, axis []string, cols int, q func(a string, col int) Q) [][]float64 {
	series := make([][]float64, cols)
	for _, a := range axis {
		row := []string{a}
		for i := range cols {
			tm := h.Measure(q(a, i))
			row = append(row, msCI(tm))
			series[i] = append(series[i], tm.Center()/1e6)
		}
		t.Rows = append(t.Rows, row)
	}
	return series
}

// addHostSeries adds h's series of each variant to p.
func addHostSeries(p *Plot, h *Host, variants []string, series [][]float64) {
	for i, v := range variants {
		p.Series = append(p.Series, hostSeries(h, v, series[i]))
	}
}

func msCell(ns float64) string { return ms(ns, !math.IsNaN(ns)) }
func xCell(r float64) string {
	if math.IsNaN(r) || r <= 0 {
		return missing
	}
	return Sig(r, 3) + "×"
}

// pubX formats a speedup a report published, to 4 significant digits.
func pubX(v float64) string { return Sig(v, 4) + "×" }

func pubMS(v float64) string {
	if v <= 0 {
		return missing
	}
	return strconv.FormatFloat(v, 'f', -1, 64) // as the report printed it
}

// appendNew appends v to s where s lacks it.
func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
