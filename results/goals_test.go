package results

import (
	"slices"
	"testing"
)

// A goal's cells count the cases that meet it, keep the first of the
// cases furthest past the target, and give the verdict.
func TestGoalTally(t *testing.T) {
	var none goalTally
	if got, want := none.cells(), []string{"0 of 0", missing, missing, "no data"}; !slices.Equal(got, want) {
		t.Errorf("no cases: %q, want %q", got, want)
	}
	var g goalTally
	g.add(true, -0.5, "a", "first")
	if got, want := g.cells(), []string{"1 of 1", "a", "first", "met"}; !slices.Equal(got, want) {
		t.Errorf("one case met: %q, want %q", got, want)
	}
	g.add(false, 0.2, "b", "second")
	g.add(false, 0.2, "c", "third") // as far as the second: the second stays
	g.add(true, -1, "d", "fourth")
	if got, want := g.cells(), []string{"2 of 4", "b", "second", "not met"}; !slices.Equal(got, want) {
		t.Errorf("four cases: %q, want %q", got, want)
	}
}

func TestYesNo(t *testing.T) {
	if yesNo(true) != "yes" || yesNo(false) != "no" {
		t.Errorf("yesNo(true), yesNo(false) = %q, %q", yesNo(true), yesNo(false))
	}
}
