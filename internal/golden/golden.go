// Package golden compares a test's output with a golden file that the
// -update flag rewrites.
package golden

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the code now writes")

// Check compares got with the golden file at path and reports a
// difference (-want +got) as an error of t. Under -update it writes got
// to path first.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -run '%s' -update rewrites it):\n%s", path, t.Name(), diff)
	}
}
