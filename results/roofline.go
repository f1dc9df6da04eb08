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
	"github.com/convbench/convbench/runfile"
)

// rooflineSize is the image of the roofline section: the largest of
// preset tuning-tiled, where launch and tail effects matter least.
const rooflineSize = "4096x4096"

// sectionRoofline sets the Gaussian K x K kernels of each GPU against
// the roofline of that GPU: the FP32 peak and the measured copy bandwidth
// times the arithmetic intensity (FLOP per byte read and written once).
// Its kernels are every variant of the GPU's run of preset roofline
// (floorsRun), or where there is none of its tuning-tiled run (gpu-tiled
// and gpu-shared), each at its fastest setting. Where the run records the
// energy a run drew, a second table sets the fastest variant of each
// filter beside the most energy-efficient (rooflineEnergy); where no run
// does, a note says so.
func sectionRoofline(hosts []*Host) *Section {
	s := &Section{Report: "roofline", Title: "Roofline: achieved GFLOP/s against the memory and FP32 roofs"}
	hs, pts := rooflineHosts(hosts)
	if len(hs) == 0 {
		return s
	}
	xp := rooflineXs(hs, pts)
	plot := &Plot{ID: "roofline", Title: rooflineSize + " Gaussian K x K, f32: roofline",
		XLabel: "arithmetic intensity (FLOP per byte read and written), log", YLabel: "GFLOP/s (2·K² FLOP an output)", LogX: true, LogY: true}
	var pointLabels []string
	for _, x := range xp {
		plot.X = append(plot.X, "")
		plot.XValue = append(plot.XValue, x.ai)
		pointLabels = append(pointLabels, x.label)
	}
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

// rooflinePoint is one filter of the roofline: its spec, its arithmetic
// intensity and its throughput arithmetic at rooflineSize.
type rooflinePoint struct {
	spec string
	ai   float64
	tp   convolve.Throughput
}

// rooflineHost is a host's roofline run with its measured copy bandwidth
// and FP32 peak and the variants the run measured, sorted.
type rooflineHost struct {
	h        *Host
	run      *Run
	bw, peak float64
	variants []string
}

// rooflineX is an x position of the roofline plot: a point's intensity
// (pt, its index into the points) or a GPU's ridge (pt -1).
type rooflineX struct {
	ai    float64
	label string
	pt    int
}

// rooflineHosts selects the hosts whose roofline run records the copy
// bandwidth and the FP32 peak, and the filters their runs measured,
// sorted by intensity.
func rooflineHosts(hosts []*Host) ([]rooflineHost, []rooflinePoint) {
	var hs []rooflineHost
	var pts []rooflinePoint
	for _, h := range hosts {
		run := rooflineRun(h)
		if run == nil {
			continue
		}
		bw, err1 := strconv.ParseFloat(run.Config[runfile.KeyGPUCopyGBps], 64)
		peak, err2 := strconv.ParseFloat(run.Config[runfile.KeyGPUPeakFLOPs], 64)
		if err1 != nil || err2 != nil || bw <= 0 || peak <= 0 {
			continue
		}
		hd := rooflineHost{h: h, run: run, bw: bw, peak: peak}
		for _, smp := range rooflineSamples(run) {
			if v := smp.Keys["variant"]; !slices.Contains(hd.variants, v) {
				hd.variants = append(hd.variants, v)
			}
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

// rooflineXs are the plot's x positions: every point's intensity and
// every GPU's ridge, so that the roofs bend where they do, sorted.
func rooflineXs(hs []rooflineHost, pts []rooflinePoint) []rooflineX {
	var xp []rooflineX
	for i, p := range pts {
		xp = append(xp, rooflineX{p.ai, p.spec, i})
	}
	for _, hd := range hs {
		xp = append(xp, rooflineX{hd.peak / hd.bw, "", -1})
	}
	slices.SortFunc(xp, func(a, b rooflineX) int { return cmp.Compare(a.ai, b.ai) })
	return xp
}

// rooflineTable is host hd's table against the roofline, with the roof
// at each x position and each variant's GFLOP/s there (NaN where it has
// none).
func rooflineTable(hd rooflineHost, xp []rooflineX, pts []rooflinePoint) (t *Table, roof []float64, ys [][]float64) {
	t = &Table{ID: "roofline-" + hd.h.Slug, Title: "Against the roofline, " + rooflineSize + " Gaussian K x K — " + hd.h.Title,
		Caption: fmt.Sprintf("Roof: the smaller of the FP32 peak (%s GFLOP/s) and the measured copy bandwidth (%s GB/s) times the intensity; a kernel that reads its input and writes its output once cannot beat it. "+
			"Each variant's GFLOP/s at its fastest block and tunables in the host's run `%s` (%s), and in brackets its share of the roof; GFLOP/s counts 2·K² FLOP an output, so a separable path, which executes fewer, can pass the FP32 roof.",
			Sig(hd.peak, 3), Sig(hd.bw, 3), hd.run.Preset, timingOf(rooflineSamples(hd.run))),
		Header: []string{"Filter", "FLOP/byte", "Roof (GFLOP/s)", "Bound"}}
	t.Header = append(t.Header, hd.variants...)
	roof = make([]float64, len(xp))
	for i, x := range xp {
		roof[i] = math.Min(hd.peak, x.ai*hd.bw)
	}
	ys = make([][]float64, len(hd.variants))
	for vi := range ys {
		ys[vi] = make([]float64, len(xp))
		for i := range xp {
			ys[vi][i] = nan()
		}
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

// rooflineRun is the run the roofline section reads on h: its run of
// preset roofline (floorsRun) where that holds Gaussians at rooflineSize,
// else its tuning-tiled run, or nil.
func rooflineRun(h *Host) *Run {
	if r := floorsRun(h); r != nil && len(rooflineSamples(r)) > 0 {
		return r
	}
	if r := h.run("tuning-tiled"); r != nil && len(rooflineSamples(r)) > 0 {
		return r
	}
	return nil
}

// rooflineSamples are the run's hot-cache Gaussian cases at rooflineSize
// with the default compile options.
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
		if t := "`timing=" + smp.Keys["timing"] + "`"; !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	return strings.Join(ts, ", ")
}

// fastestSample returns the sample of ss with the smallest median time, or
// nil when none has a time.
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

// pixels is the number of pixels of each "WxH" size, NaN where one does
// not parse: the true x of a plot against image size.
func pixels(sizes []string) []float64 {
	out := make([]float64, len(sizes))
	for i, sz := range sizes {
		w, h, ok := parseSize(sz)
		out[i] = nan()
		if ok {
			out[i] = float64(w) * float64(h)
		}
	}
	return out
}

// numbers parses each of vs as a number, NaN where one does not parse:
// the true x of a plot against filter size.
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
