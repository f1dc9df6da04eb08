package results

import "fmt"

// pathGoal is a goal of one path over dense<K> cases of preset crossover:
// its median kernel time within MaxMS, or, where Against names another
// path, that path's median over its own at least MinSpeedup.
type pathGoal struct {
	Variant    string
	Against    string // "" for a time goal
	MinSpeedup float64
	MaxMS      float64
	Size       string // "" for every size
	MinK, MaxK int    // MaxK 0 takes every K from MinK
}

// pathGoals are the goals of the tensor-core and FFT paths.
var pathGoals = []pathGoal{
	{Variant: "gpu-tc-3xtf32", MaxMS: 0.15, Size: "4096x4096", MinK: 21, MaxK: 21},
	{Variant: "gpu-tc-3xtf32", MaxMS: 0.30, Size: "4096x4096", MinK: 31, MaxK: 31},
	{Variant: "gpu-tc-3xtf32", Against: "gpu-regtile", MinSpeedup: 1, MinK: 11},
	{Variant: "gpu-tc-tf32", Against: "gpu-regtile", MinSpeedup: 2, MinK: 21},
	{Variant: "gpu-tc-bf16", Against: "gpu-regtile", MinSpeedup: 2, MinK: 21},
	{Variant: "gpu-fft", MaxMS: 0.25, Size: "4096x4096", MinK: 21, MaxK: 63},
}

// String says what the goal asks, as the goal table's Goal column does.
func (g pathGoal) String() string {
	var s string
	if g.Against != "" {
		s = fmt.Sprintf("%s at least %s× as fast as %s", g.Variant, Sig(g.MinSpeedup, 2), g.Against)
		if g.MinSpeedup == 1 {
			s = fmt.Sprintf("%s as fast as %s or faster", g.Variant, g.Against)
		}
	} else {
		s = fmt.Sprintf("%s within %s ms", g.Variant, Sig(g.MaxMS, 2))
	}
	switch {
	case g.MaxK == g.MinK:
		s += fmt.Sprintf(", dense K %d", g.MinK)
	case g.MaxK > 0:
		s += fmt.Sprintf(", dense K %d to %d", g.MinK, g.MaxK)
	default:
		s += fmt.Sprintf(", dense K ≥ %d", g.MinK)
	}
	if g.Size != "" {
		s += ", " + g.Size
	}
	return s
}

// measure is the goal's figure on c, a speedup or a time in ms.
func (g pathGoal) measure(c crossoverCase) (float64, bool) {
	if c.family != "dense" || c.k < g.MinK || (g.MaxK > 0 && c.k > g.MaxK) || (g.Size != "" && c.size != g.Size) {
		return 0, false
	}
	m, ok := c.times[g.Variant]
	if !ok || !m.OK() || m.Center() <= 0 {
		return 0, false
	}
	if g.Against == "" {
		return m.Center() / 1e6, true
	}
	r, ok := c.times[g.Against]
	if !ok || !r.OK() {
		return 0, false
	}
	return r.Center() / m.Center(), true
}

// met reports whether the goal's figure v meets it.
func (g pathGoal) met(v float64) bool {
	if g.Against == "" {
		return v <= g.MaxMS
	}
	return v >= g.MinSpeedup
}

// pathGoalRow is h's row of the path-goal table for g, if any case counts.
func pathGoalRow(h *Host, g pathGoal, cases []crossoverCase) ([]string, bool) {
	var tally goalTally
	for _, c := range cases {
		if v, ok := g.measure(c); ok && g.Against == "" {
			tally.add(g.met(v), v, Sig(v, 3)+" ms", c.size+" "+c.filter())
		} else if ok {
			tally.add(g.met(v), -v, Sig(v, 3)+"×", c.size+" "+c.filter())
		}
	}
	if tally.cases == 0 {
		return nil, false
	}
	return append([]string{h.Title, g.String()}, tally.cells()...), true
}

// pathGoalTable is the empty table of pathGoals.
func pathGoalTable() *Table {
	return &Table{ID: "crossover-path-goals", Title: "Tensor-core and FFT goals",
		Caption: "Each GPU's crossover run, dense filters: per goal the cases at which both paths ran (or the path, for a time goal), how many meet it by median kernel time, and the figure furthest from the goal with its case: the smallest speedup (the other path's median over the variant's), or the longest time. The time goals of `gpu-tc-3xtf32` lie below the FP32 floor of their case (0.221 ms for dense21 and 0.482 ms for dense31 over 4096x4096 at 66.9 TFLOP/s).",
		Header:  []string{"GPU", "Goal", "Cases at goal", "Furthest from it", "Its case", "Verdict"}}
}
