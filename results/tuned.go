package results

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/convbench/convbench/tables"
	"github.com/convbench/convbench/tables/tuning"
)

// tuningTables are the tuning tables the section shows the tuner's records of.
var tuningTables = tuning.Tables.Default

// sectionTunedVsDefault sets the GPU's tuning table against the defaults.
func sectionTunedVsDefault(hosts []*Host) *Section {
	s := &Section{Report: "tuned-vs-default", Title: "Tuned against default settings"}
	for h, run := range hostRuns(hosts, "tuned-vs-default") {
		t := &Table{ID: "tuned-vs-default-" + h.Slug, Title: "Tuning table against the families' defaults — " + h.Title,
			Caption: "Kernel time (ms, median ± the half-width of its confidence interval, `timing=kernel-graph`) from one run of preset `tuned-vs-default`: \"Tuned\" with no tunable set, so the plan takes the block and tunables of this GPU's tuning table (tables/tuning/" + h.Slug + ".json, the entry of the nearest K and size class), \"Default\" with `tune=untuned`, the family's heuristic defaults. A ratio is \"~\" where the runs of the two do not differ significantly (Mann-Whitney U, p > 0.05).",
			Header:  []string{"Variant", "Size", "Filter", "Tuned", "Default", "Default / tuned"}}
		for _, c := range distinctCases(run.Samples, "variant", "size", "filter") {
			q := Q{"variant": c.Keys["variant"], "size": c.Keys["size"], "filter": c.Keys["filter"], "timing": "kernel-graph", "cache": "hot", "opts": "default"}
			tuned := run.Measure(q.with("tune", "default"))
			def := run.Measure(q.with("tune", "untuned"))
			if !tuned.OK() && !def.OK() {
				continue
			}
			t.Rows = append(t.Rows, []string{c.Keys["variant"], c.Keys["size"], c.Keys["filter"], msCI(tuned), msCI(def), ratioCell(def, tuned)})
		}
		s.Tables = append(s.Tables, t)
	}
	if set, err := tuningTables(); err == nil {
		for _, gpu := range set.GPUs() {
			s.add(tunerTable(set.Table(gpu), set.Source(gpu)))
		}
	}
	return s
}

// tunerTable is the tuner's record of one GPU's tuning table, or nil.
func tunerTable(t *tuning.Table, source string) *Table {
	if t == nil || len(t.Entries) == 0 {
		return nil
	}
	out := &Table{ID: "tuner-" + tables.Slug(t.GPU), Title: "The tuner's choices against the families' defaults — " + t.GPU,
		Caption: "From " + source + ", as the tuner wrote it: each entry's chosen setting (block, tunables) and the family's default, each with the median kernel time the tuner measured for it in the same run (`timing` of the entry, on the entry's problem), and how many candidates it tried: ok (verified against the reference, then timed), wrong (differed from the reference; never chosen), refused (failed to plan), and where any did, how many crashed the tuner's process or hung it (never chosen). Plans read the chosen settings by default; preset `tuned-vs-default` times them again beside the defaults.",
		Header:  []string{"Variant", "Type", "K", "Size class", "Problem", "Chosen", "Chosen (ms)", "Default", "Default (ms)", "Default / chosen", "Tried (ok, wrong, refused)", "Search", "Commit"}, Keys: 3}
	es := slices.Clone(t.Entries)
	slices.SortStableFunc(es, func(a, b tuning.Entry) int {
		return cmp.Or(strings.Compare(a.Variant, b.Variant), strings.Compare(a.Type, b.Type), cmp.Compare(a.K, b.K), cmp.Compare(a.Size, b.Size))
	})
	for _, e := range es {
		n := map[string]int{}
		for _, c := range e.Candidates {
			n[c.Status]++
		}
		ok, wrong, faulted := n[tuning.OK], n[tuning.Wrong], n[tuning.Crash]+n[tuning.Hang]
		refused := len(e.Candidates) - ok - wrong - faulted
		tried := fmt.Sprintf("%d (%d, %d, %d)", len(e.Candidates), ok, wrong, refused)
		if faulted > 0 {
			tried = fmt.Sprintf("%d (%d, %d, %d, %d crashed or hung)", len(e.Candidates), ok, wrong, refused, faulted)
		}
		ratio := missing
		if e.Chosen.MedianNS > 0 && e.Default.MedianNS > 0 {
			ratio = Sig(e.Default.MedianNS/e.Chosen.MedianNS, 3) + "×"
		}
		commit := e.Commit[:min(len(e.Commit), 7)]
		out.Rows = append(out.Rows, []string{e.Variant, e.Type, fmt.Sprint(e.K), string(e.Size), e.Problem,
			candidateSetting(e.Chosen), ms(e.Chosen.MedianNS, e.Chosen.MedianNS > 0),
			candidateSetting(e.Default), ms(e.Default.MedianNS, e.Default.MedianNS > 0),
			ratio, tried, e.Search, commit})
	}
	return out
}

// candidateSetting is a tuning candidate's block and tunables, "32x8 rx=4 ry=2".
func candidateSetting(c tuning.Candidate) string {
	var parts []string
	if c.Block != "" {
		parts = append(parts, c.Block)
	}
	for _, n := range slices.Sorted(maps.Keys(c.Tunables)) {
		parts = append(parts, fmt.Sprintf("%s=%d", n, c.Tunables[n]))
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}
