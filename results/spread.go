package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// wideSpread is the spread above which a case counts as noisy.
const wideSpread = 0.10

func sectionSpread(hosts []*Host) *Section {
	s := &Section{Report: "spread", Title: "Measurement spread: which medians to read with care"}
	for _, h := range hosts {
		t := &Table{
			ID:    "spread-" + h.Slug,
			Title: "Spread of the runs of each case — " + h.Title,
			Caption: fmt.Sprintf("Spread is the slowest run of a case minus its fastest, over the median; the count columns say how many cases of each preset spread wider than %s and 25%%, and the last two name the widest case.",
				percent(wideSpread, true)),
			Header: []string{"Preset", "Cases", "Runs per case", fmt.Sprintf("> %s", percent(wideSpread, true)), "> 25%", "Widest case", "Its spread"},
		}
		throttled := slices.ContainsFunc(h.Runs, func(r *Run) bool { return r.Has(throttledUnit) })
		if throttled {
			t.Header = append(t.Header, "Throttled samples discarded", "Throttled kept")
			t.Caption += " The throttled columns count the samples taken below the GPU's clock limit, over every case of the preset: discarded and taken again, or kept where the guard gave up; a dash marks a run that does not record them."
		}
		for _, r := range h.Runs {
			var wide, wider, most int
			var worst *Sample
			var worstSpread float64
			for _, smp := range r.Samples {
				most = max(most, len(smp.Values[smp.TimeUnit()]))
				sp, ok := smp.Spread()
				if !ok {
					continue
				}
				if sp > wideSpread {
					wide++
				}
				if sp > 0.25 {
					wider++
				}
				if worst == nil || sp > worstSpread {
					worst, worstSpread = smp, sp
				}
			}
			name := missing
			if worst != nil {
				name = caseLabel(worst)
			}
			row := []string{r.Preset, strconv.Itoa(len(r.Samples)), strconv.Itoa(most),
				strconv.Itoa(wide), strconv.Itoa(wider), name, percent(worstSpread, worst != nil)}
			if throttled {
				if d, k, ok := r.Throttled(); ok {
					row = append(row, strconv.Itoa(d), strconv.Itoa(k))
				} else {
					row = append(row, missing, missing)
				}
			}
			t.Rows = append(t.Rows, row)
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// caseLabel names a case by the keys that tell it apart in most presets.
func caseLabel(s *Sample) string {
	k := s.Keys
	parts := []string{k["variant"]}
	if t := k["tune"]; t != "" && t != "default" && t != "none" {
		parts = append(parts, t)
	}
	parts = append(parts, k["size"], k["filter"])
	if b := k["block"]; b != "" && b != "default" && b != "none" {
		parts = append(parts, "block "+b)
	}
	parts = append(parts, k["type"])
	if c := k["ch"]; c != "" && c != "1" {
		parts = append(parts, "ch "+c)
	}
	return strings.Join(append(parts, timingLabel(s)), " ")
}
