package results

import ()

func section003(hosts []*Host) *Section {
	s := &Section{Report: "003", Title: "Report 003: RGB channel strategies (int16 planar)"}
	var ks []string
	for _, r := range report003KernelSize {
		ks = append(ks, r.K)
	}
	var sizes []string
	for _, r := range report003ImageSize {
		sizes = append(sizes, r.Size)
	}
	plot := &Plot{ID: "003-filter-size", Title: "1000x1000 RGB int16: total time vs box filter size",
		XLabel: "filter size K", YLabel: "total time (ms)", X: ks, XValue: numbers(ks), LogY: true}
	hdr := []string{"", "Seq = cpu-naive (ms)"}
	for i, m := range report003Methods[:5] {
		if v := report003Variants[i]; v != "" {
			hdr = append(hdr, m+" = "+v+" total (ms)", "kernel (ms)")
		}
	}
	for _, h := range withReport(hosts, "003") {
		t, series := table003(h, hdr, "003-filter-size-"+h.Slug, "1000x1000 RGB int16 planar, box K — "+h.Title, "K", ks,
			func(k string) Q { return Q{"size": "1000x1000", "filter": "box" + k} })
		s.Tables = append(s.Tables, t)
		if h.GPU {
			si := 0
			for i := range report003Methods[:5] {
				if report003Variants[i] != "" {
					plot.Series = append(plot.Series, Series{Name: h.Title + " " + report003Variants[i], Variant: report003Variants[i], Source: h.Title, Y: series[si]})
					si++
				}
			}
		}
		t2, _ := table003(h, hdr, "003-image-size-"+h.Slug, "Box 11x11 RGB int16 planar vs image size — "+h.Title, "Size", sizes,
			func(sz string) Q { return Q{"size": sz, "filter": "box11"} })
		s.Tables = append(s.Tables, t2)
	}
	s.Tables = append(s.Tables, published003()...)
	for i, m := range report003Methods[:5] {
		var ys []float64
		for _, r := range report003KernelSize {
			ys = append(ys, r.Times[i])
		}
		v := report003Variants[i]
		if v == "" {
			v = m
		}
		plot.Series = append(plot.Series, Series{Name: m + " (report)", Variant: v, Source: report003GPU + " (report)", Y: ys, Dashed: true})
	}
	s.Plots = []*Plot{plot}
	return s
}

// measure003 is host h's measure of variant v on the RGB int16 planar
// case q, timed as timing says: cpu, total (pageable) or kernel (hot).
func measure003(h *Host, v, timing string, q Q) Measure {
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

// table003 is host h's table of report 003's methods along axis (named
// axisName; q is the case of each axis value), with the header hdr, and
// the total times in ms of each GPU method, a series each.
func table003(h *Host, hdr []string, id, title, axisName string, axis []string, q func(a string) Q) (*Table, [][]float64) {
	t := &Table{ID: id, Title: title, Header: append([]string{axisName}, hdr[1:]...),
		Caption: "Total is upload, kernel and download from pageable memory. gpu-ch-loop's kernel time includes its per-channel " +
			"uploads and downloads from pinned memory, as report 003 timed that strategy, so it is not a kernel time like the others."}
	var series [][]float64
	for _, a := range axis {
		row := []string{a, msCI(measure003(h, "cpu-naive", "cpu", q(a)))}
		si := 0
		for i := range report003Methods[:5] {
			v := report003Variants[i]
			if v == "" {
				continue
			}
			tot := measure003(h, v, "total", q(a))
			row = append(row, msCI(tot), msCI(measure003(h, v, "kernel", q(a))))
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

// published003 are the tables report 003 published: times against the
// filter size and against the image size.
func published003() []*Table {
	pub := func(id, title, axisName string, rows [][]string) *Table {
		return &Table{ID: id, Title: title, Caption: "Average times in ms as printed by the report (" + report003GPU + ").",
			Header: append([]string{axisName}, report003Methods...), Rows: rows}
	}
	var rows [][]string
	for _, r := range report003KernelSize {
		row := []string{r.K}
		for _, x := range r.Times {
			row = append(row, pubMS(x))
		}
		rows = append(rows, row)
	}
	filterSize := pub("003-published-filter-size", "Published by report 003 — "+report003GPU+", table 1 (1000x1000)", "K", rows)
	rows = nil
	for _, r := range report003ImageSize {
		row := []string{r.Size}
		for _, x := range r.Times {
			row = append(row, pubMS(x))
		}
		rows = append(rows, row)
	}
	return []*Table{filterSize, pub("003-published-image-size", "Published by report 003 — "+report003GPU+", table 3 (box 11x11)", "Size", rows)}
}
