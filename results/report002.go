package results

import (
	"slices"
	"strconv"
	"strings"
)

var variants002 = []string{"gpu-naive", "gpu-naive-padded", "gpu-const", "gpu-shared", "gpu-shared-rows", "gpu-texture", "gpu-texture-shared", "gpu-texture-filter"}
var ks002 = []string{"3", "7", "15", "23", "31", "45", "61", "75"}

func section002(hosts []*Host) *Section {
	s := &Section{Report: "002", Title: "Report 002: memory types, kernel vs total time"}
	plot := &Plot{ID: "002-filter-size", Title: "1024x1024 box filter, block 32x32: kernel time vs filter size",
		XLabel: "filter size K", YLabel: "kernel time (ms)", X: ks002, XValue: numbers(ks002), LogY: true}
	for _, h := range withReport(hosts, "002") {
		t := &Table{ID: "002-table1-" + h.Slug, Title: "Box 75x75, 1024x1024, block 32x32 — " + h.Title,
			Caption: "Kernel time, and total (upload + kernel + download from pageable memory) minus kernel; the report's table 1 follows.",
			Header:  []string{"Method (report)", "Variant", "Kernel (ms)", "Total (ms)", "Copy (ms)"}}
		for _, r := range report002Table1 {
			if r.Variant == "" {
				continue
			}
			kern := h.Measure(caseQ(r.Variant, "32x32").image("1024x1024", "box75", "f32", "1"))
			var tot Measure
			if r.Variant != "cpu-naive" {
				tot = h.Measure(Q{"variant": r.Variant, "block": "32x32", "timing": "total", "mem": "pageable"}.image("1024x1024", "box75", "f32", "1"))
			}
			t.Rows = append(t.Rows, []string{r.Method, r.Variant, msCI(kern), msCI(tot), msCell(tot.Center() - kern.Center())})
		}
		s.Tables = append(s.Tables, t)
		tk := &Table{ID: "002-filter-size-" + h.Slug, Title: "Kernel time (ms) vs box filter size, 1024x1024, block 32x32 — " + h.Title,
			Header: append([]string{"K"}, variants002...)}
		series := sweepTable(h, tk, ks002, len(variants002), func(k string, i int) Q {
			return gpuQ(variants002[i], "32x32").image("1024x1024", "box"+k, "f32", "1")
		})
		s.Tables = append(s.Tables, tk)
		if h.GPU {
			addHostSeries(plot, h, variants002, series)
		}
		tb := &Table{ID: "002-block-size-" + h.Slug, Title: "Kernel time (ms) vs square block, box 61x61, 1024x1024 — " + h.Title,
			Header: append([]string{"Block"}, variants002...)}
		sweepTable(h, tb, []string{"4x4", "8x8", "16x16", "32x32"}, len(variants002), func(b string, i int) Q {
			return gpuQ(variants002[i], b).image("1024x1024", "box61", "f32", "1")
		})
		s.add(tb, exactness002(h))
	}
	t := &Table{ID: "002-published-table1", Title: "Published by report 002 — " + report002GPU + ", table 1",
		Caption: "Box 75x75 on a 1024x1024 image, block 32: time taken and copy time in ms.",
		Header:  []string{"Method", "Our variant", "Time (ms)", "Copy (ms)"}}
	for _, r := range report002Table1 {
		t.Rows = append(t.Rows, []string{r.Method, OrMissing(r.Variant), pubMS(r.KernelMS), pubMS(r.CopyMS)})
	}
	s.Tables = append(s.Tables, t)
	s.Plots = []*Plot{plot}
	return s
}

// Compile options of the exactness table, and their column titles.
var (
	opts002      = []string{"default", "nofma", "fast-math"}
	optsTitle002 = map[string]string{"default": "default", "nofma": "fmad=false", "fast-math": "fast-math"}
	ks002Exact   = []string{"3", "9", "25", "75"}
)

// exactness002 is h's time and max ULP per compile option, or nil.
func exactness002(h *Host) *Table {
	base := func(v string) Q { return gpuQ(v, "32x32").with("size", "1024x1024", "type", "f32", "ch", "1") }
	explicit := func(smp *Sample) bool {
		return strings.HasPrefix(smp.Keys["filter"], "box") && !slices.Contains(smp.Implied, "opts")
	}
	if !slices.ContainsFunc(h.Runs, func(r *Run) bool {
		return slices.ContainsFunc(append(r.Find(base("gpu-naive")), r.Find(base("gpu-const"))...), explicit)
	}) {
		return nil
	}
	t := &Table{ID: "002-exactness-" + h.Slug, Title: "Exactness and speed by compile option, box K, 1024x1024, block 32x32 — " + h.Title,
		Caption: "Kernel time (ms, median) and max-ulp, the largest distance in float32 units in the last place from cpu-naive's output " +
			"over the elements the correctness gate compares (largest over runs). Compiled with --fmad=false both kernels sum in " +
			"cpu-naive's order and must be 0 ULPs away (the gate fails them otherwise); the last column is the price of that exactness. " +
			"The input is zero-mean noise in [-1, 1), so some box sums cancel to nearly zero, where one rounding of difference is " +
			"millions of ULPs; the gate's tolerance is absolute per element (from the sum of |w*x|), so those outputs pass it.",
		Header: []string{"Variant", "K"}}
	for _, o := range opts002 {
		t.Header = append(t.Header, optsTitle002[o]+" (ms)", optsTitle002[o]+" max-ulp")
	}
	t.Header = append(t.Header, "fmad=false / default")
	for _, v := range []string{"gpu-naive", "gpu-const"} {
		for _, k := range ks002Exact {
			row := []string{v, k}
			times := map[string]Measure{}
			for _, o := range opts002 {
				smp := h.Sample(base(v).with("filter", "box"+k, "opts", o))
				ulp := missing
				if smp != nil {
					if u, ok := smp.Max("max-ulp"); ok {
						ulp = strconv.FormatFloat(u, 'f', 0, 64)
					}
				}
				times[o] = timeOf(smp)
				row = append(row, msCI(times[o]), ulp)
			}
			t.Rows = append(t.Rows, append(row, ratioCell(times["nofma"], times["default"])))
		}
	}
	return t
}
