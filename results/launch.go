package results

// launchSizes are preset launch-overhead's image sizes.
var launchSizes = []string{"64x64", "128x128", "256x256", "512x512", "1024x1024", "2048x2048", "4096x4096"}

// sectionLaunch sets host launches per run beside CUDA-graph replay.
func sectionLaunch(hosts []*Host) *Section {
	s := &Section{Report: "launch-overhead", Title: "Launch overhead: one host launch per run vs CUDA-graph replay"}
	plot := &Plot{ID: "launch-overhead", Title: "Gaussian 3x3, 16x16 blocks, gpu-naive: kernel time vs image size",
		XLabel: "image size (pixels, log)", YLabel: "time (ms)", X: launchSizes, XValue: pixels(launchSizes), LogX: true, LogY: true}
	for h, run := range hostRuns(hosts, "launch-overhead") {
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
