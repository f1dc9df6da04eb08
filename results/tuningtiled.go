package results

import (
	"strconv"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/tiling"
	"github.com/convbench/convbench/runfile"
)

// sectionTuningTiled sets gpu-tiled's best time per ry against its default.
func sectionTuningTiled(hosts []*Host) *Section {
	s := &Section{Report: "tuning-tiled", Title: "Tuning gpu-tiled: outputs per thread and block shape"}
	rys := []string{"ry=1", "ry=2", "ry=4", "ry=8"}
	for h, run := range hostRuns(hosts, "tuning-tiled") {
		t := &Table{ID: "tuning-tiled-" + h.Slug, Title: "gpu-tiled by outputs per thread and block — " + h.Title,
			Caption: "Kernel time (ms, median ± the half-width of its confidence interval, `timing=kernel-graph`) from one run of preset `tuning-tiled`; a ratio is \"~\" where the runs of the two do not differ significantly (Mann-Whitney U, p > 0.05). Each ry column is its best over the blocks 32x4, 32x8, 64x4, 32x16 and 16x16; \"default\" is what gpu-tiled now picks with no tunable set: 32x8 blocks and the ry of tiling.DefaultRY for the image, filter and this GPU's SMs.",
			Header:  []string{"Size", "Filter", "ry=1", "ry=2", "ry=4", "ry=8", "Best", "Default", "Default / best", "gpu-shared", "gpu-shared / best"}}
		for _, sz := range keyValues(run.Samples, "size") {
			for _, f := range keyValues(run.Samples, "filter") {
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
				defTune := "ry=" + strconv.Itoa(tiledDefaultRY(sz, f, run.Config[runfile.KeyGPUSMs]))
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

// tiledDefaultRY is gpu-tiled's default ry in 32x8 blocks, or 0.
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
