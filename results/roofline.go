package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/convbench/convbench/convolve"
)

// rooflineSize is the image of the roofline section.
const rooflineSize = "4096x4096"

// sectionRoofline sets each GPU's Gaussian kernels against its roofline.
func sectionRoofline(hosts []*Host) *Section {
	s := &Section{Report: "roofline", Title: "Roofline: achieved GFLOP/s against the memory and FP32 roofs"}
	hs, pts := rooflineHosts(hosts)
	if len(hs) == 0 {
		return s
	}
	var xp []roofX
	for i, p := range pts {
		xp = append(xp, roofX{ai: p.ai, label: p.spec, pt: i})
	}
	for _, hd := range hs {
		xp = append(xp, roofX{ai: hd.peak / hd.bw, pt: -1})
	}
	plot := rooflinePlot("roofline", rooflineSize+" Gaussian K x K, f32: roofline",
		"arithmetic intensity (FLOP per byte read and written), log", "GFLOP/s (2·K² FLOP an output)", xp)
	pointLabels := mapCells(xp, func(x roofX) string { return x.label })
	recorded := false // whether any host's run records energy
	for _, hd := range hs {
		t, roof, ys := rooflineTable(hd, xp, pts)
		s.Tables = append(s.Tables, t)
		var specs []string
		flops := map[string]float64{}
		for _, x := range xp {
			if x.pt >= 0 {
				specs = append(specs, pts[x.pt].spec)
				flops[pts[x.pt].spec] = pts[x.pt].tp.Flops()
			}
		}
		if et := rooflineEnergy(hd.h, hd.run, specs, flops); et != nil {
			s.Tables = append(s.Tables, et)
			recorded = true
		}
		if len(plot.Series) > 0 {
			pointLabels = nil // the first GPU's points name the filters
		}
		plot.Series = append(plot.Series, Series{Name: ShortHost(hd.h.Title) + " roof", Variant: "roof", Source: hd.h.Title, Y: roof, LineOnly: true})
		for vi, v := range hd.variants {
			sr := Series{Name: ShortHost(hd.h.Title) + " " + v, Variant: v, Source: hd.h.Title, Y: ys[vi], Markers: true}
			if vi == 0 {
				sr.Labels = pointLabels
			}
			plot.Series = append(plot.Series, sr)
		}
	}
	s.Plots = []*Plot{plot}
	if !recorded {
		s.Notes = append(s.Notes, noEnergyRecorded)
	}
	return s
}

// rooflinePoint is one filter of the roofline at rooflineSize.
type rooflinePoint struct {
	spec string
	ai   float64
	tp   convolve.Throughput
}

// rooflineHost is a host's roofline run, ceilings and sorted variants.
type rooflineHost struct {
	h        *Host
	run      *Run
	bw, peak float64
	variants []string
}

// roofX is an x position of a roofline plot: point pt (of host's
// points, where each host has its own), or a ridge (pt -1).
type roofX struct {
	ai       float64
	label    string
	host, pt int
}

// rooflinePlot is a log-log roofline plot at xp, which it sorts by intensity.
func rooflinePlot(id, title, xLabel, yLabel string, xp []roofX) *Plot {
	slices.SortStableFunc(xp, func(a, b roofX) int { return cmp.Compare(a.ai, b.ai) })
	p := &Plot{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, X: make([]string, len(xp)), LogX: true, LogY: true}
	for _, x := range xp {
		p.XValue = append(p.XValue, x.ai)
	}
	return p
}

// roofAt is roof at each position of xp.
func roofAt(xp []roofX, roof func(ai float64) float64) []float64 {
	return mapCells(xp, func(x roofX) float64 { return roof(x.ai) })
}

// rooflineHosts selects the hosts whose roofline run records the copy
// bandwidth and FP32 peak, and their filters sorted by intensity.
func rooflineHosts(hosts []*Host) ([]rooflineHost, []rooflinePoint) {
	var hs []rooflineHost
	var pts []rooflinePoint
	for _, h := range hosts {
		run := rooflineRun(h)
		if run == nil {
			continue
		}
		bw, peak, ok := bandwidthPeak(run)
		if !ok {
			continue
		}
		hd := rooflineHost{h: h, run: run, bw: bw, peak: peak}
		for _, smp := range rooflineSamples(run) {
			hd.variants = appendNew(hd.variants, smp.Keys["variant"])
			spec := smp.Keys["filter"]
			if slices.ContainsFunc(pts, func(p rooflinePoint) bool { return p.spec == spec }) {
				continue
			}
			f, err := convolve.ParseFilter(spec)
			w, ht, ok := parseSize(rooflineSize)
			if err != nil || !ok {
				continue
			}
			tp := convolve.ThroughputOf(convolve.Problem{Op: convolve.Filter2D, Filter: f,
				Input: convolve.Geometry{Width: w, Height: ht, Channels: 1, Type: convolve.Float32}})
			pts = append(pts, rooflinePoint{spec, tp.Flops() / float64(tp.BytesRead+tp.BytesWritten), tp})
		}
		slices.SortFunc(hd.variants, NaturalCompare)
		hs = append(hs, hd)
	}
	slices.SortFunc(pts, func(a, b rooflinePoint) int { return cmp.Compare(a.ai, b.ai) })
	return hs, pts
}

// rooflineTable is hd's table against the roofline, and the plot's series.
func rooflineTable(hd rooflineHost, xp []roofX, pts []rooflinePoint) (t *Table, roof []float64, ys [][]float64) {
	t = &Table{ID: "roofline-" + hd.h.Slug, Title: "Against the roofline, " + rooflineSize + " Gaussian K x K — " + hd.h.Title,
		Caption: fmt.Sprintf("Roof: the smaller of the FP32 peak (%s GFLOP/s) and the measured copy bandwidth (%s GB/s) times the intensity; a kernel that reads its input and writes its output once cannot beat it. "+
			"Each variant's GFLOP/s at its fastest block and tunables in the host's run `%s` (%s), and in brackets its share of the roof; GFLOP/s counts 2·K² FLOP an output, so a separable path, which executes fewer, can pass the FP32 roof.",
			Sig(hd.peak, 3), Sig(hd.bw, 3), hd.run.Preset, timingOf(rooflineSamples(hd.run))),
		Header: []string{"Filter", "FLOP/byte", "Roof (GFLOP/s)", "Bound"}}
	t.Header = append(t.Header, hd.variants...)
	roof = roofAt(xp, func(ai float64) float64 { return math.Min(hd.peak, ai*hd.bw) })
	ys = make([][]float64, len(hd.variants))
	for vi := range ys {
		ys[vi] = nans(len(xp))
	}
	for i, x := range xp {
		if x.pt < 0 {
			continue
		}
		p := pts[x.pt]
		floor, bound := p.tp.Roofline(hd.bw, hd.peak)
		r := p.tp.GFLOPPerSec(floor)
		row := []string{p.spec, Sig(p.ai, 3), Sig(r, 3), bound}
		any := false
		for vi, v := range hd.variants {
			best := fastest(hd.run.Find(Q{"size": rooflineSize, "filter": p.spec, "variant": v, "cache": "hot", "opts": "default"}))
			cell := missing
			if best > 0 {
				gf := p.tp.GFLOPPerSec(time.Duration(best))
				ys[vi][i] = gf
				cell = Sig(gf, 3) + " (" + percent(gf/r, true) + ")"
				any = true
			}
			row = append(row, cell)
		}
		if any {
			t.Rows = append(t.Rows, row)
		}
	}
	return t, roof, ys
}

// rooflineRun is h's roofline, else tuning-tiled, run with rooflineSamples.
func rooflineRun(h *Host) *Run {
	for _, r := range []*Run{floorsRun(h), h.run("tuning-tiled")} {
		if r != nil && len(rooflineSamples(r)) > 0 {
			return r
		}
	}
	return nil
}

// rooflineSamples are the run's hot-cache default-option Gaussian cases at rooflineSize.
func rooflineSamples(r *Run) []*Sample {
	var out []*Sample
	for _, smp := range r.Find(Q{"size": rooflineSize, "cache": "hot", "opts": "default"}) {
		if strings.HasPrefix(smp.Keys["filter"], "gauss") {
			out = append(out, smp)
		}
	}
	return out
}

// timingOf names how samples were timed: their timing keys, joined.
func timingOf(samples []*Sample) string {
	var ts []string
	for _, smp := range samples {
		ts = appendNew(ts, "`timing="+smp.Keys["timing"]+"`")
	}
	return strings.Join(ts, ", ")
}

// fastestSample is the sample of ss with the smallest median time, or nil.
func fastestSample(ss []*Sample) *Sample {
	var best *Sample
	bt := 0.0
	for _, s := range ss {
		if t, ok := s.Time(); ok && (best == nil || t < bt) {
			best, bt = s, t
		}
	}
	return best
}

// fastest is the median time (ns) of fastestSample, or NaN.
func fastest(ss []*Sample) float64 {
	if s := fastestSample(ss); s != nil {
		return val(s.Time())
	}
	return nan()
}

// pixels is the pixel count of each "WxH" size, NaN where one does not parse.
func pixels(sizes []string) []float64 {
	out := nans(len(sizes))
	for i, sz := range sizes {
		if w, h, ok := parseSize(sz); ok {
			out[i] = float64(w) * float64(h)
		}
	}
	return out
}

// numbers parses each of vs as a number, NaN where one does not parse.
func numbers(vs []string) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			x = nan()
		}
		out[i] = x
	}
	return out
}
