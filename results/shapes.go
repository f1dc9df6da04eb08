package results

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// shapeKs are the filter sides of preset roofline-shapes, dense<K>.
var shapeKs = []int{3, 5, 7}

// shapeLayouts are the channel arrangements of preset roofline-shapes.
var shapeLayouts = []struct{ name, ch, layout string }{
	{"1 channel", "1", "interleaved"},
	{"RGB interleaved", "3", "interleaved"},
	{"RGB planar", "3", "planar"},
}

// shapeGoals are the targets of preset roofline-shapes: u8 and i16 at
// TypeShare of their DRAM floor, border modes and an odd size within
// MaxSlowdown of zero border and of 4096x4096 per pixel.
var shapeGoals = struct {
	TypeShare, MaxSlowdown float64
}{TypeShare: 0.70, MaxSlowdown: 1.10}

// shapeData is what the section reads of one GPU's roofline-shapes run.
type shapeData struct {
	run      *Run
	bw       float64
	variants []string
}

var shapeBase = Q{"cache": "hot", "timing": "kernel-graph", "opts": "default"}

// time returns variant v's fastest time on shapeBase narrowed by q.
func (d *shapeData) time(v string, q Q) (Measure, bool) {
	qq := shapeBase.with("variant", v)
	maps.Copy(qq, q)
	smp := fastestSample(d.run.Find(qq))
	if smp == nil {
		return Measure{}, false
	}
	m := timeOf(smp)
	return m, m.OK() && m.Center() > 0
}

// best returns the fastest variant on shapeBase narrowed by q, and its time.
func (d *shapeData) best(q Q) (string, Measure) {
	bv, bm := "", Measure{}
	for _, v := range d.variants {
		if m, ok := d.time(v, q); ok && (bv == "" || m.Center() < bm.Center()) {
			bv, bm = v, m
		}
	}
	return bv, bm
}

// header is keys, a column per variant titled with suffix, then last.
func (d *shapeData) header(keys []string, suffix, last string) []string {
	return append(append(keys, mapCells(d.variants, func(v string) string { return v + suffix })...), last)
}

// cells are each variant's time on q, with note's words after it, and
// whether any variant ran q.
func (d *shapeData) cells(q Q, note func(v string, m Measure) string) ([]string, bool) {
	var row []string
	any := false
	for _, v := range d.variants {
		m, ok := d.time(v, q)
		if !ok {
			row = append(row, missing)
			continue
		}
		any = true
		row = append(row, floorTime(m)+note(v, m))
	}
	return row, any
}

// dramFloor is the time in ns to read a w x h image of ch channels of
// typ and write its float32 output once at the copy bandwidth.
func (d *shapeData) dramFloor(w, h, ch int, typ string) (float64, bool) {
	t, err := convolve.ParseElemType(typ)
	if err != nil {
		return 0, false
	}
	bytes := float64(w) * float64(h) * float64(ch) * float64(t.Size()+convolve.Float32.Size())
	return bytes / d.bw, true
}

// sectionShapes sets each GPU's roofline-shapes run against shapeGoals.
func sectionShapes(hosts []*Host) *Section {
	s := &Section{Report: "roofline-shapes", Title: "Off the roofline's case: element types, channel layouts, border modes and odd sizes"}
	goals := &Table{ID: "shapes-goals", Title: "Goals off the roofline's case",
		Caption: fmt.Sprintf("Each GPU's run of preset roofline-shapes (dense<K>, K = 3, 5, 7, kernel time replayed from CUDA graphs, hot cache), the fastest of its variants on each case. "+
			"Types: u8 and i16 input, one channel and RGB interleaved and planar, at %s or more of their own DRAM floor (input read once in its element size, float32 output written once, over the run's gpu-copy-gbps). "+
			"Borders: each of replicate, reflect, mirror and wrap at most %s the time of zero border. Odd size: 4099x4097 at most %s the time per pixel of 4096x4096. "+
			"Worst is the case furthest from its target.", percent(shapeGoals.TypeShare, true), Sig(shapeGoals.MaxSlowdown, 3)+"x", Sig(shapeGoals.MaxSlowdown, 3)+"x"),
		Header: []string{"GPU", "Goal", "Target", "Cases at target", "Worst", "Worst case", "Verdict"}, Keys: 2}
	for h, run := range gpuRuns(hosts, shapesRun) {
		bw, err := strconv.ParseFloat(run.Config[runfile.KeyGPUCopyGBps], 64)
		if err != nil || !(bw > 0) {
			continue
		}
		d := &shapeData{run: run, bw: bw}
		for _, smp := range run.Find(shapeBase) {
			d.variants = appendNew(d.variants, smp.Keys["variant"])
		}
		at := run.at()
		types, typeGoal := d.typesTable(h, at)
		borders, borderGoal := d.bordersTable(h, at)
		odd, oddGoal := d.oddTable(h, at)
		for _, t := range []*Table{types, borders, odd} {
			if len(t.Rows) > 0 {
				s.Tables = append(s.Tables, t)
			}
		}
		goals.Rows = append(goals.Rows,
			append([]string{h.Title, "u8 and i16, 1 channel and RGB, K ≤ 7", percent(shapeGoals.TypeShare, true) + " of their DRAM floor"}, typeGoal.cells()...),
			append([]string{h.Title, "every border mode against zero", "≤ " + Sig(shapeGoals.MaxSlowdown, 3) + "x"}, borderGoal.cells()...),
			append([]string{h.Title, "4099x4097 against 4096x4096 per pixel", "≤ " + Sig(shapeGoals.MaxSlowdown, 3) + "x"}, oddGoal.cells()...))
	}
	s.lead(goals)
	return s
}

// shapesRun returns h's run of preset roofline-shapes, or nil.
func shapesRun(h *Host) *Run { return h.run("roofline-shapes") }

// typesTable is types and layouts against their DRAM floor, and the goal.
func (d *shapeData) typesTable(h *Host, at string) (*Table, *goalTally) {
	types := &Table{ID: "shapes-types-" + h.Slug, Title: "Element types and channel layouts against their own DRAM floor — " + h.Title,
		Caption: fmt.Sprintf("From run `roofline-shapes`%s: 4096x4096, zero border, kernel time (ms; ±∞: too few sample sets for an interval, see the floors tables) and, in brackets, the share of the case's own DRAM floor (W·H·channels·(input element size + 4) bytes over gpu-copy-gbps, %s GB/s).", at, Sig(d.bw, 5)),
		Header:  d.header([]string{"Type", "Channels", "K", "DRAM floor (ms)"}, " (ms, share)", "Best share"), Keys: 3}
	typeGoal := &goalTally{}
	for _, typ := range []string{"f32", "u8", "i16"} {
		for _, lay := range shapeLayouts {
			for _, k := range shapeKs {
				q := Q{"size": "4096x4096", "filter": "dense" + strconv.Itoa(k), "border": "zero", "type": typ, "ch": lay.ch, "layout": lay.layout}
				ch, _ := strconv.Atoi(lay.ch)
				fl, ok := d.dramFloor(4096, 4096, ch, typ)
				if !ok {
					continue
				}
				cells, any := d.cells(q, func(_ string, m Measure) string { return " (" + percent(fl/m.Center(), true) + ")" })
				if !any {
					continue
				}
				row := append([]string{typ, lay.name, strconv.Itoa(k), ms(fl, true)}, cells...)
				bv, bm := d.best(q)
				share := fl / bm.Center()
				row = append(row, percent(share, true)+" "+bv)
				types.Rows = append(types.Rows, row)
				if typ != "f32" {
					typeGoal.add(share >= shapeGoals.TypeShare, shapeGoals.TypeShare-share, percent(share, true), fmt.Sprintf("%s %s dense%d %s", typ, lay.name, k, bv))
				}
			}
		}
	}
	return types, typeGoal
}

// bordersTable is border modes against zero border, and their goal.
func (d *shapeData) bordersTable(h *Host, at string) (*Table, *goalTally) {
	borders := &Table{ID: "shapes-borders-" + h.Slug, Title: "Border modes against zero border — " + h.Title,
		Caption: fmt.Sprintf("From run `roofline-shapes`%s: 4096x4096 f32, one channel, kernel time (ms) and, in brackets, the time over the same variant's zero-border time.", at),
		Header:  d.header([]string{"K", "Border"}, " (ms, / zero)", "Best / best at zero"), Keys: 2}
	borderGoal := &goalTally{}
	for _, k := range shapeKs {
		zq := Q{"size": "4096x4096", "filter": "dense" + strconv.Itoa(k), "type": "f32", "ch": "1", "layout": "interleaved", "border": "zero"}
		_, zbest := d.best(zq)
		for _, b := range convolve.Borders {
			q := zq.with("border", b.String())
			cells, any := d.cells(q, func(v string, m Measure) string {
				if z, ok := d.time(v, zq); ok {
					return " (" + Sig(m.Center()/z.Center(), 3) + "x)"
				}
				return ""
			})
			if !any {
				continue
			}
			row := append([]string{strconv.Itoa(k), b.String()}, cells...)
			bv, bm := d.best(q)
			r := bm.Center() / zbest.Center()
			row = append(row, Sig(r, 3)+"x "+bv)
			borders.Rows = append(borders.Rows, row)
			if b != convolve.Zero && zbest.OK() {
				borderGoal.add(r <= shapeGoals.MaxSlowdown, r-shapeGoals.MaxSlowdown, Sig(r, 3)+"x", fmt.Sprintf("dense%d %s %s", k, b, bv))
			}
		}
	}
	return borders, borderGoal
}

// oddTable is 4099x4097 against 4096x4096 per pixel, and its goal.
func (d *shapeData) oddTable(h *Host, at string) (*Table, *goalTally) {
	odd := &Table{ID: "shapes-odd-" + h.Slug, Title: "4099x4097 against 4096x4096 per pixel — " + h.Title,
		Caption: fmt.Sprintf("From run `roofline-shapes`%s: f32, one channel, zero border, kernel time (ms) of each size and the ratio of their times per pixel (4099x4097 over 4096x4096).", at),
		Header:  []string{"K", "Variant", "4096x4096 (ms)", "4099x4097 (ms)", "Per pixel, odd / even"}, Keys: 2}
	oddGoal := &goalTally{}
	px := func(size string) float64 {
		w, hh, _ := parseSize(size)
		return float64(w) * float64(hh)
	}
	for _, k := range shapeKs {
		base := Q{"filter": "dense" + strconv.Itoa(k), "type": "f32", "ch": "1", "layout": "interleaved", "border": "zero"}
		for _, v := range d.variants {
			e, eok := d.time(v, base.with("size", "4096x4096"))
			o, ook := d.time(v, base.with("size", "4099x4097"))
			if !eok || !ook {
				continue
			}
			r := (o.Center() / px("4099x4097")) / (e.Center() / px("4096x4096"))
			odd.Rows = append(odd.Rows, []string{strconv.Itoa(k), v, floorTime(e), floorTime(o), Sig(r, 3) + "x"})
		}
		_, eb := d.best(base.with("size", "4096x4096"))
		ov, ob := d.best(base.with("size", "4099x4097"))
		if ov != "" && eb.OK() {
			r := (ob.Center() / px("4099x4097")) / (eb.Center() / px("4096x4096"))
			oddGoal.add(r <= shapeGoals.MaxSlowdown, r-shapeGoals.MaxSlowdown, Sig(r, 3)+"x", fmt.Sprintf("dense%d %s", k, ov))
		}
	}
	return odd, oddGoal
}
