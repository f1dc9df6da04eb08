package names_test

import (
	"strings"
	"testing"

	"github.com/convbench/convbench/internal/allvariants/names"
	"github.com/convbench/convbench/internal/golden"

	_ "github.com/convbench/convbench/internal/allvariants"
)

// TestList checks names.txt against the variants package allvariants
// registers; -update rewrites it.
func TestList(t *testing.T) {
	got := names.Registered()
	if len(got) == 0 {
		t.Fatal("importing allvariants registers no variant")
	}
	golden.Check(t, "names.txt", []byte(strings.Join(got, "\n")+"\n"))
}

// TestCheck checks that Check passes the full list and names what a
// registry lacks or has beyond it.
func TestCheck(t *testing.T) {
	all := names.All()
	if len(all) == 0 {
		t.Fatal("names.txt lists no variant")
	}
	if err := names.Check(all); err != nil {
		t.Errorf("Check(All()) = %v", err)
	}
	short := append([]string{"stand-in"}, all[1:]...)
	err := names.Check(short)
	if err == nil {
		t.Fatalf("Check with %s missing and stand-in added: no error", all[0])
	}
	for _, want := range []string{"(" + all[0] + ")", "(stand-in)", "internal/allvariants"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q: %v", want, err)
		}
	}
	if err := names.Check(nil); err == nil {
		t.Error("Check(nil): no error")
	}
}
