package results

import (
	"fmt"
)

var filters001 = []string{"prewitt-x", "gauss5", "gauss7", "log5", "sharpen"}

func section001(hosts []*Host) *Section {
	s := &Section{Report: "001", Title: "Report 001: 8-bit RGB input, global vs shared memory"}
	plot := &Plot{ID: "001-image-size", Title: "8-bit RGB, 16x16: speedup over cpu-naive vs image size (Gaussian 7x7)",
		XLabel: "image size (pixels, log)", YLabel: "speedup", X: report001Sizes, XValue: pixels(report001Sizes), LogX: true, LogY: true}
	for _, h := range withReport(hosts, "001") {
		for _, v := range []string{"gpu-naive", "gpu-shared"} {
			t := &Table{ID: "001-speedup-" + v + "-" + h.Slug, Title: fmt.Sprintf("Speedup over cpu-naive vs image size, %s, 16x16 — %s", v, h.Title),
				Caption: "Ours; the report's tables 1 (global) and 2 (shared) follow.",
				Header:  append([]string{"Filter"}, report001Sizes...)}
			for _, f := range filters001 {
				row := []string{f}
				var ys []float64
				for _, sz := range report001Sizes {
					cpu := h.Measure(cpuQ("cpu-naive").image(sz, f, "u8", "3"))
					gpu := h.Measure(gpuQ(v, "16x16").image(sz, f, "u8", "3"))
					row = append(row, ratioCell(cpu, gpu))
					ys = append(ys, speedup(cpu.Center(), gpu.Center()))
				}
				t.Rows = append(t.Rows, row)
				if f == "gauss7" && h.GPU {
					plot.Series = append(plot.Series, hostSeries(h, v, ys))
				}
			}
			s.Tables = append(s.Tables, t)
		}
		tk := &Table{ID: "001-filter-size-" + h.Slug, Title: "Filter size, 8-bit RGB 1024x1024, 16x16 — " + h.Title,
			Header: []string{"K", "Gauss global (ms)", "Gauss shared (ms)", "Box global (ms)", "Box shared (ms)", "Gauss shared speedup", "Box shared speedup"}}
		for _, k := range []string{"3", "5", "7", "9", "11", "15", "21"} {
			g := func(v, f string) Measure { return h.Measure(caseQ(v, "16x16").image("1024x1024", f, "u8", "3")) }
			ga, bo := "gauss"+k, "box"+k
			tk.Rows = append(tk.Rows, []string{k, msCI(g("gpu-naive", ga)), msCI(g("gpu-shared", ga)), msCI(g("gpu-naive", bo)), msCI(g("gpu-shared", bo)),
				ratioCell(g("cpu-naive", ga), g("gpu-shared", ga)), ratioCell(g("cpu-naive", bo), g("gpu-shared", bo))})
		}
		s.Tables = append(s.Tables, tk, tunedTable001(h))
	}
	for _, v := range []string{"gpu-naive", "gpu-shared"} {
		tbl := map[string]string{"gpu-naive": "table 1 (global memory)", "gpu-shared": "table 2 (shared memory)"}[v]
		t := &Table{ID: "001-published-speedup-" + v, Title: "Published by report 001 — " + report001GPU + ", " + tbl,
			Caption: "Speedup over the report's sequential CPU (Ryzen 5 3600), 16x16 blocks.", Header: append([]string{"Filter"}, report001Sizes...)}
		for _, f := range filters001 {
			t.Rows = append(t.Rows, append([]string{f}, mapCells(report001Speedup[v][f], pubX)...))
		}
		s.Tables = append(s.Tables, t)
		plot.Series = append(plot.Series, publishedSeries(report001GPU+" "+v, v, report001GPU, report001Speedup[v]["gauss7"]))
	}
	tk := &Table{ID: "001-published-filter-size", Title: "Published by report 001 — " + report001GPU + ", tables 3 and 4",
		Header: []string{"K", "Gauss global speedup", "Gauss global (ms)", "Gauss shared speedup", "Gauss shared (ms)", "Box global speedup", "Box shared speedup"}}
	for i, g := range report001KernelSize["gpu-naive"] {
		sh := report001KernelSize["gpu-shared"][i]
		tk.Rows = append(tk.Rows, []string{g.K, pubX(g.GaussSpeedup), pubMS(g.GaussMS), pubX(sh.GaussSpeedup), pubMS(sh.GaussMS), pubX(g.BoxSpeedup), pubX(sh.BoxSpeedup)})
	}
	s.Tables = append(s.Tables, tk)
	tt := &Table{ID: "001-published-tuned", Title: "Published by report 001 — " + report001GPU + ", table 5 (1920x1920)",
		Header: []string{"Filter", "Optimal block", "Global 16x16", "Shared 16x16", "Tuned shared"}}
	for _, r := range report001Tuned {
		tt.Rows = append(tt.Rows, []string{r.Filter, r.Block, pubX(r.Global), pubX(r.Shared), pubX(r.TunedShared)})
	}
	s.Tables = append(s.Tables, tt)
	s.Plots = []*Plot{plot}
	return s
}

// tunedTable001 is h's best gpu-shared block per filter at 1920x1920.
func tunedTable001(h *Host) *Table {
	tt := &Table{ID: "001-tuned-" + h.Slug, Title: "Best block per filter, 8-bit RGB 1920x1920 — " + h.Title,
		Caption: "Kernel times; the report's table 5 gives speedups over its CPU for the same three configurations.",
		Header:  []string{"Filter", "Best block (shared)", "Global 16x16 (ms)", "Shared 16x16 (ms)", "Tuned shared (ms)"}}
	for _, f := range filters001 {
		var all []*Sample
		for _, r := range h.Runs {
			all = append(all, r.Find(gpuQ("gpu-shared", "").image("1920x1920", f, "u8", "3"))...)
		}
		best := missing
		bestSmp := fastestSample(all)
		if bestSmp != nil {
			best = bestSmp.Keys["block"]
		}
		g := func(v string) Measure { return h.Measure(gpuQ(v, "16x16").image("1920x1920", f, "u8", "3")) }
		tt.Rows = append(tt.Rows, []string{f, best, msCI(g("gpu-naive")), msCI(g("gpu-shared")), msCI(timeOf(bestSmp))})
	}
	return tt
}
