package results

import "slices"

// ---- tuned against default ----

// sectionTunedVsDefault reads preset tuned-vs-default: per GPU, variant,
// image size and filter, the kernel time with the GPU's tuning table
// (cases without a tune key) against the family's defaults
// (tune=untuned), both replayed from CUDA graphs in one run.
func sectionTunedVsDefault(hosts []*Host) *Section {
	s := &Section{Report: "tuned-vs-default", Title: "Tuned against default settings"}
	for _, h := range hosts {
		run := h.run("tuned-vs-default")
		if run == nil {
			continue
		}
		t := &Table{ID: "tuned-vs-default-" + h.Slug, Title: "Tuning table against the families' defaults — " + h.Title,
			Caption: "Kernel time (ms, median ± the half-width of its confidence interval, `timing=kernel-graph`) from one run of preset `tuned-vs-default`: \"Tuned\" with no tunable set, so the plan takes the block and tunables of this GPU's tuning table (results/tuning/" + h.Slug + ".json, the entry of the nearest K and size class), \"Default\" with `tune=untuned`, the family's heuristic defaults. A ratio is \"~\" where the runs of the two do not differ significantly (Mann-Whitney U, p > 0.05).",
			Header:  []string{"Variant", "Size", "Filter", "Tuned", "Default", "Default / tuned"}}
		type key struct{ variant, size, filter string }
		var keys []key
		for _, smp := range run.Samples {
			k := key{smp.Keys["variant"], smp.Keys["size"], smp.Keys["filter"]}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b key) int {
			if a.variant != b.variant {
				return naturalCompare(a.variant, b.variant)
			}
			if c := compareSizes(a.size, b.size); c != 0 {
				return c
			}
			return naturalCompare(a.filter, b.filter)
		})
		for _, k := range keys {
			q := Q{"variant": k.variant, "size": k.size, "filter": k.filter, "timing": "kernel-graph", "cache": "hot", "opts": "default"}
			tuned := run.Measure(q.with("tune", "default"))
			def := run.Measure(q.with("tune", "untuned"))
			if !tuned.OK() && !def.OK() {
				continue
			}
			t.Rows = append(t.Rows, []string{k.variant, k.size, k.filter, msCI(tuned), msCI(def), ratioCell(def, tuned)})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}
