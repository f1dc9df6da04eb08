package results

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// ReferenceVariant is the default baseline where a run holds it: the float64 truth.
const ReferenceVariant = "reference"

// problemKeys are the name keys that make two cases the same problem.
var problemKeys = []string{"size", "filter", "k", "border", "type", "ch", "layout"}

// setupKeys are the other keys; a case's baseline shares most of them.
var setupKeys = []string{"timing", "mem", "cache", "block", "opts", "tune", "gpus"}

// Baselines is, for the cases of one run, the case each is compared with.
type Baselines struct {
	Name  string // the baseline variant where all cases share one, else ""
	Named string // the variant asked for, or "" for the default
	of    map[*Sample]*Sample
}

// NewBaselines picks each case's baseline among the cases of the same
// problem: the variant named, by default ReferenceVariant or else the
// slowest; of several cases, the one sharing most setupKeys.
func NewBaselines(samples []*Sample, named string) *Baselines {
	b := &Baselines{Named: named, of: map[*Sample]*Sample{}}
	_, groups := groupBy(samples, func(s *Sample) string { return keyTuple(s, problemKeys) })
	names := map[string]bool{}
	for _, g := range groups {
		variants := map[string]bool{}
		for _, s := range g {
			variants[s.Keys["variant"]] = true
		}
		if len(variants) < 2 {
			continue
		}
		base := named
		switch {
		case base != "":
		case variants[ReferenceVariant]:
			base = ReferenceVariant
		default:
			base = slowest(g).Keys["variant"]
		}
		cands := slices.DeleteFunc(slices.Clone(g), func(s *Sample) bool { return s.Keys["variant"] != base })
		if len(cands) == 0 {
			continue
		}
		names[base] = true
		for _, s := range g {
			b.of[s] = closestSetup(s, cands)
		}
	}
	if len(names) == 1 {
		b.Name = slices.Collect(maps.Keys(names))[0]
	}
	return b
}

// Any reports whether a case has a baseline other than itself.
func (b *Baselines) Any() bool {
	for s, base := range b.of {
		if s != base {
			return true
		}
	}
	return false
}

// Header is the speed-up column's name: "speed-up vs <Name>", or "vs
// baseline" where the problems' baselines differ.
func (b *Baselines) Header() string {
	if b.Name != "" {
		return "speed-up vs " + b.Name
	}
	return "speed-up vs baseline"
}

// Caption says what the speed-ups are over.
func (b *Baselines) Caption() string {
	switch {
	case b.Name != "":
		return "Speed-ups over " + b.Name + "."
	case b.Named != "":
		return "Speed-ups over " + b.Named + " where a problem has it."
	}
	return "Speed-ups over the reference where a problem has it, else over its slowest variant."
}

// Legend says what the speed-up column headed col holds.
func (b *Baselines) Legend(col string) string {
	var which string
	switch {
	case b.Named != "":
		which = "the cases of " + b.Named + " (-baseline)"
	case b.Name == ReferenceVariant:
		which = "the reference variant's cases"
	default:
		which = "the cases of the reference variant where a problem has one, else of its slowest variant (-baseline names another)"
	}
	return col + ": the baseline's median time over the case's, for cases of the same problem (size, filter, border, " +
		"type, channels, layout); the baseline is " + which + ". Above 1× the case is faster. In parentheses the range the two " +
		fmt.Sprintf("medians' %.0f%% intervals allow; ~ where the Mann-Whitney U test of the runs gives p > %v ", 100*runfile.Confidence, thresholds.CompareAlpha) +
		"(no significant difference, as benchstat prints it), the ratio then shown for scale; \"baseline\" on the baseline's own rows."
}

// Cell formats the speed-up of s over its baseline (SpeedupCell).
func (b *Baselines) Cell(s *Sample) string {
	base := b.of[s]
	switch {
	case base == nil:
		return missing
	case base == s:
		return "baseline"
	}
	return SpeedupCell(timeOf(base), timeOf(s))
}

// SpeedupCell formats base's median over m's: "57.3× (52.1–61.0)" with
// the range the intervals allow where the runs differ significantly,
// "~ 1.02×" where they do not, a dash where either holds nothing.
func SpeedupCell(base, m Measure) string {
	r, significant, ok := ratio(base, m)
	switch {
	case !ok:
		return missing
	case !significant:
		return "~ " + Sig(r, 3) + "×"
	}
	cell := Sig(r, 3) + "×"
	if lo, hi, ok := ratioInterval(base, m); ok {
		cell += " (" + Sig(lo, 3) + "–" + Sig(hi, 3) + ")"
	}
	return cell
}

// ratioInterval is the range of a's median over b's their intervals allow.
func ratioInterval(a, b Measure) (lo, hi float64, ok bool) {
	sa, sb := a.Summary(), b.Summary()
	for _, v := range []float64{sa.Lo, sa.Hi, sb.Lo, sb.Hi} {
		if math.IsInf(v, 0) || math.IsNaN(v) || v <= 0 {
			return 0, 0, false
		}
	}
	return sa.Lo / sb.Hi, sa.Hi / sb.Lo, true
}

// slowest is the case of g with the longest median time.
func slowest(g []*Sample) *Sample {
	var worst *Sample
	wt := math.Inf(-1)
	for _, s := range g {
		if t := timeOf(s).Center(); t > wt || worst == nil {
			worst, wt = s, t
		}
	}
	return worst
}

// closestSetup is s, or else the case of cands sharing most setupKeys with it.
func closestSetup(s *Sample, cands []*Sample) *Sample {
	if slices.Contains(cands, s) {
		return s
	}
	var best *Sample
	bestShared, bestTime := -1, math.Inf(-1)
	for _, c := range cands {
		shared := 0
		for _, k := range setupKeys {
			if c.Keys[k] == s.Keys[k] {
				shared++
			}
		}
		t := timeOf(c).Center()
		if shared > bestShared || shared == bestShared && t > bestTime {
			best, bestShared, bestTime = c, shared, t
		}
	}
	return best
}

// keyTuple joins s's values of keys into one string.
func keyTuple(s *Sample, keys []string) string {
	return strings.Join(mapCells(keys, func(k string) string { return s.Keys[k] }), "\x00")
}

// checkBaseline is an error where no case of runs has the variant baseline.
func checkBaseline(runs []*Run, baseline string) error {
	var names []string
	for _, r := range runs {
		for _, s := range r.Samples {
			names = appendNew(names, s.Keys["variant"])
		}
	}
	if slices.Contains(names, baseline) {
		return nil
	}
	slices.Sort(names)
	msg := fmt.Sprintf("-baseline %s: no run has that variant", baseline)
	if near := convolve.Closest(baseline, names, 3); len(near) > 0 {
		msg += " (did you mean " + strings.Join(near, ", ") + "?)"
	}
	return errors.New(msg)
}
