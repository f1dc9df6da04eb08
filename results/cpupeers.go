package results

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/convbench/convbench/runfile"
)

// cpuPeersTypes are the element types of preset cpu-peers.
var cpuPeersTypes = []string{"f32", "u8", "i16"}

// noPublished is the OpenCV cell of a row OpenCVPeers has no figure for.
const noPublished = "none published"

// cpuCeilings are the CPU limits a cpu-peers run measured, NaN where it lacks one.
type cpuCeilings struct {
	copyGBps, scalarGFLOPs, fmaGFLOPs float64
}

func ceilingsOf(run *Run) cpuCeilings {
	c, _ := positiveConfig(run, runfile.KeyCPUCopyGBps)
	s, _ := positiveConfig(run, runfile.KeyCPUScalar)
	f, _ := positiveConfig(run, runfile.KeyCPUFMA)
	return cpuCeilings{c, s, f}
}

// cpuPeerSample is the run's cpu-fast sample of case p in type typ.
func cpuPeerSample(run *Run, p OpenCVPeer, typ string) *Sample {
	return run.Sample(cpuQ("cpu-fast").with("size", openCVPeersSize, "filter", p.Filter, "type", typ, "ch", "1"))
}

// sectionCPUPeers sets cpu-fast's times beside OpenCV's quoted ones.
func sectionCPUPeers(hosts []*Host) *Section {
	s := &Section{Report: "cpu-peers", Title: "CPU peers: cpu-fast beside OpenCV's quoted filter2D and sepFilter2D times"}
	for h, run := range hostRuns(hosts, "cpu-peers") {
		c := ceilingsOf(run)
		ceil := fmt.Sprintf("Measured in the same run: copy %s GB/s, vector FMA peak %s GFLOP/s, scalar multiply-add rate %s GFLOP/s.",
			num(c.copyGBps, true), num(c.fmaGFLOPs, true), num(c.scalarGFLOPs, true))
		// The ID does not end in the host's slug, so that a host without
		// a GPU keeps the dash columns: the table holds CPU cases alone.
		t := &Table{ID: "cpu-peers-" + h.Slug + "-opencv", Title: "cpu-fast vs OpenCV, " + openCVPeersSize + ", one channel, zero border — " + h.Title,
			Caption: "cpu-fast: median of the runs ± its 95% interval, from the host's `cpu-peers` run; OpenCV: quoted from " + openCVPeersSource +
				". OpenCV is quoted for f32 input only: the u8 and i16 rows have no published figure and no ratio. Below 1× cpu-fast is faster. " +
				"GB/s counts the input read and the output written once; % of copy is that over the run's measured copy bandwidth. " +
				"GFLOP/s counts the operations cpu-fast executed (two per multiply-add it summed): a dense K×K filter's 2·K² an output, but a separable Gaussian's two passes of K taps, about 4·K an output, not the 2·K² of a direct filter, which would overstate its rate K/2 times; % of FMA peak is that over the run's measured vector FMA peak. " +
				"cpu-fast rounds each product before adding it (the reference's order), two instructions per multiply-add, so half the FMA peak is the most its loops can reach. " + ceil,
			Header: []string{"Case", "Type", "cpu-fast (ms)", "OpenCV (ms)", "cpu-fast / OpenCV", "GB/s", "% of copy", "GFLOP/s (executed)", "% of FMA peak"},
			Keys:   2}
		for _, typ := range cpuPeersTypes {
			for _, p := range openCVPeers {
				smp := cpuPeerSample(run, p, typ)
				tm := timeOf(smp)
				pub, ratio := noPublished, missing
				if typ == "f32" {
					pub, ratio = pubMS(p.MS), xCell(speedup(tm.Center(), p.MS*1e6))
				}
				gb := median(smp, "GB/s")
				pctCopy := median(smp, "%copy-bw") / 100
				if math.IsNaN(pctCopy) {
					pctCopy = gb / c.copyGBps // a run from before the metric
				}
				ex := median(smp, "exec-GFLOP/s")
				t.Rows = append(t.Rows, []string{p.Case, typ, msCI(tm), pub, ratio,
					num(gb, true), percent(pctCopy, true), num(ex, true), percent(median(smp, "%peak-fma")/100, true)})
			}
		}
		s.add(t, openCVHereTable(h, run))
	}
	pub := &Table{ID: "cpu-peers-published", Title: "Quoted: OpenCV, " + openCVPeersSize + " f32, zero border",
		Caption: "Source: " + openCVPeersSource + ". No figure is quoted for u8 or i16 input.",
		Header:  []string{"Case", "OpenCV call", "Time (ms)"}}
	for _, p := range openCVPeers {
		pub.Rows = append(pub.Rows, []string{p.Case, p.Function, pubMS(p.MS)})
	}
	s.Tables = append(s.Tables, pub)
	return s
}

// median is the median of smp's values of unit, or NaN.
func median(smp *Sample, unit string) float64 { return val(metricOf(smp, unit)) }

// positiveConfig is the run's value of key as a positive number, else NaN and false.
func positiveConfig(run *Run, key string) (v float64, ok bool) {
	v, err := strconv.ParseFloat(run.Config[key], 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return nan(), false
	}
	return v, true
}

// openCVHereTable sets cpu-fast beside OpenCV measured on the host, or nil.
func openCVHereTable(h *Host, run *Run) *Table {
	o, err := readOpenCVHere(run)
	if o == nil && err == nil {
		return nil
	}
	t := &Table{ID: "cpu-peers-" + h.Slug + "-opencv-here", Title: "cpu-fast vs OpenCV measured on this host, " + openCVPeersSize + ", one channel, zero border — " + h.Title,
		Header: []string{"Case", "Type", "OpenCV call", "cpu-fast (ms)", "OpenCV here (ms)", "cpu-fast / OpenCV here"},
		Keys:   2}
	if err != nil {
		t.Caption = "The OpenCV times of this host could not be read: " + err.Error()
		return t
	}
	t.Caption = fmt.Sprintf("OpenCV %s with %s threads, measured by scripts/opencv-peers.py on this host (%s, %s); its median over the timed calls. "+
		"cpu-fast: the host's cpu-peers run, median ± its 95%% interval. Below 1× cpu-fast is faster. Both write float32 output with a zero border; "+
		"OpenCV's filter2D takes its own DFT path for large kernels.",
		cmp.Or(o.config["opencv-version"], "?"), cmp.Or(o.config["opencv-threads"], "?"), filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(filepath.Dir(o.path))), openCVHereFile)), cmp.Or(o.config["date"], "undated"))
	for _, typ := range cpuPeersTypes {
		for _, p := range openCVPeers {
			tm := timeOf(cpuPeerSample(run, p, typ))
			ms := o.ms(p.Filter, typ)
			here, ratio := missing, missing
			if !math.IsNaN(ms) {
				here, ratio = Sig(ms, 3), xCell(speedup(tm.Center(), ms*1e6))
			}
			t.Rows = append(t.Rows, []string{p.Case, typ, p.Function, msCI(tm), here, ratio})
		}
	}
	return t
}
