package results

import "fmt"

// yesNo is whether a case meets its goal, as a cell: "yes" or "no".
func yesNo(met bool) string {
	if met {
		return "yes"
	}
	return "no"
}

// goalTally counts a goal's cases and those met, and keeps the worst.
type goalTally struct {
	cases, met int
	worstBy    float64 // how far the worst case lies past the target; higher is further
	worst      string  // the worst case's figure, as a cell
	worstCase  string  // the worst case's name
}

// add counts a case named name whose figure, formatted as value, meets
// the goal or not and lies by past its target (higher is further).
func (g *goalTally) add(met bool, by float64, value, name string) {
	g.cases++
	if met {
		g.met++
	}
	if g.cases == 1 || by > g.worstBy {
		g.worstBy, g.worst, g.worstCase = by, value, name
	}
}

// cells are the goal's cells: "3 of 4", the worst case and the verdict.
func (g *goalTally) cells() []string {
	worst, worstCase, verdict := g.worst, g.worstCase, "not met"
	switch {
	case g.cases == 0:
		worst, worstCase, verdict = missing, missing, "no data"
	case g.met == g.cases:
		verdict = "met"
	}
	return []string{fmt.Sprintf("%d of %d", g.met, g.cases), worst, worstCase, verdict}
}
