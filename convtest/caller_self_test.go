package convtest

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// TestFailuresPointAtCaller: a property's failure is reported at the
// line of the caller's TestVariant, where a user looks first, not inside
// the suite. The check runs the broken variant in a child process of this
// test binary and reads its output.
func TestFailuresPointAtCaller(t *testing.T) {
	if os.Getenv("CONVTEST_CALLER_CHILD") == "1" {
		TestVariantOptions(t, brokenHalo{inner: lookup(t, "cpu-naive")}, Options{N: 30}) // the line failures name
		return
	}
	if testing.Short() {
		t.Skip("runs the suite on a broken variant in a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailuresPointAtCaller$/^agreement$", "-test.v")
	cmd.Env = append(os.Environ(), "CONVTEST_CALLER_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed; want the broken variant's failure:\n%s", out)
	}
	failed := regexp.MustCompile(`(?m)^\s*(\S+\.go:\d+): variant=broken-halo property=agreement FAILED`).FindSubmatch(out)
	if failed == nil {
		t.Fatalf("no failure line for property agreement in the child's output:\n%s", out)
	}
	if !regexp.MustCompile(`^caller_self_test\.go:\d+$`).Match(failed[1]) {
		t.Errorf("the failure points at %s, want the caller's line in caller_self_test.go", failed[1])
	}
}
