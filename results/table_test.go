package results

import (
	"slices"
	"testing"
)

// columns picks the columns in the order given, a dash past a short row.
func TestColumns(t *testing.T) {
	if got, want := columns([]string{"a", "b", "c"}, []int{2, 0, 3}), []string{"c", "a", missing}; !slices.Equal(got, want) {
		t.Errorf("columns = %q, want %q", got, want)
	}
}

func TestOrMissing(t *testing.T) {
	if OrMissing("") != missing || OrMissing("abc1234") != "abc1234" {
		t.Errorf(`OrMissing(""), OrMissing("abc1234") = %q, %q`, OrMissing(""), OrMissing("abc1234"))
	}
}
