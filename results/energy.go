package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/convbench/convbench/convolve"
)

// energyUnit is the unit of the energy one run drew; the others describe it.
const (
	energyUnit        = "mJ/op"
	noEnergyRecorded  = "Energy was not recorded: no line this section reads carries `" + energyUnit + "`, the energy one run drew by NVML's energy counter (runs from before it was measured lack it; a run's `gpu-energy` line says whether the counter was read and how a line's energy was measured)."
	energyCaptionTail = " Energy is the median over the case's runs of `" + energyUnit + "`, what NVML's energy counter of the whole board advanced over the timed runs of a line's samples divided by the runs, or where they spanned too little time for the coarse counter that of an energy phase of the same runs after them: the power between two of the counter's updates times one run's wall time where the counter's update period was measured, else the counter's advance over the phase divided by its runs (idle time between launches included either way), ± the half-width of its confidence interval; GFLOP/J is 2·K² FLOP an output over that energy. The last column is the fastest variant's energy a run over the most efficient one's (\"~\" where their runs do not differ significantly; a dash where the two are one). A dash where the variant's lines carry no energy: lines whose samples spanned too little time, of runs from before the energy phase or of cold cases (which run none), leave it out (the run's `gpu-energy` line says how energy was measured)." + untested
)

// energyOf is the measure of smp's energy per run (mJ).
func energyOf(smp *Sample) Measure { return measureOf(smp, energyUnit) }

// hasEnergy reports whether any of ss records its energy.
func hasEnergy(ss []*Sample) bool {
	return slices.ContainsFunc(ss, func(s *Sample) bool { return len(s.Values[energyUnit]) > 0 })
}

// frugalSample returns the sample of ss with the least median energy, or nil.
func frugalSample(ss []*Sample) *Sample {
	var best *Sample
	be := 0.0
	for _, s := range ss {
		if e, ok := s.Median(energyUnit); ok && e > 0 && (best == nil || e < be) {
			best, be = s, e
		}
	}
	return best
}

// energyCell formats an energy measure (mJ): "6.02 ±3%".
func energyCell(m Measure) string { return centerCI(m, 1) }

// gflopPerJouleCell formats flops FLOP over the energy m (mJ) in GFLOP/J.
func gflopPerJouleCell(flops float64, m Measure) string { return perCell(flops/1e6, m) }

// gflopsCell formats flops FLOP over the time m (ns) in GFLOP/s.
func gflopsCell(flops float64, m Measure) string { return perCell(flops, m) }

// perCell formats x over m's median to 3 digits; a dash without one.
func perCell(x float64, m Measure) string {
	c := m.Center()
	if math.IsNaN(c) || c <= 0 {
		return missing
	}
	return Sig(x/c, 3)
}

// energyRatioCell is the fastest's energy over the most efficient's, if differ.
func energyRatioCell(differ bool, fastest, frugal Measure) string {
	if !differ {
		return missing
	}
	return crossoverRatio(fastest, frugal)
}

// squareFlops is the FLOP of a K x K filter over a one-channel "WxH" image.
func squareFlops(size string, k int) (float64, bool) {
	w, h, ok := parseSize(size)
	if !ok {
		return 0, false
	}
	return convolve.Throughput{Pixels: int64(w) * int64(h), Channels: 1, KW: k, KH: k}.Flops(), true
}

// rooflineEnergy is the fastest and most frugal variant per filter, or nil.
func rooflineEnergy(h *Host, run *Run, filters []string, flops map[string]float64) *Table {
	if !hasEnergy(rooflineSamples(run)) {
		return nil
	}
	t := &Table{ID: "roofline-energy-" + h.Slug, Title: "Fastest and most energy-efficient, " + rooflineSize + " Gaussian K x K — " + h.Title,
		Caption: "From the host's run `" + run.Preset + "` (" + timingOf(rooflineSamples(run)) + "): per filter the fastest variant at its fastest block and tunables, and the variant that drew the least energy a run at its most frugal setting, each with its GFLOP/s, energy a run and GFLOP per joule." + energyCaptionTail,
		Header:  append([]string{"Filter"}, energyHeader...)}
	for _, spec := range filters {
		ss := run.Find(Q{"size": rooflineSize, "filter": spec, "cache": "hot", "opts": "default"})
		fast := fastestSample(ss)
		if fast == nil {
			continue
		}
		t.Rows = append(t.Rows, append([]string{spec}, energyCells(flops[spec], fast, frugalSample(ss))...))
	}
	return t
}

// energyHeader names the cells of energyCells.
var energyHeader = []string{"Fastest", "GFLOP/s", "mJ a run", "GFLOP/J", "Most efficient", "mJ a run", "GFLOP/J", "GFLOP/s", "Fastest's mJ / its"}

// energyCells are the energyHeader cells of fastest fast and most frugal fr.
func energyCells(flops float64, fast, fr *Sample) []string {
	row := []string{fast.Keys["variant"], gflopsCell(flops, timeOf(fast)), energyCell(energyOf(fast)), gflopPerJouleCell(flops, energyOf(fast))}
	if fr == nil {
		return append(row, missing, missing, missing, missing, missing)
	}
	return append(row, fr.Keys["variant"], energyCell(energyOf(fr)), gflopPerJouleCell(flops, energyOf(fr)), gflopsCell(flops, timeOf(fr)),
		energyRatioCell(fast != fr, energyOf(fast), energyOf(fr)))
}

// floorsEnergy is rooflineEnergy's table per case of family.
func floorsEnergy(h *Host, d *floorData, family, which string) *Table {
	var rows [][]string
	recorded := false
	for _, size := range floorSizes {
		for _, k := range d.ks[family] {
			c, ok := d.cases[floorKey(family, size, k)]
			if !ok || c.fastest == nil {
				continue
			}
			recorded = recorded || c.frugal != nil
			f, _ := squareFlops(size, k)
			rows = append(rows, append([]string{size, strconv.Itoa(k)}, energyCells(f, c.fastest, c.frugal)...))
		}
	}
	if !recorded {
		return nil
	}
	return &Table{ID: "floors-energy-" + family + "-" + h.Slug, Title: fmt.Sprintf("%s<K>: fastest and most energy-efficient — %s", family, h.Title),
		Caption: "From " + which + " (`timing=kernel-graph`, f32, one channel, zero border, hot cache): per case the fastest variant of any error model at its fastest block and tunables, and the variant that drew the least energy a run at its most frugal setting, each with its GFLOP/s, energy a run and GFLOP per joule." + energyCaptionTail,
		Header:  append([]string{"Size", "K"}, energyHeader...), Keys: 2, Rows: rows}
}

// crossoverEnergy is rooflineEnergy's table per crossover case.
func crossoverEnergy(h *Host, which string, cases []crossoverCase) *Table {
	any := false
	for _, c := range cases {
		for _, m := range c.energy {
			any = any || m.OK()
		}
	}
	if !any {
		return nil
	}
	t := &Table{ID: "crossover-energy-" + h.Slug, Title: "Fastest and most energy-efficient path — " + h.Title,
		Caption: "From " + which + ": per case the fastest variant by median kernel time, as in \"Where each path wins\", and the variant that drew the least energy a run, each with its kernel time (ms ± the half-width of its confidence interval), energy a run and GFLOP per joule (`auto` left aside: it runs one of them)." + energyCaptionTail,
		Header:  []string{"Size", "Filter", "Fastest", "Time (ms)", "mJ a run", "GFLOP/J", "Most efficient", "mJ a run", "GFLOP/J", "Time (ms)", "Fastest's mJ / its"}, Keys: 2}
	t.Rows = fastestRows(cases, notAuto, func(c crossoverCase, r []string) []string {
		f, _ := squareFlops(c.size, c.k)
		fast := r[0]
		row := []string{energyCell(c.energy[fast]), gflopPerJouleCell(f, c.energy[fast])}
		if fr := c.frugal(); fr != "" {
			return append(row, fr, energyCell(c.energy[fr]), gflopPerJouleCell(f, c.energy[fr]), msCI(c.times[fr]),
				energyRatioCell(fast != fr, c.energy[fast], c.energy[fr]))
		}
		return append(row, missing, missing, missing, missing, missing)
	})
	return t
}

// frugal is the non-auto variant with the least median energy, or "".
func (c crossoverCase) frugal() string {
	best, be := "", 0.0
	for v, m := range c.energy {
		e := m.Center()
		if isAuto(v) || !(e > 0) {
			continue
		}
		if best == "" || e < be || e == be && v < best {
			best, be = v, e
		}
	}
	return best
}
