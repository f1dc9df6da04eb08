package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// floorSizes are the images of preset roofline.
var floorSizes = []string{"4096x4096", "8192x8192"}

// floorFamilies are the filter families of preset roofline.
var floorFamilies = []string{"dense", "gauss"}

// floorsRun returns h's run of preset roofline (Host.runOrCustom).
func floorsRun(h *Host) *Run { return h.runOrCustom("roofline") }

// Floors are the two time floors of one problem on one GPU, in ns: DRAM,
// its bytes read and written once over the copy bandwidth; FP32, its
// 2·K² FLOP an output over the FP32 peak.
type Floors struct {
	DRAM, FP32 float64
}

// floorsOf returns the floors of a K x K f32 filter over a "WxH" image.
func floorsOf(k int, size string, copyGBps, peakGFLOPs float64) (Floors, error) {
	w, h, ok := parseSize(size)
	if !ok || w <= 0 || h <= 0 {
		return Floors{}, fmt.Errorf("results: image size %q is not WxH", size)
	}
	if k <= 0 {
		return Floors{}, fmt.Errorf("results: filter size %d is not positive", k)
	}
	if !(copyGBps > 0) || !(peakGFLOPs > 0) {
		return Floors{}, fmt.Errorf("results: copy bandwidth %v GB/s and FP32 peak %v GFLOP/s must be positive", copyGBps, peakGFLOPs)
	}
	px := int64(w) * int64(h)
	tp := convolve.Throughput{Pixels: px, Channels: 1, KW: k, KH: k, BytesRead: 4 * px, BytesWritten: 4 * px}
	return Floors{DRAM: float64(tp.BytesRead+tp.BytesWritten) / copyGBps, FP32: tp.Flops() / peakGFLOPs}, nil
}

// Binding is the larger floor and its name, "DRAM" or "FP32".
func (f Floors) Binding() (ns float64, name string) {
	if f.FP32 > f.DRAM {
		return f.FP32, "FP32"
	}
	return f.DRAM, "DRAM"
}

// floorCase is one problem of a roofline run: its floors and each variant's kernel time.
type floorCase struct {
	family, size string
	k            int
	floors       Floors
	times        map[string]Measure
	// fastest and frugal are the fastest sample and the one that drew
	// the least energy (nil where none records it).
	fastest, frugal *Sample
}

// share is the binding floor over variant v's time, NaN without a time.
func (c floorCase) share(v string) float64 {
	m, ok := c.times[v]
	if !ok || !m.OK() || !(m.Center() > 0) {
		return nan()
	}
	b, _ := c.floors.Binding()
	return b / m.Center()
}

// best is the fastest variant of vs on the case, "" when none ran it.
func (c floorCase) best(vs []string) string {
	best, bt := "", math.Inf(1)
	for _, v := range vs {
		if m, ok := c.times[v]; ok && m.OK() && m.Center() < bt {
			best, bt = v, m.Center()
		}
	}
	return best
}

// floorData is what the section reads of one GPU's roofline run.
type floorData struct {
	run      *Run
	bw, peak float64
	variants map[string][]string // family -> variants in run order
	ks       map[string][]int    // family -> K ascending
	cases    map[string]floorCase
	looser   map[string]bool // variants of a looser error model than float32's (looserPaths)
}

// accurate returns the variants of family held to float32's error model.
func (d *floorData) accurate(family string) []string {
	var vs []string
	for _, v := range d.variants[family] {
		if !d.looser[v] {
			vs = append(vs, v)
		}
	}
	return vs
}

// copyBWNote describes the copy bandwidth bw and its shards' range.
func copyBWNote(run *Run, bw float64) string {
	note := Sig(bw, 5) + " GB/s"
	if vs := run.measured[runfile.KeyGPUCopyGBps]; len(vs) > 1 {
		note += fmt.Sprintf(", the median of the %d values its shards measured, %s to %s GB/s", len(vs), Sig(vs[0], 5), Sig(vs[len(vs)-1], 5))
	}
	return note
}

func floorKey(family, size string, k int) string { return family + "/" + size + "/" + strconv.Itoa(k) }

// readFloors collects run's f32 graph-replay cases; nil without its ceilings.
func readFloors(run *Run) *floorData {
	bw, peak, ok := bandwidthPeak(run)
	if !ok {
		return nil
	}
	d := &floorData{run: run, bw: bw, peak: peak, variants: map[string][]string{}, ks: map[string][]int{}, cases: map[string]floorCase{}, looser: looserPaths(run)}
	base := Q{"type": "f32", "ch": "1", "border": "zero", "cache": "hot", "timing": "kernel-graph", "opts": "default"}
	for _, smp := range run.Find(base) {
		family, k, ok := familyK(smp.Keys["filter"], floorFamilies)
		if !ok || !slices.Contains(floorSizes, smp.Keys["size"]) {
			continue
		}
		d.variants[family] = appendNew(d.variants[family], smp.Keys["variant"])
		d.ks[family] = appendNew(d.ks[family], k)
	}
	for _, family := range floorFamilies {
		slices.Sort(d.ks[family])
		for _, size := range floorSizes {
			for _, k := range d.ks[family] {
				spec := convolve.FilterSpec{Family: family, K: k}.String()
				fl, err := floorsOf(k, size, bw, peak)
				if err != nil {
					continue
				}
				all := run.Find(base.with("size", size, "filter", spec))
				c := floorCase{family: family, size: size, k: k, floors: fl, times: map[string]Measure{}, fastest: fastestSample(all), frugal: frugalSample(all)}
				for _, v := range d.variants[family] {
					if smp := fastestSample(run.Find(base.with("variant", v, "size", size, "filter", spec))); smp != nil {
						c.times[v] = timeOf(smp)
					}
				}
				d.cases[floorKey(family, size, k)] = c
			}
		}
	}
	return d
}

// bestCells are the fastest of vs on c and its share of the binding floor.
func bestCells(c floorCase, vs []string) []string {
	best := c.best(vs)
	if best == "" {
		return []string{missing, missing}
	}
	return []string{best, percent(c.share(best), true)}
}

// looserOf returns the variants of vs that looser holds, in order.
func looserOf(vs []string, looser map[string]bool) []string {
	var out []string
	for _, v := range vs {
		if looser[v] {
			out = append(out, "`"+v+"`")
		}
	}
	return out
}

// familyK reads a filter of families by its canonical name: "dense21".
func familyK(value string, families []string) (family string, k int, ok bool) {
	s, err := convolve.ParseFilterSpec(value)
	if err != nil || s.String() != value || s.Sigma != 0 || !slices.Contains(families, s.Family) {
		return "", 0, false
	}
	return s.Family, s.K, true
}

// floorTime is a median in ms, with its interval where there are two values.
func floorTime(m Measure) string {
	if !m.OK() {
		return missing
	}
	if len(m.s.Values) < 2 {
		return ms(m.Center(), true)
	}
	return msCI(m)
}

// FloorGoal is a goal of the floors section: on every case, Variant (or
// the fastest float32-accurate one) reaches Target of Floor ("DRAM" or
// "FP32").
type FloorGoal struct {
	Name    string
	Family  string
	Ks      []int // the Ks it covers; each that the run holds
	Variant string
	Floor   string
	Target  float64
}

// floorGoals are the goals of the direct and fused separable kernels.
var floorGoals = []FloorGoal{
	{Name: "dense K ≤ 7, fastest float32-accurate variant", Family: "dense", Ks: []int{3, 5, 7}, Floor: "DRAM", Target: 0.85},
	{Name: "dense K 9..31, fastest float32-accurate variant", Family: "dense", Ks: []int{9, 11, 15, 21, 31}, Floor: "FP32", Target: 0.75},
	{Name: "Gaussian K ≤ 31, fused separable (gpu-sepfused)", Family: "gauss", Ks: []int{3, 5, 7, 9, 11, 15, 21, 31}, Variant: "gpu-sepfused", Floor: "DRAM", Target: 0.80},
}

// check measures d against goal over floorSizes.
func (d *floorData) check(goal FloorGoal) *goalTally {
	res := &goalTally{}
	for _, size := range floorSizes {
		for _, k := range goal.Ks {
			c, ok := d.cases[floorKey(goal.Family, size, k)]
			if !ok {
				continue
			}
			v := goal.Variant
			if v == "" {
				v = c.best(d.accurate(goal.Family))
			}
			m, ok := c.times[v]
			if v == "" || !ok || !m.OK() || !(m.Center() > 0) {
				continue
			}
			fl := c.floors.DRAM
			if goal.Floor == "FP32" {
				fl = c.floors.FP32
			}
			share := fl / m.Center()
			res.add(share >= goal.Target, -share, percent(share, true), fmt.Sprintf("%s %s%d %s", size, goal.Family, k, v))
		}
	}
	return res
}

// sectionFloors sets each GPU's roofline run against its DRAM and FP32 floors.
func sectionFloors(hosts []*Host) *Section {
	s := &Section{Report: "roofline", Title: "Against the floors: every variant of preset roofline against the DRAM and FP32 floors"}
	plots := map[string]*Plot{}
	for _, family := range floorFamilies {
		plots[family] = &Plot{ID: "floors-" + family, Title: family + "<K>, f32, graph replay: share of the binding floor vs K",
			XLabel: "filter size K", YLabel: "binding floor / kernel time (%)"}
	}
	// Separable paths pass the direct kernels' FP32 floor many times over.
	plots["gauss"].LogY = true
	goals := &Table{ID: "floors-goals", Title: "Goals against the floors",
		Caption: "Each goal over the 4096x4096 and 8192x8192 cases of each GPU's roofline run (the run the tables below name): the share is the named floor over the kernel time of the named variant, or of the fastest float32-accurate variant of each case (every variant but those only `auto-bf16` may take, by the run's `auto-paths` line: the tensor cores that round operands to TF32 or bfloat16); \"met\" when every case reaches the target. Lowest is the lowest share over the cases, and the case it is.",
		Header:  []string{"GPU", "Goal", "Target", "Cases at target", "Lowest share", "Lowest case", "Verdict"}, Keys: 2}
	for h, run := range gpuRuns(hosts, floorsRun) {
		d := readFloors(run)
		if d == nil {
			continue
		}
		which := "run `" + run.Preset + "` (the preset's own axes)"
		if run.Preset != "roofline" {
			which = "run `" + run.Preset + "`, the preset with narrowed axes (" + strings.TrimSpace(run.Config[runfile.KeySweepAxes]) + "), there being no run of its own axes"
		}
		which += run.at()
		for _, family := range floorFamilies {
			t := floorsTable(h, d, family, which, plots[family])
			if t == nil {
				continue
			}
			s.add(t, floorsEnergy(h, d, family, which))
		}
		for _, g := range floorGoals {
			goals.Rows = append(goals.Rows, append([]string{h.Title, g.Name, percent(g.Target, true) + " of the " + g.Floor + " floor"}, d.check(g).cells()...))
		}
	}
	s.lead(goals)
	for _, family := range floorFamilies {
		if p := plots[family]; len(p.Series) > 0 {
			s.Plots = append(s.Plots, p)
		}
	}
	return s
}

// floorsTable is h's table of family against the floors, adding to plot.
func floorsTable(h *Host, d *floorData, family, which string, plot *Plot) *Table {
	vs := d.variants[family]
	if len(vs) == 0 {
		return nil
	}
	t := &Table{ID: "floors-" + family + "-" + h.Slug, Title: fmt.Sprintf("%s<K> against the floors — %s", family, h.Title),
		Caption: fmt.Sprintf("From %s: kernel time (ms, `timing=kernel-graph`, f32, one channel, zero border, hot cache) and, in brackets, the share of the binding floor (floor / time). "+
			"DRAM floor: 8·W·H bytes over the run's gpu-copy-gbps (%s); FP32 floor: 2·K²·W·H FLOP over its gpu-peak-gflops (%s GFLOP/s); the binding floor is the larger. "+
			"A time without ± is one sample set (`-count 1`); with more, ± is the half-width of the %.0f%% confidence interval of the median over the sets, ±∞ where they are too few for one (under five); the spread within each set is the `median-ci95-%%` of its line.",
			which, copyBWNote(d.run, d.bw), Sig(d.peak, 5), 100*runfile.Confidence),
		Header: []string{"Size", "K", "DRAM floor (ms)", "FP32 floor (ms)", "Binds"}, Keys: 2}
	for _, v := range vs {
		t.Header = append(t.Header, v+" (ms, share)")
	}
	t.Header = append(t.Header, "Best", "Best share")
	acc := d.accurate(family)
	mixed := len(acc) < len(vs) // some variants of a looser model
	if mixed {
		t.Header = append(t.Header, "Best float32-accurate", "Its share")
		t.Caption += " Best is the fastest variant of any error model; the last two columns the fastest held to float32's (all but " + strings.Join(looserOf(vs, d.looser), " and ") + ", which round operands to TF32 or bfloat16 and which only `auto-bf16` may take)."
	}
	for _, size := range floorSizes {
		ys := map[string][]float64{}
		for _, k := range d.ks[family] {
			c, ok := d.cases[floorKey(family, size, k)]
			if !ok {
				continue
			}
			_, binds := c.floors.Binding()
			row := []string{size, strconv.Itoa(k), ms(c.floors.DRAM, true), ms(c.floors.FP32, true), binds}
			for _, v := range vs {
				sh := c.share(v)
				cell := floorTime(c.times[v])
				if !math.IsNaN(sh) {
					cell += " (" + percent(sh, true) + ")"
				}
				row = append(row, cell)
				ys[v] = append(ys[v], 100*sh)
			}
			row = append(row, bestCells(c, vs)...)
			if mixed {
				row = append(row, bestCells(c, acc)...)
			}
			t.Rows = append(t.Rows, row)
		}
		p := plot
		if p.X == nil {
			p.X = intStrings(d.ks[family])
			p.XValue = numbers(p.X)
		}
		if !slices.Equal(p.X, intStrings(d.ks[family])) {
			continue // another GPU's Ks: a plot has one axis
		}
		for _, v := range vs {
			p.Series = append(p.Series, Series{Name: h.Title + " " + size + " " + v, Variant: v, Source: h.Title + " " + size, Y: ys[v]})
		}
	}
	if family == "gauss" {
		t.Caption += " The FP32 floor counts the 2·K² FLOP an output of a direct kernel; a separable path executes two passes of K taps, so only the DRAM floor binds it, and its share of the binding floor passes 100% where the FP32 floor binds."
	}
	return t
}

// intStrings formats each of ks.
func intStrings(ks []int) []string { return mapCells(ks, strconv.Itoa) }
