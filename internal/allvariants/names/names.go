// Package names lists the variant names that package allvariants registers.
//
// The list is names.txt, kept equal to what allvariants registers by
// this package's test, which rewrites it under -update. A command's test
// checks its registry against it with [Test].
package names

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

//go:embed names.txt
var list string

// All returns the names package allvariants registers, sorted.
func All() []string {
	return strings.Fields(list)
}

// Registered returns the names of the variants registered with convolve
// now, sorted.
func Registered() []string {
	var ns []string
	for _, v := range convolve.Variants() {
		ns = append(ns, v.Describe().Name)
	}
	slices.Sort(ns)
	return ns
}

// Test fails t unless registered holds the names of All and no other
// (Check).
func Test(t testing.TB, registered []string) {
	t.Helper()
	if err := Check(registered); err != nil {
		t.Error(err)
	}
}

// Check returns nil when got holds the names of All and no other, and
// otherwise an error naming the missing names and the extra ones.
func Check(got []string) error {
	want := All()
	missing := slices.DeleteFunc(All(), func(n string) bool { return slices.Contains(got, n) })
	extra := slices.DeleteFunc(slices.Clone(got), func(n string) bool { return slices.Contains(want, n) })
	var msgs []string
	if len(missing) > 0 {
		msgs = append(msgs, fmt.Sprintf("%d of the %d variants package allvariants registers are not registered (%s): import _ %q",
			len(missing), len(want), strings.Join(missing, ", "), "github.com/convbench/convbench/internal/allvariants"))
	}
	if len(extra) > 0 {
		msgs = append(msgs, fmt.Sprintf("%d variants are registered that package allvariants does not register (%s): add their family to allvariants and rewrite the list (go test ./internal/allvariants/names -update)",
			len(extra), strings.Join(extra, ", ")))
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}
