package results

import (
	"strconv"

	"github.com/convbench/convbench/runfile"
)

var sizes000 = []string{"256x256", "512x512", "1024x1024", "2048x2048", "4096x4096"}

func section000(hosts []*Host) *Section {
	s := &Section{Report: "000", Title: "Report 000: naive (V1), constant-memory (V1c) and shared-memory (V2) kernels"}
	sizePlot := &Plot{ID: "000-image-size", Title: "Gaussian 3x3, 16x16 blocks: kernel time vs image size",
		XLabel: "image size (pixels, log)", YLabel: "time (ms)", X: sizes000, XValue: pixels(sizes000), LogX: true, LogY: true}
	kPlot := &Plot{ID: "000-filter-size", Title: "1024x1024, 16x16 blocks: V2/V1 vs filter size",
		XLabel: "filter size K", YLabel: "V1 time / V2 time", X: []string{"3", "5", "7"}, XValue: []float64{3, 5, 7}}
	blocks := []string{"8x8", "16x16", "32x8", "32x16", "32x32"}
	blockPlot := &Plot{ID: "000-block-shape", Title: "2048x2048 Gaussian 5x5: kernel time vs block shape",
		XLabel: "block", YLabel: "time (ms)", X: blocks, LogY: true}
	for _, h := range withReport(hosts, "000") {
		t, v1s, v1cs, v2s := imageSizeTable000(h)
		s.Tables = append(s.Tables, t)
		if h.GPU {
			sizePlot.Series = append(sizePlot.Series, Series{Name: h.Title + " V1", Variant: "V1", Source: h.Title, Y: v1s}, Series{Name: h.Title + " V1c", Variant: "V1c", Source: h.Title, Y: v1cs}, Series{Name: h.Title + " V2", Variant: "V2", Source: h.Title, Y: v2s})
		}

		tk := &Table{ID: "000-filter-size-" + h.Slug, Title: "Filter size sweep, 1024x1024, 16x16 blocks — " + h.Title,
			Header: []string{"Filter", "CPU (ms)", "V1 (ms)", "V1c (ms)", "V2 (ms)", "V2/V1"}}
		var ratios []float64
		for _, k := range []string{"3", "5", "7"} {
			f := "gauss" + k
			cpu := h.Measure(cpuQ("cpu-naive").with("size", "1024x1024", "filter", f, "type", "f32", "ch", "1"))
			g := func(v string) Measure {
				return h.Measure(gpuQ(v, "16x16").with("size", "1024x1024", "filter", f, "type", "f32", "ch", "1"))
			}
			v1, v1c, v2 := g("gpu-naive"), g("gpu-const"), g("gpu-shared")
			ratios = append(ratios, speedup(v1.Center(), v2.Center()))
			tk.Rows = append(tk.Rows, []string{k + "x" + k, msCI(cpu), msCI(v1), msCI(v1c), msCI(v2), ratioCell(v1, v2)})
		}
		s.Tables = append(s.Tables, tk)
		if h.GPU {
			kPlot.Series = append(kPlot.Series, Series{Name: h.Title, Variant: "V1 / V2", Source: h.Title, Y: ratios})
		}

		tb := &Table{ID: "000-block-shape-" + h.Slug, Title: "Block shape sweep, 2048x2048, Gaussian 5x5 — " + h.Title,
			Header: []string{"Block", "Threads", "V1 (ms)", "V1c (ms)", "V2 (ms)", "V2/V1"}, Keys: 2}
		var bv2 []float64
		for _, b := range blocks {
			g := func(v string) Measure {
				return h.Measure(gpuQ(v, b).with("size", "2048x2048", "filter", "gauss5", "type", "f32", "ch", "1"))
			}
			v1, v1c, v2 := g("gpu-naive"), g("gpu-const"), g("gpu-shared")
			bv2 = append(bv2, v2.Center()/1e6)
			bx, by, _ := parseSize(b)
			tb.Rows = append(tb.Rows, []string{b, strconv.Itoa(bx * by), msCI(v1), msCI(v1c), msCI(v2), ratioCell(v1, v2)})
		}
		s.Tables = append(s.Tables, tb)
		if h.GPU {
			blockPlot.Series = append(blockPlot.Series, Series{Name: h.Title + " V2", Variant: "V2", Source: h.Title, Y: bv2})
		}
	}
	for _, pub := range report000 {
		t := &Table{ID: "000-published-" + runfile.Slug(pub.GPU, ""), Title: "Published by report 000 — " + pub.GPU,
			Caption: "Report 000, tables 5.5-5.10 (image size, filter size, block shape), times in ms.",
			Header:  []string{"Sweep", "Point", "CPU (ms)", "V1 (ms)", "V1c (ms)", "V2 (ms)", "Speedup V1 / V2/V1"}}
		var v1s, v2s, ratios, bv2 []float64
		for _, r := range pub.ImageSize {
			t.Rows = append(t.Rows, []string{"image size", r.Axis, pubMS(r.CPU), pubMS(r.V1), pubMS(r.V1c), pubMS(r.V2), xCell(r.CPU / r.V1)})
			v1s, v2s = append(v1s, r.V1), append(v2s, r.V2)
		}
		for _, r := range pub.Kernel {
			t.Rows = append(t.Rows, []string{"filter size", r.Axis + "x" + r.Axis, pubMS(r.CPU), pubMS(r.V1), pubMS(r.V1c), pubMS(r.V2), xCell(r.V1 / r.V2)})
			ratios = append(ratios, r.V1/r.V2)
		}
		for _, r := range pub.Block {
			t.Rows = append(t.Rows, []string{"block", r.Axis, missing, pubMS(r.V1), pubMS(r.V1c), pubMS(r.V2), xCell(r.V1 / r.V2)})
			bv2 = append(bv2, r.V2)
		}
		s.Tables = append(s.Tables, t)
		sizePlot.Series = append(sizePlot.Series, Series{Name: pub.GPU + " V1 (report)", Variant: "V1", Source: pub.GPU + " (report)", Y: v1s, Dashed: true}, Series{Name: pub.GPU + " V2 (report)", Variant: "V2", Source: pub.GPU + " (report)", Y: v2s, Dashed: true})
		kPlot.Series = append(kPlot.Series, Series{Name: pub.GPU + " (report)", Variant: "V1 / V2", Source: pub.GPU + " (report)", Y: ratios, Dashed: true})
		blockPlot.Series = append(blockPlot.Series, Series{Name: pub.GPU + " V2 (report)", Variant: "V2", Source: pub.GPU + " (report)", Y: bv2, Dashed: true})
	}
	s.Plots = []*Plot{sizePlot, kPlot, blockPlot}
	return s
}

// imageSizeTable000 is host h's table of the image-size sweep (Gaussian
// 3x3, 16x16 blocks), with graph-replay columns from its launch-overhead
// run where it has one, and V1's, V1c's and V2's times in ms, a series
// each.
func imageSizeTable000(h *Host) (t *Table, v1s, v1cs, v2s []float64) {
	f32 := Q{"type": "f32", "ch": "1"}
	t = &Table{ID: "000-image-size-" + h.Slug, Title: "Image size sweep, Gaussian 3x3, 16x16 blocks — " + h.Title,
		Caption: "Ours, with one host launch per run as the report timed; tables 5.5 and 5.6 of the report in the same shape below. Kernels shorter than one host launch measure the launch interval instead: the launch-overhead section times the same kernels replayed from CUDA graphs.",
		Header:  []string{"Image size", "CPU (ms)", "V1 (ms)", "V1c (ms)", "V2 (ms)", "Speedup V1", "Speedup V2"}}
	launch := h.run("launch-overhead")
	if launch != nil {
		t.Header = append(t.Header, "V1 graph (ms)", "V2 graph (ms)")
		t.Caption += " The graph columns come from the host's launch-overhead run."
	}
	for _, sz := range sizes000 {
		q := f32.with("size", sz, "filter", "gauss3")
		cpu := h.Measure(q.with("variant", "cpu-naive", "timing", "cpu"))
		v1 := h.Measure(gpuQ("gpu-naive", "16x16").with("size", sz, "filter", "gauss3", "type", "f32", "ch", "1"))
		v1c := h.Measure(gpuQ("gpu-const", "16x16").with("size", sz, "filter", "gauss3", "type", "f32", "ch", "1"))
		v2 := h.Measure(gpuQ("gpu-shared", "16x16").with("size", sz, "filter", "gauss3", "type", "f32", "ch", "1"))
		v1s, v1cs, v2s = append(v1s, v1.Center()/1e6), append(v1cs, v1c.Center()/1e6), append(v2s, v2.Center()/1e6)
		row := []string{sz, msCI(cpu), msCI(v1), msCI(v1c), msCI(v2), ratioCell(cpu, v1), ratioCell(cpu, v2)}
		if launch != nil {
			g := func(v string) Measure {
				return launch.Measure(gpuQ(v, "16x16").with("size", sz, "filter", "gauss3", "type", "f32", "ch", "1", "timing", "kernel-graph"))
			}
			row = append(row, msCI(g("gpu-naive")), msCI(g("gpu-shared")))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, v1s, v1cs, v2s
}
