package results

import (
	"fmt"
	"math"
)

// sectionCPURoofline sets cpu-fast's cpu-peers cases against each CPU's roofline.
func sectionCPURoofline(hosts []*Host) *Section {
	s := &Section{Report: "cpu-peers", Title: "CPU roofline: cpu-fast against the copy and FMA roofs"}
	hs := cpuRooflineHosts(hosts)
	if len(hs) == 0 {
		return s
	}
	var xp []roofX
	for hi, hd := range hs {
		for i, p := range hd.pts {
			xp = append(xp, roofX{ai: p.ai, host: hi, pt: i})
		}
		xp = append(xp, roofX{ai: hd.c.fmaGFLOPs / hd.c.copyGBps, host: hi, pt: -1})
	}
	plot := rooflinePlot("cpu-roofline", openCVPeersSize+" cpu-peers cases, cpu-fast: CPU roofline",
		"arithmetic intensity (executed FLOP per byte read and written), log", "GFLOP/s (executed)", xp)
	for hi, hd := range hs {
		c := hd.c
		s.Tables = append(s.Tables, cpuRooflineTable(hd))
		full := roofAt(xp, func(ai float64) float64 {
			r, _ := c.roof(ai)
			return r
		})
		half := mapCells(full, func(r float64) float64 { return math.Min(r, c.fmaGFLOPs/2) })
		byType := map[string][]float64{}
		var labels []string
		for _, typ := range cpuPeersTypes {
			byType[typ] = nans(len(xp))
		}
		for i, x := range xp {
			label := ""
			if x.host == hi && x.pt >= 0 {
				p := hd.pts[x.pt]
				byType[p.typ][i] = p.gf
				if p.typ == "f32" {
					label = p.label
				}
			}
			labels = append(labels, label)
		}
		plot.Series = append(plot.Series,
			Series{Name: hd.h.Title + " roof", Variant: "roof", Source: hd.h.Title, Y: full, LineOnly: true},
			Series{Name: hd.h.Title + " ½ FMA peak (unfused multiply-add)", Variant: "half roof", Source: hd.h.Title, Y: half, LineOnly: true, Dashed: true})
		for _, typ := range cpuPeersTypes {
			sr := Series{Name: hd.h.Title + " cpu-fast " + typ, Variant: "cpu-fast " + typ, Source: hd.h.Title, Y: byType[typ], Markers: true}
			if typ == "f32" {
				sr.Labels = labels
			}
			plot.Series = append(plot.Series, sr)
		}
	}
	s.Plots = []*Plot{plot}
	return s
}

// cpuRooflinePoint is one case of cpu-fast on the CPU roofline.
type cpuRooflinePoint struct {
	label, typ string
	ai, gf     float64
}

// cpuRooflineHost is a host's measured ceilings and its points.
type cpuRooflineHost struct {
	h   *Host
	c   cpuCeilings
	pts []cpuRooflinePoint
}

// cpuRooflineHosts selects the hosts whose cpu-peers run has a roofline.
func cpuRooflineHosts(hosts []*Host) []cpuRooflineHost {
	var hs []cpuRooflineHost
	for h, run := range hostRuns(hosts, "cpu-peers") {
		hd := cpuRooflineHost{h: h, c: ceilingsOf(run)}
		if math.IsNaN(hd.c.copyGBps) || math.IsNaN(hd.c.fmaGFLOPs) {
			continue
		}
		for _, typ := range cpuPeersTypes {
			for _, p := range openCVPeers {
				smp := cpuPeerSample(run, p, typ)
				gf, gb := median(smp, "exec-GFLOP/s"), median(smp, "GB/s")
				if !(gf > 0) || !(gb > 0) {
					continue
				}
				hd.pts = append(hd.pts, cpuRooflinePoint{p.Case, typ, gf / gb, gf})
			}
		}
		if len(hd.pts) > 0 {
			hs = append(hs, hd)
		}
	}
	return hs
}

// roof is the CPU roofline at intensity ai, and the binding ceiling.
func (c cpuCeilings) roof(ai float64) (float64, string) {
	if ai*c.copyGBps < c.fmaGFLOPs {
		return ai * c.copyGBps, "copy"
	}
	return c.fmaGFLOPs, "FMA"
}

// cpuRooflineTable is host hd's table of cpu-fast against its roofline.
func cpuRooflineTable(hd cpuRooflineHost) *Table {
	c := hd.c
	t := &Table{ID: "cpu-roofline-" + hd.h.Slug + "-cpu-fast", Title: "Against the CPU roofline, " + openCVPeersSize + " cpu-peers cases — " + hd.h.Title,
		Caption: fmt.Sprintf("Roof: the smaller of the measured vector FMA peak (%s GFLOP/s) and the measured copy bandwidth (%s GB/s) times the intensity, both measured in the same `cpu-peers` run. "+
			"Intensity and GFLOP/s count the operations cpu-fast executed (a separable Gaussian's two passes, not 2·K² an output). "+
			"cpu-fast's loops round each product before adding it, so half the FMA peak (%s GFLOP/s, the dashed roof) is the most they can reach. "+
			"The copy roof is that of a 64 MiB buffer; a case whose input and output partly stay in the caches between runs can pass it.",
			Sig(c.fmaGFLOPs, 3), Sig(c.copyGBps, 3), Sig(c.fmaGFLOPs/2, 3)),
		Header: []string{"Case", "Type", "FLOP/byte", "Roof (GFLOP/s)", "Bound", "cpu-fast (GFLOP/s)", "% of roof"},
		Keys:   2}
	for _, p := range hd.pts {
		r, bound := c.roof(p.ai)
		t.Rows = append(t.Rows, []string{p.label, p.typ, Sig(p.ai, 3), Sig(r, 3), bound, Sig(p.gf, 3), percent(p.gf/r, true)})
	}
	return t
}
