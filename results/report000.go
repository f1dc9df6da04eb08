package results

import (
	"strconv"

	"github.com/convbench/convbench/runfile"
)

// The axes of report 000's sweeps: image sizes, filter sizes and block shapes.
var (
	sizes000  = []string{"256x256", "512x512", "1024x1024", "2048x2048", "4096x4096"}
	ks000     = []string{"3", "5", "7"}
	blocks000 = []string{"8x8", "16x16", "32x8", "32x16", "32x32"}
)

func section000(hosts []*Host) *Section {
	s := &Section{Report: "000", Title: "Report 000: naive (V1), constant-memory (V1c) and shared-memory (V2) kernels"}
	sizePlot := &Plot{ID: "000-image-size", Title: "Gaussian 3x3, 16x16 blocks: kernel time vs image size",
		XLabel: "image size (pixels, log)", YLabel: "time (ms)", X: sizes000, XValue: pixels(sizes000), LogX: true, LogY: true}
	kPlot := &Plot{ID: "000-filter-size", Title: "1024x1024, 16x16 blocks: V2/V1 vs filter size",
		XLabel: "filter size K", YLabel: "V1 time / V2 time", X: ks000, XValue: numbers(ks000)}
	blockPlot := &Plot{ID: "000-block-shape", Title: "2048x2048 Gaussian 5x5: kernel time vs block shape",
		XLabel: "block", YLabel: "time (ms)", X: blocks000, LogY: true}
	for _, h := range withReport(hosts, "000") {
		t, v1s, v1cs, v2s := imageSizeTable000(h)
		s.Tables = append(s.Tables, t)
		if h.GPU {
			sizePlot.Series = append(sizePlot.Series, hostSeries(h, "V1", v1s), hostSeries(h, "V1c", v1cs), hostSeries(h, "V2", v2s))
		}
		tk := &Table{ID: "000-filter-size-" + h.Slug, Title: "Filter size sweep, 1024x1024, 16x16 blocks — " + h.Title,
			Header: []string{"Filter", "CPU (ms)", "V1 (ms)", "V1c (ms)", "V2 (ms)", "V2/V1"}}
		var ratios []float64
		for _, k := range ks000 {
			cpu := h.Measure(cpuQ("cpu-naive").image("1024x1024", "gauss"+k, "f32", "1"))
			v1, v1c, v2 := measure000(h, "16x16", "1024x1024", "gauss"+k)
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
		for _, b := range blocks000 {
			v1, v1c, v2 := measure000(h, b, "2048x2048", "gauss5")
			bv2 = append(bv2, v2.Center()/1e6)
			bx, by, _ := parseSize(b)
			tb.Rows = append(tb.Rows, []string{b, strconv.Itoa(bx * by), msCI(v1), msCI(v1c), msCI(v2), ratioCell(v1, v2)})
		}
		s.Tables = append(s.Tables, tb)
		if h.GPU {
			blockPlot.Series = append(blockPlot.Series, hostSeries(h, "V2", bv2))
		}
	}
	for _, pub := range report000 {
		t := &Table{ID: "000-published-" + runfile.Slug(pub.GPU, ""), Title: "Published by report 000 — " + pub.GPU,
			Caption: "Report 000, tables 5.5-5.10 (image size, filter size, block shape), times in ms.",
			Header:  []string{"Sweep", "Point", "CPU (ms)", "V1 (ms)", "V1c (ms)", "V2 (ms)", "Speedup V1 / V2/V1"}}
		var ratios []float64
		for i, sz := range sizes000 {
			t.Rows = append(t.Rows, pub.ImageSize.row("image size", sz, i, pub.ImageSize.CPU[i]/pub.ImageSize.V1[i]))
		}
		for i, k := range ks000 {
			ratios = append(ratios, pub.Kernel.V1[i]/pub.Kernel.V2[i])
			t.Rows = append(t.Rows, pub.Kernel.row("filter size", k+"x"+k, i, ratios[i]))
		}
		for i, b := range blocks000 {
			t.Rows = append(t.Rows, pub.Block.row("block", b, i, pub.Block.V1[i]/pub.Block.V2[i]))
		}
		s.Tables = append(s.Tables, t)
		sizePlot.Series = append(sizePlot.Series, publishedSeries(pub.GPU+" V1", "V1", pub.GPU, pub.ImageSize.V1), publishedSeries(pub.GPU+" V2", "V2", pub.GPU, pub.ImageSize.V2))
		kPlot.Series = append(kPlot.Series, publishedSeries(pub.GPU, "V1 / V2", pub.GPU, ratios))
		blockPlot.Series = append(blockPlot.Series, publishedSeries(pub.GPU+" V2", "V2", pub.GPU, pub.Block.V2))
	}
	s.Plots = []*Plot{sizePlot, kPlot, blockPlot}
	return s
}

// row is point i of the published sweep s as a row of the published table.
func (s published000Sweep) row(sweep, point string, i int, ratio float64) []string {
	cpu := missing
	if s.CPU != nil {
		cpu = pubMS(s.CPU[i])
	}
	return []string{sweep, point, cpu, pubMS(s.V1[i]), pubMS(s.V1c[i]), pubMS(s.V2[i]), xCell(ratio)}
}

// measure000 is h's kernel time of V1, V1c and V2 on a float32 image.
func measure000(h *Host, block, size, filter string) (v1, v1c, v2 Measure) {
	g := func(v string) Measure { return h.Measure(gpuQ(v, block).image(size, filter, "f32", "1")) }
	return g("gpu-naive"), g("gpu-const"), g("gpu-shared")
}

// imageSizeTable000 is h's image-size sweep, and V1's, V1c's and V2's ms.
func imageSizeTable000(h *Host) (t *Table, v1s, v1cs, v2s []float64) {
	t = &Table{ID: "000-image-size-" + h.Slug, Title: "Image size sweep, Gaussian 3x3, 16x16 blocks — " + h.Title,
		Caption: "Ours, with one host launch per run as the report timed; tables 5.5 and 5.6 of the report in the same shape below. Kernels shorter than one host launch measure the launch interval instead: the launch-overhead section times the same kernels replayed from CUDA graphs.",
		Header:  []string{"Image size", "CPU (ms)", "V1 (ms)", "V1c (ms)", "V2 (ms)", "Speedup V1", "Speedup V2"}}
	launch := h.run("launch-overhead")
	if launch != nil {
		t.Header = append(t.Header, "V1 graph (ms)", "V2 graph (ms)")
		t.Caption += " The graph columns come from the host's launch-overhead run."
	}
	for _, sz := range sizes000 {
		cpu := h.Measure(Q{"variant": "cpu-naive", "timing": "cpu"}.image(sz, "gauss3", "f32", "1"))
		v1, v1c, v2 := measure000(h, "16x16", sz, "gauss3")
		v1s, v1cs, v2s = append(v1s, v1.Center()/1e6), append(v1cs, v1c.Center()/1e6), append(v2s, v2.Center()/1e6)
		row := []string{sz, msCI(cpu), msCI(v1), msCI(v1c), msCI(v2), ratioCell(cpu, v1), ratioCell(cpu, v2)}
		if launch != nil {
			g := func(v string) Measure {
				return launch.Measure(gpuQ(v, "16x16").image(sz, "gauss3", "f32", "1").with("timing", "kernel-graph"))
			}
			row = append(row, msCI(g("gpu-naive")), msCI(g("gpu-shared")))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, v1s, v1cs, v2s
}
