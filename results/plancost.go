package results

import (
	"fmt"
	"slices"
	"strings"
)

// planGoal is the most a cold plan's median may take, in ns; compilesUnit
// is the unit of NVRTC compiles per plan.
const (
	planGoal     = 200e6
	compilesUnit = "compiles/op"
)

// planCase is one variant's problem timed as a plan, cold and warm.
type planCase struct {
	cold, warm *Sample
	run        string
}

// planCases collects h's plan-timing cases, runs of preset plan first.
func planCases(h *Host) []*planCase {
	isPlan := func(r *Run) bool { return r.Preset == "plan" || strings.HasPrefix(r.Preset, "plan-") }
	runs := slices.DeleteFunc(slices.Clone(h.Runs), func(r *Run) bool { return !isPlan(r) })
	runs = append(runs, slices.DeleteFunc(slices.Clone(h.Runs), isPlan)...)
	var out []*planCase
	byKey := map[string]*planCase{}
	for _, r := range runs {
		mine := map[string]bool{} // the cases this run gave
		for _, s := range r.Samples {
			if s.Keys["timing"] != "plan" {
				continue
			}
			k := planKey(s)
			pc := byKey[k]
			if pc == nil {
				pc = &planCase{run: r.Preset}
				byKey[k] = pc
				out = append(out, pc)
				mine[k] = true
			}
			if !mine[k] {
				continue
			}
			switch s.Keys["cache"] {
			case "cold":
				pc.cold = s
			case "hot":
				pc.warm = s
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *planCase) int { return compareSamples(a.any(), b.any()) })
	return out
}

// planKey is a plan case's name keys but its cache.
func planKey(s *Sample) string {
	var b strings.Builder
	for _, k := range nameKeys {
		if k != "cache" {
			b.WriteString("/" + k + "=" + s.Keys[k])
		}
	}
	return b.String()
}

// any is one of the case's samples, for its keys.
func (pc *planCase) any() *Sample {
	if pc.cold != nil {
		return pc.cold
	}
	return pc.warm
}

// problemLabel names a plan case's problem, its keys at defaults left out.
func problemLabel(s *Sample) string {
	k := s.Keys
	parts := []string{k["size"], k["filter"], k["type"]}
	if c := k["ch"]; c != "1" {
		parts = append(parts, c+"ch "+k["layout"])
	}
	if b := k["border"]; b != "zero" {
		parts = append(parts, b+" border")
	}
	for _, key := range []string{"block", "opts", "tune", "gpus"} {
		if v := k[key]; v != "" && v != "default" && v != "none" {
			parts = append(parts, key+" "+v)
		}
	}
	return strings.Join(parts, " ")
}

// sectionPlanCost sets out each host's cold and warm plan times.
func sectionPlanCost(hosts []*Host) *Section {
	s := &Section{Report: "plan", Title: "Plan cost: the framework's own time to make a plan, cold and warm"}
	var untimed []string // GPUs whose runs time no plan
	for _, h := range hosts {
		cases := planCases(h)
		if len(cases) == 0 {
			if h.GPU {
				untimed = append(untimed, h.Title)
			}
			continue
		}
		t := &Table{ID: "plan-cost-" + h.Slug, Title: "Cold and warm plans — " + h.Title,
			Header: []string{"Variant", "Problem", "Cold plan (ms)", "Warm plan (ms)", "Cold / warm", "Compiles per cold plan", "Cold ≤ 200 ms", "Run"}, Keys: 2,
			Legend: []string{
				"Cold plan (ms): the median time of `convolve.PlanFor` (`timing=plan`, `cache=cold`) with the memory and disk compile caches bypassed, so that NVRTC compiles the plan's kernels as in a process's first plan of a new specialization, ± the half-width of its confidence interval; `Close` is not in the time.",
				"Warm plan (ms): the same with the kernels in the compile cache (`cache=hot`): the module load, device buffers and filter upload that remain.",
				"Compiles per cold plan: NVRTC compiles per timed plan (`compiles/op`); the benchmark fails a cold plan that hits a cache and a warm one that compiles.",
				"Cold ≤ 200 ms: the goal, met (yes) or not (NO) by the cold plan's median.",
				"Run: the stored run the case comes from.",
			}}
		var tally goalTally
		for _, pc := range cases {
			cold, warm := timeOf(pc.cold), timeOf(pc.warm)
			goal, compiles := missing, missing
			if c := cold.Center(); cold.OK() {
				tally.add(c <= planGoal, c, "", pc.cold.Keys["variant"])
				goal = "NO"
				if c <= planGoal {
					goal = "yes"
				}
				if v, ok := pc.cold.Median(compilesUnit); ok {
					compiles = Sig(v, 3)
				}
			}
			t.Rows = append(t.Rows, []string{pc.any().Keys["variant"], problemLabel(pc.any()),
				msCI(cold), msCI(warm), ratioCell(cold, warm), compiles, goal, "`" + pc.run + "`"})
		}
		t.Caption = fmt.Sprintf("The time to make a plan, from the runs' plan cases (preset `plan` times every family; the default preset gpu-regtile). Goal: a cold plan of any variant within 200 ms, median; %d of the %d cold plans timed meet it",
			tally.met, tally.cases)
		if tally.cases > 0 {
			t.Caption += fmt.Sprintf(", the slowest %s at %s ms", tally.worstCase, ms(tally.worstBy, true))
		}
		t.Caption += "."
		s.Tables = append(s.Tables, t)
	}
	if len(s.Tables) > 0 {
		for _, g := range untimed {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: no stored run times a plan; `go run ./benchmarks/cmd/sweep -sweep=plan` on that GPU makes one.", g))
		}
	}
	return s
}
