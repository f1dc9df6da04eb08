package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

func section004(hosts []*Host) *Section {
	s := &Section{Report: "004", Title: "Report 004: Sobel, Gaussian 2-D vs separable, RGB->YUV at 1024x1024"}
	ks := []string{"3", "5", "7", "9", "11"}
	plot := &Plot{ID: "004-gaussian", Title: "1024x1024 8-bit Gaussian: time vs filter size",
		XLabel: "filter size K", YLabel: "time (ms)", X: ks, XValue: numbers(ks), LogY: true}
	gvars := []variantTune{{"cpu-naive", "none"}, {"cpu-fast", "none"}, {"gpu-naive", "default"}, {"gpu-shared", "default"},
		{"gpu-separable", "shared=0"}, {"gpu-separable", "default"}}
	for _, h := range withReport(hosts, "004") {
		s.Tables = append(s.Tables, tableI004(h))
		tg := &Table{ID: "004-gaussian-" + h.Slug, Title: "Gaussian K x K, 1024x1024 8-bit gray, time (ms) — " + h.Title,
			Header: []string{"K"}}
		for _, v := range gvars {
			tg.Header = append(tg.Header, v.String())
		}
		series := sweepTable(h, tg, ks, len(gvars), func(k string, i int) Q {
			return gvars[i].caseQ().image("1024x1024", "gauss"+k, "u8", "1")
		})
		s.Tables = append(s.Tables, tg)
		addHostSeries(plot, h, tg.Header[1:], series)
		ty := &Table{ID: "004-rgb2yuv-" + h.Slug, Title: "RGB->YUV 1024x1024: kernel vs pipeline — " + h.Title,
			Header: []string{"Variant", "Kernel (ms)", "Total pageable (ms)", "Total pinned (ms)"}}
		for _, v := range []variantTune{{"gpu-rgb2yuv", "default"}, {"gpu-rgb2yuv", "opt=1"}} {
			base := Q{"variant": v.variant, "size": "1024x1024", "filter": "rgb2yuv", "block": "default", "tune": v.tune}
			ty.Rows = append(ty.Rows, []string{v.String(),
				msCI(h.Measure(base.with("timing", "kernel", "cache", "hot"))),
				msCI(h.Measure(base.with("timing", "total", "mem", "pageable"))),
				msCI(h.Measure(base.with("timing", "total", "mem", "pinned")))})
		}
		s.Tables = append(s.Tables, ty)
	}
	t := &Table{ID: "004-published-table1", Title: "Published by report 004 — " + report004GPU + ", table I (1024x1024)",
		Header: []string{"Implementation", "Our variant", "Avg. time (ms)", "MPix/s", "GB/s"}}
	for _, r := range report004TableI {
		v := variantTune{r.Variant, r.Tune}.String()
		if r.Variant == "" {
			v = missing
		}
		t.Rows = append(t.Rows, []string{r.Implementation, v, Sig(r.MS, 4), Sig(r.MPixS, 4), fmt.Sprintf("%.2f", r.GBs)})
	}
	s.Tables = append(s.Tables, t)
	s.Plots = []*Plot{plot}
	return s
}

// variantTune is a variant with the value of its tune key.
type variantTune struct{ variant, tune string }

// String is the variant's name with its tunables: "gpu-sobel (shared=1)".
func (v variantTune) String() string {
	if v.tune == "" || v.tune == "default" || v.tune == "none" {
		return v.variant
	}
	return v.variant + " (" + v.tune + ")"
}

// caseQ is v's caseQ at the default block, with its tune key on a GPU.
func (v variantTune) caseQ() Q {
	q := caseQ(v.variant, "default")
	if !strings.HasPrefix(v.variant, "cpu-") {
		q = q.with("tune", v.tune)
	}
	return q
}

// withReport keeps the hosts with a run of the report's presets
// ("<report>" or "<report>-...").
func withReport(hosts []*Host, report string) []*Host {
	ofReport := func(r *Run) bool { return r.Preset == report || strings.HasPrefix(r.Preset, report+"-") }
	return slices.DeleteFunc(slices.Clone(hosts), func(h *Host) bool { return !slices.ContainsFunc(h.Runs, ofReport) })
}

// tableI004 is host h's table in the shape of report 004's table I.
func tableI004(h *Host) *Table {
	t := &Table{ID: "004-table1-" + h.Slug, Title: "Table I shape, 1024x1024 — " + h.Title,
		Caption: "GPU rows are kernel times; MPix/s and GB/s (bytes read + written once) from our medians. " +
			"Where the report's naive and optimised GPU versions are one variant, a tunable picks the kernel, shown in brackets; " +
			"without one, the variant runs its default (gpu-sobel and gpu-rgb2yuv: naive; gpu-separable: shared-memory passes).",
		Header: []string{"Implementation (report)", "Variant", "Time (ms)", "MPix/s", "GB/s"}}
	for _, r := range report004TableI {
		if r.Variant == "" {
			continue
		}
		ch := "1"
		if r.Op == "rgb2yuv" {
			ch = "3"
		}
		vt := variantTune{r.Variant, r.Tune}
		smp := h.Sample(vt.caseQ().image("1024x1024", r.Op, "u8", ch))
		mp, gb := nan(), nan()
		if smp != nil {
			mp = val(smp.Median("MPix/s"))
			gb = val(smp.Median("GB/s"))
		}
		t.Rows = append(t.Rows, []string{r.Implementation, vt.String(), msCI(timeOf(smp)), num(mp, !math.IsNaN(mp)), num(gb, !math.IsNaN(gb))})
	}
	return t
}
