package results

func section003(hosts []*Host) *Section {
	s := &Section{Report: "003", Title: "Report 003: RGB channel strategies (int16 planar)"}
	ks, sizes := axis003(report003KernelSize), axis003(report003ImageSize)
	plot := &Plot{ID: "003-filter-size", Title: "1000x1000 RGB int16: total time vs box filter size",
		XLabel: "filter size K", YLabel: "total time (ms)", X: ks, XValue: numbers(ks), LogY: true}
	for _, h := range withReport(hosts, "003") {
		t, series := table003(h, "003-filter-size-"+h.Slug, "1000x1000 RGB int16 planar, box K — "+h.Title, "K", ks,
			func(k string) Q { return Q{"size": "1000x1000", "filter": "box" + k} })
		s.Tables = append(s.Tables, t)
		if h.GPU {
			for si, i := range ours003() {
				plot.Series = append(plot.Series, hostSeries(h, report003Variants[i], series[1+2*si]))
			}
		}
		t2, _ := table003(h, "003-image-size-"+h.Slug, "Box 11x11 RGB int16 planar vs image size — "+h.Title, "Size", sizes,
			func(sz string) Q { return Q{"size": sz, "filter": "box11"} })
		s.Tables = append(s.Tables, t2)
	}
	s.Tables = append(s.Tables,
		published003("003-published-filter-size", "table 1 (1000x1000)", "K", report003KernelSize),
		published003("003-published-image-size", "table 3 (box 11x11)", "Size", report003ImageSize))
	for i, m := range report003Methods[:5] {
		var ys []float64
		for _, r := range report003KernelSize {
			ys = append(ys, r.Times[i])
		}
		v := report003Variants[i]
		if v == "" {
			v = m
		}
		plot.Series = append(plot.Series, publishedSeries(m, v, report003GPU, ys))
	}
	s.Plots = []*Plot{plot}
	return s
}

// query003 is v's RGB int16 case q by timing.
func query003(v, timing string, q Q) Q {
	q = q.with("variant", v, "type", "i16", "ch", "3", "layout", "planar")
	switch timing {
	case "cpu":
		return q.with("timing", "cpu")
	case "total":
		return q.with("timing", "total", "mem", "pageable")
	}
	return q.with("timing", "kernel", "cache", "hot")
}

// ours003 are the indices of the GPU methods we have a variant for.
func ours003() []int {
	var ours []int
	for i, v := range report003Variants[:5] {
		if v != "" {
			ours = append(ours, i)
		}
	}
	return ours
}

// table003 is h's table of cpu-naive and ours003 along axis, and each
// column's ms: cpu-naive's, then each of ours003's total and kernel.
func table003(h *Host, id, title, axisName string, axis []string, q func(a string) Q) (*Table, [][]float64) {
	t := &Table{ID: id, Title: title, Header: []string{axisName, "Seq = cpu-naive (ms)"},
		Caption: "Total is upload, kernel and download from pageable memory. gpu-ch-loop's kernel time includes its per-channel " +
			"uploads and downloads from pinned memory, as report 003 timed that strategy, so it is not a kernel time like the others."}
	cols := [][2]string{{"cpu-naive", "cpu"}}
	for _, i := range ours003() {
		t.Header = append(t.Header, report003Methods[i]+" = "+report003Variants[i]+" total (ms)", "kernel (ms)")
		cols = append(cols, [2]string{report003Variants[i], "total"}, [2]string{report003Variants[i], "kernel"})
	}
	return t, sweepTable(h, t, axis, len(cols), func(a string, c int) Q { return query003(cols[c][0], cols[c][1], q(a)) })
}

// axis003 is the first column of rows: the filter or image sizes.
func axis003(rows []report003Row) []string {
	return mapCells(rows, func(r report003Row) string { return r.Axis })
}

// published003 is a table report 003 published.
func published003(id, table, axisName string, rows []report003Row) *Table {
	t := &Table{ID: id, Title: "Published by report 003 — " + report003GPU + ", " + table,
		Caption: "Average times in ms as printed by the report (" + report003GPU + ").",
		Header:  append([]string{axisName}, report003Methods...)}
	for _, r := range rows {
		t.Rows = append(t.Rows, append([]string{r.Axis}, mapCells(r.Times, pubMS)...))
	}
	return t
}
