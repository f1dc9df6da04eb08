package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
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
	{"total, pinned, 4 streams, 16 chunks a GPU", Q{"timing": "total", "mem": "pinned", "tune": "chunks=16,streams=4"}},
}

// allGPUs is the gpus key of a case on every GPU of a host with n GPUs.
func allGPUs(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, strconv.Itoa(i))
	}
	return strings.Join(parts, ",")
}

// sectionMultiGPU is preset 004-multigpu: scaling, goals and a timeline.
func sectionMultiGPU(hosts []*Host) *Section {
	s := &Section{Report: "004-multigpu", Title: "Report 004: row slabs over several GPUs, streams, images larger than a GPU (preset 004-multigpu)"}
	for h, run := range hostRuns(hosts, "004-multigpu") {
		n, _ := strconv.Atoi(run.Config[runfile.KeyGPUCount])
		n = max(n, 1)
		t := &Table{ID: "004-multigpu-scaling-" + h.Slug,
			Title: fmt.Sprintf("%s on row slabs: scaling over %d GPU(s) — %s", multiGPUVariant, n, h.Title),
			Caption: "Times are medians (ms). gpus=0,0 is two logical devices (executors, streams, slabs) on GPU 0; " +
				"efficiency is T1 / (N x TN) over the N GPUs of the case, with T1 the gpus=0 time of the same run; " +
				"% bound is the host-copy bound over the measured total time: the least time the copies can take (convolve.HostCopyBound: the image in at gpu-h2d-gbps and the output out at gpu-d2h-gbps, pinned, measured in the same run, the two directions overlapped but together no faster than gpu-bidir-gbps, copies both ways at once, where the run measured it; each GPU over its own link), computed here from the run's bandwidths and the case's bytes. " +
				fmt.Sprintf("This run measured gpu-h2d-gbps %s, gpu-d2h-gbps %s and gpu-bidir-gbps %s.", OrMissing(run.Config[runfile.KeyGPUH2DGBps]), OrMissing(run.Config[runfile.KeyGPUD2HGBps]), OrMissing(run.Config[runfile.KeyGPUBidirGBps])),
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
							num(metricOf(logical, "scaling-eff")), num(copyBoundPercent(run, one, 1))}
						if n > 1 {
							all := h.Sample(q.with("gpus", allGPUs(n)))
							row = append(row, msCI(timeOf(all)), num(metricOf(all, "scaling-eff")), num(copyBoundPercent(run, all, n)))
						}
						t.Rows = append(t.Rows, row)
					}
				}
			}
		}
		if len(t.Rows) > 0 {
			if over := overBound(h, n); over != "" {
				t.Caption += " Above 100% (" + over + "), the run overlapped its copies both ways faster than the gpu-bidir-gbps it measured: that measurement, not the pipeline, falls short there, and the bound is the one-way times'."
			}
			s.Tables = append(s.Tables, t)
		}
		s.add(multiGPUGoals(h, run, n))
		if len(run.Timeline) > 0 {
			c := run.Timeline[0].Case
			spans := slices.DeleteFunc(slices.Clone(run.Timeline), func(sp runfile.Span) bool { return sp.Case != c })
			s.Timelines = append(s.Timelines, &Timeline{ID: "004-multigpu-timeline-" + h.Slug,
				Title: "One overlapped run, " + h.Title + ": " + shortCase(c), Spans: spans})
		}
	}
	return s
}

// Goals of preset 004-multigpu on every GPU of a host.
const (
	residentEffGoal  = 0.9
	oneShotBoundGoal = 90.0
)

// multiGPUGoals is h's goal table on its n GPUs; nil with fewer than two.
func multiGPUGoals(h *Host, run *Run, n int) *Table {
	if n < 2 {
		return nil
	}
	all := allGPUs(n)
	t := &Table{ID: "004-multigpu-goals-" + h.Slug, Title: "Goals on every GPU — " + h.Title,
		Caption: fmt.Sprintf("Resident filtering of 32768x32768 f32 with Gaussian 21 at a scaling efficiency of at least %s, and the one-shot pipeline (pinned, 4 streams) within 10%% of the host-copy bound (at least %s%% of it), on gpus=%s.", Sig(residentEffGoal, 2), Sig(oneShotBoundGoal, 2), all),
		Header:  []string{"goal", "size", "type", "filter", "measured", "met"}}
	base := Q{"variant": multiGPUVariant, "size": "32768x32768", "gpus": all}
	res := h.Sample(base.with("type", "f32", "filter", "gauss21", "timing", "kernel"))
	if eff, ok := metricOf(res, "scaling-eff"); ok {
		t.Rows = append(t.Rows, []string{"resident scaling efficiency", "32768x32768", "f32", "gauss21", Sig(eff, 3), yesNo(eff >= residentEffGoal)})
	}
	for _, typ := range []string{"f32", "u8"} {
		for _, f := range []string{"gauss5", "gauss21"} {
			for _, tune := range []string{"streams=4", "chunks=16,streams=4"} {
				smp := h.Sample(base.with("type", typ, "filter", f, "timing", "total", "mem", "pinned", "tune", tune))
				if pct, ok := copyBoundPercent(run, smp, n); ok {
					t.Rows = append(t.Rows, []string{"one-shot % of host-copy bound (" + tune + ")", "32768x32768", typ, f, Sig(pct, 3) + "%", yesNo(pct >= oneShotBoundGoal)})
				}
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// overBound names the cases of h's 004-multigpu run that beat the copy bound.
func overBound(h *Host, n int) string {
	run := h.run("004-multigpu")
	var over []string
	for _, smp := range run.Samples {
		if smp.Keys["variant"] != multiGPUVariant || smp.Keys["timing"] != "total" {
			continue
		}
		links := 1
		if g := smp.Keys["gpus"]; g == allGPUs(n) && n > 1 {
			links = n
		} else if g != "0" {
			continue
		}
		if p, ok := copyBoundPercent(run, smp, links); ok && p > 100 {
			over = append(over, fmt.Sprintf("%s %s %s gpus=%s %s: %.1f%%", smp.Keys["size"], smp.Keys["type"], smp.Keys["filter"], smp.Keys["gpus"], smp.Keys["tune"], p))
		}
	}
	return strings.Join(over, "; ")
}

// copyBoundPercent is smp's host-copy bound on links GPUs over its time, in %.
func copyBoundPercent(run *Run, smp *Sample, links int) (float64, bool) {
	if smp == nil || smp.Keys["timing"] != "total" {
		return 0, false
	}
	w, h, ok := parseSize(smp.Keys["size"])
	typ, err := convolve.ParseElemType(smp.Keys["type"])
	ch, errCh := strconv.Atoi(smp.Keys["ch"])
	h2d, err1 := strconv.ParseFloat(run.Config[runfile.KeyGPUH2DGBps], 64)
	d2h, err2 := strconv.ParseFloat(run.Config[runfile.KeyGPUD2HGBps], 64)
	both, _ := strconv.ParseFloat(run.Config[runfile.KeyGPUBidirGBps], 64) // absent in older runs: 0, not used
	t := timeOf(smp)
	if !ok || err != nil || errCh != nil || err1 != nil || err2 != nil || !t.OK() || t.Center() <= 0 {
		return 0, false
	}
	in := convolve.Geometry{Width: w, Height: h, Channels: ch, Type: typ}
	out := convolve.Problem{Op: convolve.Filter2D, Input: in}.OutputGeometry()
	bound := convolve.HostCopyBound(int64(in.Len())*int64(typ.Size()), int64(out.Len())*int64(out.Type.Size()), links, h2d, d2h, both)
	if bound <= 0 {
		return 0, false
	}
	return convolve.PercentOf(float64(bound.Nanoseconds()), t.Center()), true
}

// metricOf is the median of unit in smp, false where smp is nil or lacks it.
func metricOf(smp *Sample, unit string) (float64, bool) {
	if smp == nil {
		return 0, false
	}
	return smp.Median(unit)
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
