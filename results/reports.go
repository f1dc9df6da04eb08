package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/convbench/convbench/benchmarks/benchname"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/tiling"
)

// Section is one source report's part of the report: our tables per
// host, the report's published tables, and plots.
type Section struct {
	Report string // "000".."004", or "default"
	Title  string
	// Notes are paragraphs printed under the plots, before the tables:
	// what the section could not show, such as energy no run recorded.
	Notes  []string
	Tables []*Table
	Plots  []*Plot
	// Timelines are drawn like plots: one overlapped run each.
	Timelines []*Timeline
}

// sectionBuilders are the report's sections in the order it renders
// them, each named as the file that builds it (section_<name>.go).
var sectionBuilders = []struct {
	name  string
	build func(hosts []*Host) *Section
}{
	{"000", section000},
	{"001", section001},
	{"002", section002},
	{"003", section003},
	{"004", section004},
	{"multigpu", sectionMultiGPU},
	{"default", sectionDefault},
	{"launch", sectionLaunch},
	{"tuning_tiled", sectionTuningTiled},
	{"tuned", sectionTunedVsDefault},
	{"floors", sectionFloors},
	{"shapes", sectionShapes},
	{"crossover", sectionCrossover},
	{"roofline", sectionRoofline},
	{"cpu_roofline", sectionCPURoofline},
	{"cpu_peers", sectionCPUPeers},
	{"plan_cost", sectionPlanCost},
	{"spread", sectionSpread},
}

// Sections builds every report section from the hosts' runs. The tables
// of a host without a GPU keep its CPU cases alone (Table.CPUOnly), and
// a table with none is left out.
func Sections(hosts []*Host) []*Section {
	secs := make([]*Section, len(sectionBuilders))
	for i, b := range sectionBuilders {
		secs[i] = b.build(hosts)
	}
	keepCPUOnly(hosts, secs)
	return secs
}

// keepCPUOnly drops from secs the tables of each host without a GPU
// that hold more than its CPU cases.
func keepCPUOnly(hosts []*Host, secs []*Section) {
	for _, h := range hosts {
		if h.GPU {
			continue
		}
		for _, s := range secs {
			s.Tables = slices.DeleteFunc(s.Tables, func(t *Table) bool {
				return strings.HasSuffix(t.ID, "-"+h.Slug) && !t.CPUOnly()
			})
		}
	}
}

func nan() float64 { return math.NaN() }

func val(v float64, ok bool) float64 {
	if !ok {
		return nan()
	}
	return v
}

func speedup(cpu, gpu float64) float64 {
	if math.IsNaN(cpu) || math.IsNaN(gpu) || gpu <= 0 {
		return nan()
	}
	return cpu / gpu
}

func msCell(ns float64) string { return ms(ns, !math.IsNaN(ns)) }
func xCell(r float64) string {
	if math.IsNaN(r) || r <= 0 {
		return missing
	}
	return sig(r, 3) + "×"
}
func pubMS(v float64) string {
	if v <= 0 {
		return missing
	}
	return strconv.FormatFloat(v, 'f', -1, 64) // as the report printed it
}

// ---- report 000 ----

var sizes000 = []string{"256x256", "512x512", "1024x1024", "2048x2048", "4096x4096"}

func section000(hosts []*Host) *Section {
	s := &Section{Report: "000", Title: "Report 000: naive (V1), constant-memory (V1c) and shared-memory (V2) kernels"}
	f32 := Q{"type": "f32", "ch": "1"}
	sizePlot := &Plot{ID: "000-image-size", Title: "Gaussian 3x3, 16x16 blocks: kernel time vs image size",
		XLabel: "image size (pixels, log)", YLabel: "time (ms)", X: sizes000, XValue: pixels(sizes000), LogX: true, LogY: true}
	kPlot := &Plot{ID: "000-filter-size", Title: "1024x1024, 16x16 blocks: V2/V1 vs filter size",
		XLabel: "filter size K", YLabel: "V1 time / V2 time", X: []string{"3", "5", "7"}, XValue: []float64{3, 5, 7}}
	blocks := []string{"8x8", "16x16", "32x8", "32x16", "32x32"}
	blockPlot := &Plot{ID: "000-block-shape", Title: "2048x2048 Gaussian 5x5: kernel time vs block shape",
		XLabel: "block", YLabel: "time (ms)", X: blocks, LogY: true}
	for _, h := range withReport(hosts, "000") {
		t := &Table{ID: "000-image-size-" + h.Slug, Title: "Image size sweep, Gaussian 3x3, 16x16 blocks — " + h.Title,
			Caption: "Ours, with one host launch per run as the report timed; tables 5.5 and 5.6 of the report in the same shape below. Kernels shorter than one host launch measure the launch interval instead: the launch-overhead section times the same kernels replayed from CUDA graphs.",
			Header:  []string{"Image size", "CPU (ms)", "V1 (ms)", "V1c (ms)", "V2 (ms)", "Speedup V1", "Speedup V2"}}
		launch := h.run("launch-overhead")
		if launch != nil {
			t.Header = append(t.Header, "V1 graph (ms)", "V2 graph (ms)")
			t.Caption += " The graph columns come from the host's launch-overhead run."
		}
		var v1s, v2s, v1cs []float64
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
	for _, pub := range Report000 {
		t := &Table{ID: "000-published-" + benchname.Slug(pub.GPU, ""), Title: "Published by report 000 — " + pub.GPU,
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

// ---- report 001 ----

var filters001 = []string{"prewitt-x", "gauss5", "gauss7", "log5", "sharpen"}

func section001(hosts []*Host) *Section {
	s := &Section{Report: "001", Title: "Report 001: 8-bit RGB input, global vs shared memory"}
	rgb := Q{"type": "u8", "ch": "3"}
	plot := &Plot{ID: "001-image-size", Title: "8-bit RGB, 16x16: speedup over cpu-naive vs image size (Gaussian 7x7)",
		XLabel: "image size (pixels, log)", YLabel: "speedup", X: Report001Sizes, XValue: pixels(Report001Sizes), LogX: true, LogY: true}
	for _, h := range withReport(hosts, "001") {
		for _, v := range []string{"gpu-naive", "gpu-shared"} {
			t := &Table{ID: "001-speedup-" + v + "-" + h.Slug, Title: fmt.Sprintf("Speedup over cpu-naive vs image size, %s, 16x16 — %s", v, h.Title),
				Caption: "Ours; the report's tables 1 (global) and 2 (shared) follow.",
				Header:  append([]string{"Filter"}, Report001Sizes...)}
			for _, f := range filters001 {
				row := []string{f}
				var ys []float64
				for _, sz := range Report001Sizes {
					q := rgb.with("size", sz, "filter", f)
					cpu := h.Measure(cpuQ("cpu-naive").with("size", sz, "filter", f, "type", "u8", "ch", "3"))
					gpu := h.Measure(gpuQ(v, "16x16").with("size", q["size"], "filter", f, "type", "u8", "ch", "3"))
					row = append(row, ratioCell(cpu, gpu))
					ys = append(ys, speedup(cpu.Center(), gpu.Center()))
				}
				t.Rows = append(t.Rows, row)
				if f == "gauss7" && h.GPU {
					plot.Series = append(plot.Series, Series{Name: h.Title + " " + v, Variant: v, Source: h.Title, Y: ys})
				}
			}
			s.Tables = append(s.Tables, t)
		}
		tk := &Table{ID: "001-filter-size-" + h.Slug, Title: "Filter size, 8-bit RGB 1024x1024, 16x16 — " + h.Title,
			Header: []string{"K", "Gauss global (ms)", "Gauss shared (ms)", "Box global (ms)", "Box shared (ms)", "Gauss shared speedup", "Box shared speedup"}}
		for _, k := range []string{"3", "5", "7", "9", "11", "15", "21"} {
			g := func(v, f string) Measure {
				if v == "cpu-naive" {
					return h.Measure(cpuQ(v).with("size", "1024x1024", "filter", f, "type", "u8", "ch", "3"))
				}
				return h.Measure(gpuQ(v, "16x16").with("size", "1024x1024", "filter", f, "type", "u8", "ch", "3"))
			}
			ga, bo := "gauss"+k, "box"+k
			tk.Rows = append(tk.Rows, []string{k, msCI(g("gpu-naive", ga)), msCI(g("gpu-shared", ga)), msCI(g("gpu-naive", bo)), msCI(g("gpu-shared", bo)),
				ratioCell(g("cpu-naive", ga), g("gpu-shared", ga)), ratioCell(g("cpu-naive", bo), g("gpu-shared", bo))})
		}
		s.Tables = append(s.Tables, tk)
		tt := &Table{ID: "001-tuned-" + h.Slug, Title: "Best block per filter, 8-bit RGB 1920x1920 — " + h.Title,
			Caption: "Kernel times; the report's table 5 gives speedups over its CPU for the same three configurations.",
			Header:  []string{"Filter", "Best block (shared)", "Global 16x16 (ms)", "Shared 16x16 (ms)", "Tuned shared (ms)"}}
		for _, f := range filters001 {
			var all []*Sample
			for _, r := range h.Runs {
				all = append(all, r.Find(gpuQ("gpu-shared", "").with("size", "1920x1920", "filter", f, "type", "u8", "ch", "3"))...)
			}
			best := missing
			bestSmp := fastestSample(all)
			if bestSmp != nil {
				best = bestSmp.Keys["block"]
			}
			g := func(v string) Measure {
				return h.Measure(gpuQ(v, "16x16").with("size", "1920x1920", "filter", f, "type", "u8", "ch", "3"))
			}
			tt.Rows = append(tt.Rows, []string{f, best, msCI(g("gpu-naive")), msCI(g("gpu-shared")), msCI(timeOf(bestSmp))})
		}
		s.Tables = append(s.Tables, tt)
	}
	for _, v := range []string{"gpu-naive", "gpu-shared"} {
		tbl := map[string]string{"gpu-naive": "table 1 (global memory)", "gpu-shared": "table 2 (shared memory)"}[v]
		t := &Table{ID: "001-published-speedup-" + v, Title: "Published by report 001 — " + Report001GPU + ", " + tbl,
			Caption: "Speedup over the report's sequential CPU (Ryzen 5 3600), 16x16 blocks.", Header: append([]string{"Filter"}, Report001Sizes...)}
		for _, f := range filters001 {
			row := []string{f}
			for _, x := range Report001Speedup[v][f] {
				row = append(row, sig(x, 4)+"×")
			}
			t.Rows = append(t.Rows, row)
		}
		s.Tables = append(s.Tables, t)
		plot.Series = append(plot.Series, Series{Name: Report001GPU + " " + v + " (report)", Variant: v, Source: Report001GPU + " (report)", Y: Report001Speedup[v]["gauss7"], Dashed: true})
	}
	tk := &Table{ID: "001-published-filter-size", Title: "Published by report 001 — " + Report001GPU + ", tables 3 and 4",
		Header: []string{"K", "Gauss global speedup", "Gauss global (ms)", "Gauss shared speedup", "Gauss shared (ms)", "Box global speedup", "Box shared speedup"}}
	for i, g := range Report001KernelSize["gpu-naive"] {
		sh := Report001KernelSize["gpu-shared"][i]
		tk.Rows = append(tk.Rows, []string{g.K, sig(g.GaussSpeedup, 4) + "×", pubMS(g.GaussMS), sig(sh.GaussSpeedup, 4) + "×", pubMS(sh.GaussMS), sig(g.BoxSpeedup, 4) + "×", sig(sh.BoxSpeedup, 4) + "×"})
	}
	s.Tables = append(s.Tables, tk)
	tt := &Table{ID: "001-published-tuned", Title: "Published by report 001 — " + Report001GPU + ", table 5 (1920x1920)",
		Header: []string{"Filter", "Optimal block", "Global 16x16", "Shared 16x16", "Tuned shared"}}
	for _, r := range Report001Tuned {
		tt.Rows = append(tt.Rows, []string{r.Filter, r.Block, sig(r.Global, 4) + "×", sig(r.Shared, 4) + "×", sig(r.TunedShared, 4) + "×"})
	}
	s.Tables = append(s.Tables, tt)
	s.Plots = []*Plot{plot}
	return s
}

// ---- report 002 ----

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
		for _, r := range Report002Table1 {
			if r.Variant == "" {
				continue
			}
			q := Q{"size": "1024x1024", "filter": "box75", "type": "f32", "ch": "1"}
			var kern, tot Measure
			if r.Variant == "cpu-naive" {
				kern = h.Measure(cpuQ(r.Variant).with("size", q["size"], "filter", "box75", "type", "f32", "ch", "1"))
			} else {
				kern = h.Measure(gpuQ(r.Variant, "32x32").with("size", q["size"], "filter", "box75", "type", "f32", "ch", "1"))
				tot = h.Measure(Q{"variant": r.Variant, "block": "32x32", "timing": "total", "mem": "pageable", "size": q["size"], "filter": "box75", "type": "f32", "ch": "1"})
			}
			t.Rows = append(t.Rows, []string{r.Method, r.Variant, msCI(kern), msCI(tot), msCell(tot.Center() - kern.Center())})
		}
		s.Tables = append(s.Tables, t)
		tk := &Table{ID: "002-filter-size-" + h.Slug, Title: "Kernel time (ms) vs box filter size, 1024x1024, block 32x32 — " + h.Title,
			Header: append([]string{"K"}, variants002...)}
		series := make([][]float64, len(variants002))
		for _, k := range ks002 {
			row := []string{k}
			for i, v := range variants002 {
				tm := h.Measure(gpuQ(v, "32x32").with("size", "1024x1024", "filter", "box"+k, "type", "f32", "ch", "1"))
				row = append(row, msCI(tm))
				series[i] = append(series[i], tm.Center()/1e6)
			}
			tk.Rows = append(tk.Rows, row)
		}
		s.Tables = append(s.Tables, tk)
		if h.GPU {
			for i, v := range variants002 {
				plot.Series = append(plot.Series, Series{Name: h.Title + " " + v, Variant: v, Source: h.Title, Y: series[i]})
			}
		}
		tb := &Table{ID: "002-block-size-" + h.Slug, Title: "Kernel time (ms) vs square block, box 61x61, 1024x1024 — " + h.Title,
			Header: append([]string{"Block"}, variants002...)}
		for _, b := range []string{"4x4", "8x8", "16x16", "32x32"} {
			row := []string{b}
			for _, v := range variants002 {
				row = append(row, msCI(h.Measure(gpuQ(v, b).with("size", "1024x1024", "filter", "box61", "type", "f32", "ch", "1"))))
			}
			tb.Rows = append(tb.Rows, row)
		}
		s.Tables = append(s.Tables, tb)
		if te := exactness002(h); te != nil {
			s.Tables = append(s.Tables, te)
		}
	}
	t := &Table{ID: "002-published-table1", Title: "Published by report 002 — " + Report002GPU + ", table 1",
		Caption: "Box 75x75 on a 1024x1024 image, block 32: time taken and copy time in ms.",
		Header:  []string{"Method", "Our variant", "Time (ms)", "Copy (ms)"}}
	for _, r := range Report002Table1 {
		v := r.Variant
		if v == "" {
			v = missing
		}
		t.Rows = append(t.Rows, []string{r.Method, v, pubMS(r.KernelMS), pubMS(r.CopyMS)})
	}
	s.Tables = append(s.Tables, t)
	s.Plots = []*Plot{plot}
	return s
}

// Compile options of the exactness table, as the opts key names them, and
// the column titles.
var (
	opts002      = []string{"default", "nofma", "fast-math"}
	optsTitle002 = map[string]string{"default": "default", "nofma": "fmad=false", "fast-math": "fast-math"}
	ks002Exact   = []string{"3", "9", "25", "75"}
)

// exactness002 is report 002's exactness-versus-speed point on h: kernel
// time and max ULP distance from cpu-naive of gpu-naive and gpu-const at
// 1024x1024, box K, block 32x32, under each compile option. It is nil
// when no sample of those cases names its compile options, as runs
// stored before the opts key do not.
func exactness002(h *Host) *Table {
	base := func(v string) Q {
		return gpuQ(v, "32x32").with("size", "1024x1024", "type", "f32", "ch", "1")
	}
	explicit := false
	for _, r := range h.Runs {
		for _, v := range []string{"gpu-naive", "gpu-const"} {
			for _, smp := range r.Find(base(v)) {
				if strings.HasPrefix(smp.Keys["filter"], "box") && !slices.Contains(smp.Implied, "opts") {
					explicit = true
				}
			}
		}
	}
	if !explicit {
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

// ---- report 003 ----

func section003(hosts []*Host) *Section {
	s := &Section{Report: "003", Title: "Report 003: RGB channel strategies (int16 planar)"}
	var ks []string
	for _, r := range Report003KernelSize {
		ks = append(ks, r.K)
	}
	var sizes []string
	for _, r := range Report003ImageSize {
		sizes = append(sizes, r.Size)
	}
	plot := &Plot{ID: "003-filter-size", Title: "1000x1000 RGB int16: total time vs box filter size",
		XLabel: "filter size K", YLabel: "total time (ms)", X: ks, XValue: numbers(ks), LogY: true}
	hdr := []string{"", "Seq = cpu-naive (ms)"}
	for i, m := range Report003Methods[:5] {
		if v := Report003Variants[i]; v != "" {
			hdr = append(hdr, m+" = "+v+" total (ms)", "kernel (ms)")
		}
	}
	one := func(h *Host, v, timing string, q Q) Measure {
		q = q.with("variant", v, "type", "i16", "ch", "3", "layout", "planar")
		switch timing {
		case "cpu":
			q = q.with("timing", "cpu")
		case "total":
			q = q.with("timing", "total", "mem", "pageable")
		default:
			q = q.with("timing", "kernel", "cache", "hot")
		}
		return h.Measure(q)
	}
	build := func(h *Host, id, title, axisName string, axis []string, q func(a string) Q) (*Table, [][]float64) {
		t := &Table{ID: id, Title: title, Header: append([]string{axisName}, hdr[1:]...),
			Caption: "Total is upload, kernel and download from pageable memory. gpu-ch-loop's kernel time includes its per-channel " +
				"uploads and downloads from pinned memory, as report 003 timed that strategy, so it is not a kernel time like the others."}
		var series [][]float64
		for _, a := range axis {
			row := []string{a, msCI(one(h, "cpu-naive", "cpu", q(a)))}
			si := 0
			for i := range Report003Methods[:5] {
				v := Report003Variants[i]
				if v == "" {
					continue
				}
				tot := one(h, v, "total", q(a))
				row = append(row, msCI(tot), msCI(one(h, v, "kernel", q(a))))
				if len(series) <= si {
					series = append(series, nil)
				}
				series[si] = append(series[si], tot.Center()/1e6)
				si++
			}
			t.Rows = append(t.Rows, row)
		}
		return t, series
	}
	for _, h := range withReport(hosts, "003") {
		t, series := build(h, "003-filter-size-"+h.Slug, "1000x1000 RGB int16 planar, box K — "+h.Title, "K", ks,
			func(k string) Q { return Q{"size": "1000x1000", "filter": "box" + k} })
		s.Tables = append(s.Tables, t)
		if h.GPU {
			si := 0
			for i := range Report003Methods[:5] {
				if Report003Variants[i] != "" {
					plot.Series = append(plot.Series, Series{Name: h.Title + " " + Report003Variants[i], Variant: Report003Variants[i], Source: h.Title, Y: series[si]})
					si++
				}
			}
		}
		t2, _ := build(h, "003-image-size-"+h.Slug, "Box 11x11 RGB int16 planar vs image size — "+h.Title, "Size", sizes,
			func(sz string) Q { return Q{"size": sz, "filter": "box11"} })
		s.Tables = append(s.Tables, t2)
	}
	pub := func(id, title, axisName string, rows [][]string) *Table {
		return &Table{ID: id, Title: title, Caption: "Average times in ms as printed by the report (" + Report003GPU + ").",
			Header: append([]string{axisName}, Report003Methods...), Rows: rows}
	}
	var rows [][]string
	for _, r := range Report003KernelSize {
		row := []string{r.K}
		for _, x := range r.Times {
			row = append(row, pubMS(x))
		}
		rows = append(rows, row)
	}
	s.Tables = append(s.Tables, pub("003-published-filter-size", "Published by report 003 — "+Report003GPU+", table 1 (1000x1000)", "K", rows))
	rows = nil
	for _, r := range Report003ImageSize {
		row := []string{r.Size}
		for _, x := range r.Times {
			row = append(row, pubMS(x))
		}
		rows = append(rows, row)
	}
	s.Tables = append(s.Tables, pub("003-published-image-size", "Published by report 003 — "+Report003GPU+", table 3 (box 11x11)", "Size", rows))
	for i, m := range Report003Methods[:5] {
		var ys []float64
		for _, r := range Report003KernelSize {
			ys = append(ys, r.Times[i])
		}
		v := Report003Variants[i]
		if v == "" {
			v = m
		}
		plot.Series = append(plot.Series, Series{Name: m + " (report)", Variant: v, Source: Report003GPU + " (report)", Y: ys, Dashed: true})
	}
	s.Plots = []*Plot{plot}
	return s
}

// ---- report 004 ----

func section004(hosts []*Host) *Section {
	s := &Section{Report: "004", Title: "Report 004: Sobel, Gaussian 2-D vs separable, RGB->YUV at 1024x1024"}
	ks := []string{"3", "5", "7", "9", "11"}
	plot := &Plot{ID: "004-gaussian", Title: "1024x1024 8-bit Gaussian: time vs filter size",
		XLabel: "filter size K", YLabel: "time (ms)", X: ks, XValue: numbers(ks), LogY: true}
	gvars := []variantTune{{"cpu-naive", "none"}, {"cpu-fast", "none"}, {"gpu-naive", "default"}, {"gpu-shared", "default"},
		{"gpu-separable", "shared=0"}, {"gpu-separable", "default"}}
	for _, h := range withReport(hosts, "004") {
		t := &Table{ID: "004-table1-" + h.Slug, Title: "Table I shape, 1024x1024 — " + h.Title,
			Caption: "GPU rows are kernel times; MPix/s and GB/s (bytes read + written once) from our medians. " +
				"Where the report's naive and optimised GPU versions are one variant, a tunable picks the kernel, shown in brackets; " +
				"without one, the variant runs its default (gpu-sobel and gpu-rgb2yuv: naive; gpu-separable: shared-memory passes).",
			Header: []string{"Implementation (report)", "Variant", "Time (ms)", "MPix/s", "GB/s"}}
		for _, r := range Report004TableI {
			if r.Variant == "" {
				continue
			}
			q := Q{"size": "1024x1024", "filter": r.Op}
			switch r.Op {
			case "rgb2yuv":
				q = q.with("type", "u8", "ch", "3")
			default:
				q = q.with("type", "u8", "ch", "1")
			}
			vt := variantTune{r.Variant, r.Tune}
			var smp *Sample
			if strings.HasPrefix(r.Variant, "cpu-") {
				smp = h.Sample(cpuQ(r.Variant).with("size", q["size"], "filter", q["filter"], "type", q["type"], "ch", q["ch"]))
			} else {
				smp = h.Sample(gpuQ(r.Variant, "").with("size", q["size"], "filter", q["filter"], "type", q["type"], "ch", q["ch"], "block", "default", "tune", r.Tune))
			}
			mp, gb := nan(), nan()
			if smp != nil {
				mp = val(smp.Median("MPix/s"))
				gb = val(smp.Median("GB/s"))
			}
			t.Rows = append(t.Rows, []string{r.Implementation, vt.String(), msCI(timeOf(smp)), num(mp, !math.IsNaN(mp)), num(gb, !math.IsNaN(gb))})
		}
		s.Tables = append(s.Tables, t)
		tg := &Table{ID: "004-gaussian-" + h.Slug, Title: "Gaussian K x K, 1024x1024 8-bit gray, time (ms) — " + h.Title,
			Header: []string{"K"}}
		for _, v := range gvars {
			tg.Header = append(tg.Header, v.String())
		}
		series := make([][]float64, len(gvars))
		for _, k := range ks {
			row := []string{k}
			for i, v := range gvars {
				q := Q{"size": "1024x1024", "filter": "gauss" + k, "type": "u8", "ch": "1"}
				var tm Measure
				if strings.HasPrefix(v.variant, "cpu-") {
					tm = h.Measure(cpuQ(v.variant).with("size", q["size"], "filter", q["filter"], "type", "u8", "ch", "1"))
				} else {
					tm = h.Measure(gpuQ(v.variant, "default").with("size", q["size"], "filter", q["filter"], "type", "u8", "ch", "1", "tune", v.tune))
				}
				row = append(row, msCI(tm))
				series[i] = append(series[i], tm.Center()/1e6)
			}
			tg.Rows = append(tg.Rows, row)
		}
		s.Tables = append(s.Tables, tg)
		for i, v := range gvars {
			plot.Series = append(plot.Series, Series{Name: h.Title + " " + v.String(), Variant: v.String(), Source: h.Title, Y: series[i]})
		}
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
	t := &Table{ID: "004-published-table1", Title: "Published by report 004 — " + Report004GPU + ", table I (1024x1024)",
		Header: []string{"Implementation", "Our variant", "Avg. time (ms)", "MPix/s", "GB/s"}}
	for _, r := range Report004TableI {
		v := variantTune{r.Variant, r.Tune}.String()
		if r.Variant == "" {
			v = missing
		}
		t.Rows = append(t.Rows, []string{r.Implementation, v, sig(r.MS, 4), sig(r.MPixS, 4), fmt.Sprintf("%.2f", r.GBs)})
	}
	s.Tables = append(s.Tables, t)
	s.Plots = []*Plot{plot}
	return s
}

// variantTune is a variant with the value of its tune key.
type variantTune struct{ variant, tune string }

// String is the variant's name, followed by its tunables when it sets
// any: "gpu-sobel (shared=1)".
func (v variantTune) String() string {
	if v.tune == "" || v.tune == "default" || v.tune == "none" {
		return v.variant
	}
	return v.variant + " (" + v.tune + ")"
}

// withReport keeps the hosts that have a run of one of the report's
// presets (a file named after the report or one of its experiments), so a
// host without such a run adds no table of empty cells.
func withReport(hosts []*Host, report string) []*Host {
	var out []*Host
	for _, h := range hosts {
		for _, r := range h.Runs {
			if r.Preset == report || strings.HasPrefix(r.Preset, report+"-") {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// ---- default preset ----

func sectionDefault(hosts []*Host) *Section {
	s := &Section{Report: "default", Title: "Default sweep: every variant on this framework's short set"}
	for _, h := range hosts {
		for _, r := range h.Runs {
			if r.Preset == "default" {
				t := Summary(r)
				t.ID = "default-" + h.Slug
				t.Title = "Default sweep — " + h.Title
				s.Tables = append(s.Tables, t)
			}
		}
	}
	return s
}

// ---- spread of every run ----

// WideSpread is the spread (slowest minus fastest run, over the median)
// above which the spread section counts a case as noisy: its median is
// still the report's number, but a difference smaller than this between
// two such cases is not one to quote.
const WideSpread = 0.10

func sectionSpread(hosts []*Host) *Section {
	s := &Section{Report: "spread", Title: "Measurement spread: which medians to read with care"}
	for _, h := range hosts {
		t := &Table{
			ID:    "spread-" + h.Slug,
			Title: "Spread of the runs of each case — " + h.Title,
			Caption: fmt.Sprintf("Spread is the slowest run of a case minus its fastest, over the median; the count columns say how many cases of each preset spread wider than %s and 25%%, and the last two name the widest case.",
				percent(WideSpread, true)),
			Header: []string{"Preset", "Cases", "Runs per case", fmt.Sprintf("> %s", percent(WideSpread, true)), "> 25%", "Widest case", "Its spread"},
		}
		throttled := slices.ContainsFunc(h.Runs, func(r *Run) bool { return r.Has(ThrottledUnit) })
		if throttled {
			t.Header = append(t.Header, "Throttled samples discarded", "Throttled kept")
			t.Caption += " The throttled columns count the samples taken below the GPU's clock limit, over every case of the preset: discarded and taken again, or kept where the guard gave up; a dash marks a run that does not record them."
		}
		for _, r := range h.Runs {
			var wide, wider, most int
			var worst *Sample
			var worstSpread float64
			for _, smp := range r.Samples {
				most = max(most, len(smp.Values[smp.TimeUnit()]))
				sp, ok := smp.Spread()
				if !ok {
					continue
				}
				if sp > WideSpread {
					wide++
				}
				if sp > 0.25 {
					wider++
				}
				if worst == nil || sp > worstSpread {
					worst, worstSpread = smp, sp
				}
			}
			name, spread := missing, missing
			if worst != nil {
				name = caseLabel(worst)
				spread = percent(worstSpread, true)
			}
			row := []string{r.Preset, strconv.Itoa(len(r.Samples)), strconv.Itoa(most),
				strconv.Itoa(wide), strconv.Itoa(wider), name, spread}
			if throttled {
				if d, k, ok := r.Throttled(); ok {
					row = append(row, strconv.Itoa(d), strconv.Itoa(k))
				} else {
					row = append(row, missing, missing)
				}
			}
			t.Rows = append(t.Rows, row)
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// caseLabel names a case by the keys that tell it apart in most presets:
// variant, tunables, size, filter, block, type, channels and how it was timed.
func caseLabel(s *Sample) string {
	k := s.Keys
	parts := []string{k["variant"]}
	if t := k["tune"]; t != "" && t != "default" && t != "none" {
		parts = append(parts, t)
	}
	parts = append(parts, k["size"], k["filter"])
	if b := k["block"]; b != "" && b != "default" && b != "none" {
		parts = append(parts, "block "+b)
	}
	parts = append(parts, k["type"])
	if c := k["ch"]; c != "" && c != "1" {
		parts = append(parts, "ch "+c)
	}
	return strings.Join(append(parts, timingLabel(s)), " ")
}

// ---- launch overhead: host launches vs CUDA graphs ----

// launchSizes are preset launch-overhead's image sizes.
var launchSizes = []string{"64x64", "128x128", "256x256", "512x512", "1024x1024", "2048x2048", "4096x4096"}

// sectionLaunch sets, per GPU, the kernel time from one host launch per
// run (timing=kernel, as every report timed) beside the time of the same
// runs replayed from CUDA graphs (timing=kernel-graph), both from the one
// launch-overhead run, so that their ratio is taken within one run.
func sectionLaunch(hosts []*Host) *Section {
	s := &Section{Report: "launch-overhead", Title: "Launch overhead: one host launch per run vs CUDA-graph replay"}
	plot := &Plot{ID: "launch-overhead", Title: "Gaussian 3x3, 16x16 blocks, gpu-naive: kernel time vs image size",
		XLabel: "image size (pixels, log)", YLabel: "time (ms)", X: launchSizes, XValue: pixels(launchSizes), LogX: true, LogY: true}
	for _, h := range hosts {
		run := h.run("launch-overhead")
		if run == nil {
			continue
		}
		t := &Table{ID: "launch-overhead-" + h.Slug, Title: "Host launches vs graph replay — " + h.Title,
			Caption: "Kernel time per run (ms, median ± the half-width of its confidence interval) with one host launch per run (`timing=kernel`, how every report timed) and with the runs replayed from CUDA graphs of 64 (`timing=kernel-graph`), from one run of preset `launch-overhead`. The ratio is what the host launches add to each run: where the first column stays level across image sizes while the second grows, it is the host's launch interval, not the kernel, and its runs spread the way the host's scheduling does. The ratio is \"~\" where the runs of the two timings do not differ significantly (Mann-Whitney U, p > 0.05).",
			Header:  []string{"Variant", "Size", "Filter", "Host launches (ms)", "Graph replay (ms)", "Launches / graph"}}
		type kernel struct{ variant, size, filter string }
		var ks []kernel
		for _, v := range []string{"gpu-naive", "gpu-const", "gpu-shared"} { // report 000's V1, V1c, V2
			for _, sz := range launchSizes {
				ks = append(ks, kernel{v, sz, "gauss3"})
			}
		}
		ks = append(ks, kernel{"gpu-sobel", "1024x1024", "sobel-mag"}, kernel{"gpu-rgb2yuv", "1024x1024", "rgb2yuv"})
		var naiveStream, naiveGraph []float64
		for _, k := range ks {
			q := Q{"variant": k.variant, "size": k.size, "filter": k.filter, "cache": "hot", "opts": "default", "tune": "default"}
			st := run.Measure(q.with("timing", "kernel"))
			gr := run.Measure(q.with("timing", "kernel-graph"))
			if !st.OK() && !gr.OK() {
				continue
			}
			if k.variant == "gpu-naive" {
				naiveStream, naiveGraph = append(naiveStream, st.Center()/1e6), append(naiveGraph, gr.Center()/1e6)
			}
			t.Rows = append(t.Rows, []string{k.variant, k.size, k.filter, msCI(st), msCI(gr), ratioCell(st, gr)})
		}
		s.Tables = append(s.Tables, t)
		if h.GPU {
			plot.Series = append(plot.Series, Series{Name: h.Title + " host launches", Variant: "host launches", Source: h.Title, Y: naiveStream},
				Series{Name: h.Title + " graph replay", Variant: "graph replay", Source: h.Title, Y: naiveGraph})
		}
	}
	if len(s.Tables) > 0 {
		s.Plots = []*Plot{plot}
	}
	return s
}

// ---- tuning gpu-tiled ----

// sectionTuningTiled reads preset tuning-tiled: per GPU, image size and
// filter, gpu-tiled's best time for each ry over the block shapes, the
// best configuration against the default one (tiling.DefaultRY's ry, 32x8
// blocks), and gpu-shared beside it, all replayed from CUDA graphs in one
// run.
func sectionTuningTiled(hosts []*Host) *Section {
	s := &Section{Report: "tuning-tiled", Title: "Tuning gpu-tiled: outputs per thread and block shape"}
	rys := []string{"ry=1", "ry=2", "ry=4", "ry=8"}
	for _, h := range hosts {
		run := h.run("tuning-tiled")
		if run == nil {
			continue
		}
		t := &Table{ID: "tuning-tiled-" + h.Slug, Title: "gpu-tiled by outputs per thread and block — " + h.Title,
			Caption: "Kernel time (ms, median ± the half-width of its confidence interval, `timing=kernel-graph`) from one run of preset `tuning-tiled`; a ratio is \"~\" where the runs of the two do not differ significantly (Mann-Whitney U, p > 0.05). Each ry column is its best over the blocks 32x4, 32x8, 64x4, 32x16 and 16x16; \"default\" is what gpu-tiled now picks with no tunable set: 32x8 blocks and the ry of tiling.DefaultRY for the image, filter and this GPU's SMs.",
			Header:  []string{"Size", "Filter", "ry=1", "ry=2", "ry=4", "ry=8", "Best", "Default", "Default / best", "gpu-shared", "gpu-shared / best"}}
		sizes, filters := []string{}, []string{}
		for _, smp := range run.Samples {
			if !slices.Contains(sizes, smp.Keys["size"]) {
				sizes = append(sizes, smp.Keys["size"])
			}
			if !slices.Contains(filters, smp.Keys["filter"]) {
				filters = append(filters, smp.Keys["filter"])
			}
		}
		slices.SortFunc(sizes, compareSizes)
		slices.SortFunc(filters, naturalCompare)
		for _, sz := range sizes {
			for _, f := range filters {
				q := Q{"size": sz, "filter": f, "timing": "kernel-graph", "cache": "hot", "opts": "default"}
				row := []string{sz, f}
				for _, ry := range rys {
					row = append(row, msCI(timeOf(fastestSample(run.Find(q.with("variant", "gpu-tiled", "tune", ry))))))
				}
				bestSmp := fastestSample(run.Find(q.with("variant", "gpu-tiled")))
				best, bestName := timeOf(bestSmp), missing
				if bestSmp != nil {
					bestName = bestSmp.Keys["tune"] + " " + bestSmp.Keys["block"]
				}
				defTune := "ry=" + strconv.Itoa(tiledDefaultRY(sz, f, run.Config["gpu-sms"]))
				def := run.Measure(q.with("variant", "gpu-tiled", "tune", defTune, "block", "32x8"))
				shared := run.Measure(q.with("variant", "gpu-shared", "tune", "default"))
				if !best.OK() && !shared.OK() {
					continue
				}
				row = append(row, bestName+" "+msCI(best), msCI(def), ratioCell(def, best), msCI(shared), ratioCell(shared, best))
				t.Rows = append(t.Rows, row)
			}
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// tiledDefaultRY is gpu-tiled's default ry (tiling.DefaultRY) for
// a one-channel float image of size over the filter spec, in 32x8 blocks
// on a GPU of sms SMs, or 0 when one of them does not parse.
func tiledDefaultRY(size, spec, sms string) int {
	f, err := convolve.ParseFilter(spec)
	w, h, ok := parseSize(size)
	n, serr := strconv.Atoi(sms)
	if err != nil || !ok || serr != nil {
		return 0
	}
	p := convolve.Problem{Op: convolve.Filter2D, Filter: f,
		Input: convolve.Geometry{Width: w, Height: h, Channels: 1, Type: convolve.Float32}}
	return tiling.DefaultRY(p, convolve.Block{X: 32, Y: 8}, n)
}

// ---- roofline ----

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
	type point struct {
		spec string
		ai   float64
		tp   convolve.Throughput
	}
	type hostData struct {
		h        *Host
		run      *Run
		bw, peak float64
		variants []string
	}
	var hs []hostData
	var pts []point
	for _, h := range hosts {
		run := rooflineRun(h)
		if run == nil {
			continue
		}
		bw, err1 := strconv.ParseFloat(run.Config["gpu-copy-gbps"], 64)
		peak, err2 := strconv.ParseFloat(run.Config["gpu-peak-gflops"], 64)
		if err1 != nil || err2 != nil || bw <= 0 || peak <= 0 {
			continue
		}
		hd := hostData{h: h, run: run, bw: bw, peak: peak}
		for _, smp := range rooflineSamples(run) {
			if v := smp.Keys["variant"]; !slices.Contains(hd.variants, v) {
				hd.variants = append(hd.variants, v)
			}
			spec := smp.Keys["filter"]
			if slices.ContainsFunc(pts, func(p point) bool { return p.spec == spec }) {
				continue
			}
			f, err := convolve.ParseFilter(spec)
			w, ht, ok := parseSize(rooflineSize)
			if err != nil || !ok {
				continue
			}
			tp := convolve.ThroughputOf(convolve.Problem{Op: convolve.Filter2D, Filter: f,
				Input: convolve.Geometry{Width: w, Height: ht, Channels: 1, Type: convolve.Float32}})
			pts = append(pts, point{spec, tp.Flops() / float64(tp.BytesRead+tp.BytesWritten), tp})
		}
		slices.SortFunc(hd.variants, naturalCompare)
		hs = append(hs, hd)
	}
	if len(hs) == 0 {
		return s
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.ai, b.ai) })
	// X positions: every point's intensity and every GPU's ridge, so that
	// the roofs bend where they do.
	type xpos struct {
		ai    float64
		label string
		pt    int // index into pts, or -1 for a ridge
	}
	var xp []xpos
	for i, p := range pts {
		xp = append(xp, xpos{p.ai, p.spec, i})
	}
	for _, hd := range hs {
		xp = append(xp, xpos{hd.peak / hd.bw, "", -1})
	}
	slices.SortFunc(xp, func(a, b xpos) int { return cmp.Compare(a.ai, b.ai) })
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
		t := &Table{ID: "roofline-" + hd.h.Slug, Title: "Against the roofline, " + rooflineSize + " Gaussian K x K — " + hd.h.Title,
			Caption: fmt.Sprintf("Roof: the smaller of the FP32 peak (%s GFLOP/s) and the measured copy bandwidth (%s GB/s) times the intensity; a kernel that reads its input and writes its output once cannot beat it. "+
				"Each variant's GFLOP/s at its fastest block and tunables in the host's run `%s` (%s), and in brackets its share of the roof; GFLOP/s counts 2·K² FLOP an output, so a separable path, which executes fewer, can pass the FP32 roof.",
				sig(hd.peak, 3), sig(hd.bw, 3), hd.run.Preset, timingOf(rooflineSamples(hd.run))),
			Header: []string{"Filter", "FLOP/byte", "Roof (GFLOP/s)", "Bound"}}
		t.Header = append(t.Header, hd.variants...)
		roof := make([]float64, len(xp))
		for i, x := range xp {
			roof[i] = math.Min(hd.peak, x.ai*hd.bw)
		}
		ys := make([][]float64, len(hd.variants))
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
			row := []string{p.spec, sig(p.ai, 3), sig(r, 3), bound}
			any := false
			for vi, v := range hd.variants {
				best := fastest(hd.run.Find(Q{"size": rooflineSize, "filter": p.spec, "variant": v, "cache": "hot", "opts": "default"}))
				cell := missing
				if best > 0 {
					gf := p.tp.GFLOPPerSec(time.Duration(best))
					ys[vi][i] = gf
					cell = sig(gf, 3) + " (" + percent(gf/r, true) + ")"
					any = true
				}
				row = append(row, cell)
			}
			if any {
				t.Rows = append(t.Rows, row)
			}
		}
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
		plot.Series = append(plot.Series, Series{Name: shortHost(hd.h.Title) + " roof", Variant: "roof", Source: hd.h.Title, Y: roof, LineOnly: true})
		for vi, v := range hd.variants {
			sr := Series{Name: shortHost(hd.h.Title) + " " + v, Variant: v, Source: hd.h.Title, Y: ys[vi], Markers: true}
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
