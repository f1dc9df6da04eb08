package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/convbench/convbench/runfile"
)

// acrossPresets are the presets whose runs are set side by side across GPUs.
var acrossPresets = []string{"roofline", "crossover"}

// acrossRun is one GPU host's run of a preset and its cases (readCrossover).
type acrossRun struct {
	host  *Host
	run   *Run
	cases []crossoverCase
}

// find returns the run's case of size, family and K, and whether it has it.
func (r acrossRun) find(size, family string, k int) (crossoverCase, bool) {
	for _, c := range r.cases {
		if c.size == size && c.family == family && c.k == k {
			return c, true
		}
	}
	return crossoverCase{}, false
}

// acrossRuns returns the GPU hosts' runs of preset that hold a case.
func acrossRuns(hosts []*Host, preset string) []acrossRun {
	var out []acrossRun
	for h, run := range gpuRuns(hosts, func(h *Host) *Run { return h.run(preset) }) {
		if cases := readCrossover(run); len(cases) > 0 {
			out = append(out, acrossRun{host: h, run: run, cases: cases})
		}
	}
	return out
}

// sectionAcrossGPUs sets each acrossPresets run side by side across GPUs.
func sectionAcrossGPUs(hosts []*Host) *Section {
	s := &Section{Report: strings.Join(acrossPresets, "` or `"), Title: "Across GPUs: the same cases on each GPU"}
	for _, preset := range acrossPresets {
		runs := acrossRuns(hosts, preset)
		if len(runs) < 2 {
			continue
		}
		s.Tables = append(s.Tables, acrossSummary(preset, runs), acrossBest(preset, runs))
	}
	return s
}

// acrossWhich names each run of runs with its GPU and commit.
func acrossWhich(runs []acrossRun) string {
	var parts []string
	for _, r := range runs {
		parts = append(parts, r.host.Title+r.run.at())
	}
	return strings.Join(parts, ", ")
}

// acrossSummary compares every (case, variant) pair of later runs with the first's.
func acrossSummary(preset string, runs []acrossRun) *Table {
	base := runs[0]
	t := &Table{ID: "across-" + preset + "-summary", Title: fmt.Sprintf("Preset %s: every variant and case against %s", preset, base.host.Title),
		Caption: fmt.Sprintf("From the runs of preset `%s` (its own axes): %s. Every variant's kernel time (`gpu-ns/op`, f32, one channel, zero border, hot cache, graph replay, each variant at its fastest block) and energy a run (`mJ/op`, where both lines record it) on each case both runs hold, the later GPU's over the first's. "+
			"A difference is called where the Mann-Whitney U test of the two runs' lines gives p ≤ 0.05, as benchstat calls it (`make compare OLD=... NEW=...` prints every pair); it takes 4 lines a case on each side to reach that at all.",
			preset, acrossWhich(runs)),
		Header: []string{"GPU", "Measure", "Pairs in both", "Lower on it", "Higher on it", "No significant difference", "Geomean over " + base.host.Title + "'s"}, Keys: 2}
	for _, other := range runs[1:] {
		for _, m := range []struct {
			what string
			of   func(crossoverCase) map[string]Measure
		}{{"kernel time", func(c crossoverCase) map[string]Measure { return c.times }}, {"energy a run", func(c crossoverCase) map[string]Measure { return c.energy }}} {
			var tl runfile.Tally
			for _, c := range base.cases {
				if oc, ok := other.find(c.size, c.family, c.k); ok {
					for v, bm := range m.of(c) {
						if om, ok := m.of(oc)[v]; ok {
							if _, significant, ok := ratio(om, bm); ok {
								tl.Add(bm.Center(), om.Center(), significant)
							}
						}
					}
				}
			}
			if tl.Pairs > 0 {
				t.Rows = append(t.Rows, []string{other.host.Title, m.what, strconv.Itoa(tl.Pairs), strconv.Itoa(tl.Lower), strconv.Itoa(tl.Higher), strconv.Itoa(tl.Same), Sig(tl.Geomean(), 3) + "×"})
			}
		}
	}
	return t
}

// acrossBest times the first run's fastest accurate path of each case on every run.
func acrossBest(preset string, runs []acrossRun) *Table {
	base := runs[0]
	looser := looserPaths(base.run)
	t := &Table{ID: "across-" + preset + "-best", Title: fmt.Sprintf("Preset %s: our fastest float32-accurate path of each case on each GPU", preset),
		Caption: fmt.Sprintf("From the runs of preset `%s`: %s. Per case the fastest of our paths (`gpu-*`, `gpu-fft` among them, no auto variant) held to float32's error model (not `gpu-tc-bf16` or `gpu-tc-tf32`) on %s, its kernel time on each GPU (ms ± the half-width of the %.0f%% confidence interval of the median, ±∞ under five lines), and each later GPU's time over the first's, or ~ where the two do not differ significantly (p ≤ 0.05).",
			preset, acrossWhich(runs), base.host.Title, 100*runfile.Confidence),
		Header: []string{"Filter", "Size", "K", "Path"}, Keys: 4}
	for _, r := range runs {
		t.Header = append(t.Header, r.host.Title+" (ms)")
	}
	for _, r := range runs[1:] {
		t.Header = append(t.Header, r.host.Title+" / "+base.host.Title)
	}
	for _, c := range base.cases {
		paths := c.ranked(func(v string) bool { return isPath(v) && !isAuto(v) && !looser[v] })
		if len(paths) == 0 {
			continue
		}
		best := paths[0]
		row := []string{c.family, c.size, strconv.Itoa(c.k), best}
		var ms []Measure
		for _, r := range runs {
			var m Measure
			if rc, ok := r.find(c.size, c.family, c.k); ok {
				m = rc.times[best]
			}
			ms = append(ms, m)
			row = append(row, msCI(m))
		}
		for _, m := range ms[1:] {
			row = append(row, ratioCell(m, ms[0]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
