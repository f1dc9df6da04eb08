package results

import (
	"fmt"
	"math"
	"strconv"
)

// sectionCPUPeers sets, per host with a cpu-peers run, cpu-fast's time on
// each case of OpenCVPeers beside OpenCV's quoted time, and, where the
// run measured the CPU's ceilings (cpu-copy-gbps, cpu-scalar-gflops),
// cpu-fast's GB/s as a share of the copy bandwidth and its GFLOP/s over
// the scalar multiply-add rate; a dash marks a run without them. The
// section ends with the quoted figures and their source.
func sectionCPUPeers(hosts []*Host) *Section {
	s := &Section{Report: "cpu-peers", Title: "CPU peers: cpu-fast beside OpenCV's quoted filter2D and sepFilter2D times"}
	for _, h := range hosts {
		run := h.run("cpu-peers")
		if run == nil {
			continue
		}
		copyGBps, okCopy := positiveConfig(run, "cpu-copy-gbps")
		scalar, okScalar := positiveConfig(run, "cpu-scalar-gflops")
		ceil := "The run predates the measured CPU ceilings (cpu-copy-gbps, cpu-scalar-gflops): their columns are dashes."
		if run.Config["cpu-copy-gbps"] != "" || run.Config["cpu-scalar-gflops"] != "" {
			ceil = fmt.Sprintf("Measured in the same run: copy %s GB/s, scalar multiply-add rate %s GFLOP/s; cpu-fast's AVX passes can exceed the scalar rate.",
				num(copyGBps, okCopy), num(scalar, okScalar))
		}
		// The ID does not end in the host's slug, so that a host without
		// a GPU keeps the ceiling columns when they are dashes: the table
		// holds CPU cases alone.
		t := &Table{ID: "cpu-peers-" + h.Slug + "-opencv", Title: "cpu-fast vs OpenCV, " + OpenCVPeersSize + " f32, zero border — " + h.Title,
			Caption: "cpu-fast: median of the runs ± its 95% interval, from the host's `cpu-peers` run; OpenCV: quoted from " + OpenCVPeersSource +
				". Below 1× cpu-fast is faster. GB/s counts the input read and the output written once; GFLOP/s counts the dense filter's 2·K² operations per pixel, so the separable Gaussians, which cpu-fast runs as two passes of 2·K, show K/2 times the rate the cores execute. " + ceil,
			Header: []string{"Case", "cpu-fast (ms)", "OpenCV (ms)", "cpu-fast / OpenCV", "GB/s", "% of copy", "GFLOP/s (2·K² count)", "× scalar rate"}}
		for _, p := range OpenCVPeers {
			smp := run.Sample(cpuQ("cpu-fast").with("size", OpenCVPeersSize, "filter", p.Filter, "type", "f32", "ch", "1"))
			tm := timeOf(smp)
			gb, gf := nan(), nan()
			if smp != nil {
				gb = val(smp.Median("GB/s"))
				gf = val(smp.Median("GFLOP/s"))
			}
			t.Rows = append(t.Rows, []string{p.Case, msCI(tm), pubMS(p.MS), xCell(speedup(tm.Center(), p.MS*1e6)),
				num(gb, !math.IsNaN(gb)), percent(gb/copyGBps, okCopy && !math.IsNaN(gb)),
				num(gf, !math.IsNaN(gf)), xCell(ratioOr(gf, scalar, okScalar))})
		}
		s.Tables = append(s.Tables, t)
	}
	pub := &Table{ID: "cpu-peers-published", Title: "Quoted: OpenCV, " + OpenCVPeersSize + " f32, zero border",
		Caption: "Source: " + OpenCVPeersSource + ".",
		Header:  []string{"Case", "OpenCV call", "Time (ms)"}}
	for _, p := range OpenCVPeers {
		pub.Rows = append(pub.Rows, []string{p.Case, p.Function, pubMS(p.MS)})
	}
	s.Tables = append(s.Tables, pub)
	return s
}

// positiveConfig is the run's configuration value of key as a positive
// number; ok is false when the run lacks it or it is not one.
func positiveConfig(run *Run, key string) (v float64, ok bool) {
	v, err := strconv.ParseFloat(run.Config[key], 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return nan(), false
	}
	return v, true
}

// ratioOr is a over b, or NaN when !ok or a is NaN.
func ratioOr(a, b float64, ok bool) float64 {
	if !ok || math.IsNaN(a) {
		return nan()
	}
	return a / b
}
