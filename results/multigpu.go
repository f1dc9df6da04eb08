package results

import (
	"fmt"
	"strconv"
	"strings"
)

// multiGPUVariant is the variant preset 004-multigpu times.
const multiGPUVariant = "gpu-slab-gpu-regtile"

// multiGPURows are the rows of the scaling table: what each times.
var multiGPURows = []struct {
	label string
	q     Q
}{
	{"resident (kernels + halo exchange)", Q{"timing": "kernel", "mem": "none", "tune": "default"}},
	{"total, pageable, 1 stream", Q{"timing": "total", "mem": "pageable", "tune": "streams=1"}},
	{"total, pageable, 4 streams", Q{"timing": "total", "mem": "pageable", "tune": "streams=4"}},
	{"total, pinned, 1 stream", Q{"timing": "total", "mem": "pinned", "tune": "streams=1"}},
	{"total, pinned, 4 streams", Q{"timing": "total", "mem": "pinned", "tune": "streams=4"}},
}

// allGPUs is the gpus key of a case on every GPU of a host with n GPUs.
func allGPUs(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(i)
	}
	return strings.Join(parts, ",")
}

// sectionMultiGPU is preset 004-multigpu: per host a scaling table (time
// on GPU 0, on two logical devices of GPU 0 and on every GPU, with the
// scaling efficiency and the share of the host-copy bound the same run
// measured) and the timeline of its one overlapped run.
func sectionMultiGPU(hosts []*Host) *Section {
	s := &Section{Report: "004-multigpu", Title: "Report 004: row slabs over several GPUs, streams, images larger than a GPU (preset 004-multigpu)"}
	for _, h := range hosts {
		run := h.run("004-multigpu")
		if run == nil {
			continue
		}
		n, _ := strconv.Atoi(run.Config["gpu-count"])
		n = max(n, 1)
		t := &Table{ID: "004-multigpu-scaling-" + h.Slug,
			Title: fmt.Sprintf("%s on row slabs: scaling over %d GPU(s) — %s", multiGPUVariant, n, h.Title),
			Caption: "Times are medians (ms). gpus=0,0 is two logical devices (executors, streams, slabs) on GPU 0; " +
				"efficiency is T1 / (N x TN) over the N GPUs of the case, with T1 the gpus=0 time of the same run; " +
				"% bound is the host-copy bound (the image in at gpu-h2d-gbps and the output out at gpu-d2h-gbps, pinned, measured in the same run, shared by the GPUs' links) over the measured total time. " +
				fmt.Sprintf("This run measured gpu-h2d-gbps %s and gpu-d2h-gbps %s.", orMissing(run.Config["gpu-h2d-gbps"]), orMissing(run.Config["gpu-d2h-gbps"])),
			Header: []string{"size", "type", "filter", "what", "gpus=0", "gpus=0,0", "efficiency 0,0", "% bound (0)"}}
		if n > 1 {
			t.Header = append(t.Header, "gpus="+allGPUs(n), "efficiency", "% bound")
		}
		for _, size := range []string{"8192x8192", "32768x32768"} {
			for _, typ := range []string{"f32", "u8"} {
				for _, f := range []string{"gauss5", "gauss21"} {
					for _, r := range multiGPURows {
						q := r.q.with("variant", multiGPUVariant, "size", size, "type", typ, "filter", f)
						one := h.Sample(q.with("gpus", "0"))
						if one == nil {
							continue
						}
						logical := h.Sample(q.with("gpus", "0,0"))
						row := []string{size, typ, f, r.label, msCI(timeOf(one)), msCI(timeOf(logical)),
							num(metricOf(logical, "scaling-eff")), num(metricOf(one, "%copy-bound"))}
						if n > 1 {
							all := h.Sample(q.with("gpus", allGPUs(n)))
							row = append(row, msCI(timeOf(all)), num(metricOf(all, "scaling-eff")), num(metricOf(all, "%copy-bound")))
						}
						t.Rows = append(t.Rows, row)
					}
				}
			}
		}
		if len(t.Rows) > 0 {
			s.Tables = append(s.Tables, t)
		}
		if len(run.Timeline) > 0 {
			c := run.Timeline[0].Case
			var spans []Span
			for _, sp := range run.Timeline {
				if sp.Case == c {
					spans = append(spans, sp)
				}
			}
			s.Timelines = append(s.Timelines, &Timeline{ID: "004-multigpu-timeline-" + h.Slug,
				Title: "One overlapped run, " + h.Title + ": " + shortCase(c), Spans: spans})
		}
	}
	return s
}

// metricOf is the median of unit in smp, false when smp is nil or lacks
// it.
func metricOf(smp *Sample, unit string) (float64, bool) {
	if smp == nil {
		return 0, false
	}
	return smp.Median(unit)
}

func orMissing(s string) string {
	if s == "" {
		return missing
	}
	return s
}

// shortCase is a case name with its keys of default values left out.
func shortCase(name string) string {
	var parts []string
	for _, p := range strings.Split(name, "/") {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "variant", "size", "filter", "type", "mem", "tune", "gpus":
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
