package refimpl_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convtest"
	"github.com/convbench/convbench/refimpl"
)

// brokenPathEnv names, in a child run of the test binary, the path of
// cpu-fast and the part of it that TestFastPathProperties breaks before
// it runs, as path/part ("vector/conversion").
const brokenPathEnv = "REFIMPL_BROKEN_FAST_PATH"

// summingPaths are the paths with loops of their own (FastAuto is one of
// them, chosen by the CPU).
var summingPaths = []refimpl.FastPath{refimpl.FastPortable, refimpl.FastVector, refimpl.FastVector512}

// TestFastPathProperties runs the property suite of convtest on each of
// cpu-fast's loops: the portable Go loops, and the AVX loop on a CPU
// that has it (elsewhere that subtest skips and says why). The two run in
// parallel.
func TestFastPathProperties(t *testing.T) {
	if name := os.Getenv(brokenPathEnv); name != "" {
		broken, part := pathNamed(t, name)
		t.Logf("the %s of the %v path are broken on purpose (%s=%s)", part, broken, brokenPathEnv, name)
		// Cleanup, not defer: the parallel subtests run after this
		// function returns.
		t.Cleanup(refimpl.BreakFastPath(broken, part))
	}
	for _, p := range summingPaths {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			v, err := refimpl.NewFast(p)
			if !p.Available() {
				t.Skipf("this CPU does not run the %v path: %v", p, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			convtest.TestVariant(t, v)
		})
	}
}

// pathNamed parses path/part, the value of brokenPathEnv.
func pathNamed(t *testing.T, name string) (refimpl.FastPath, string) {
	t.Helper()
	path, part, _ := strings.Cut(name, "/")
	for _, p := range refimpl.FastPaths {
		if p.String() == path && slices.Contains(refimpl.BreakParts, part) {
			return p, part
		}
	}
	t.Fatalf("%s=%q names no path/part of cpu-fast (parts: %v)", brokenPathEnv, name, refimpl.BreakParts)
	return 0, ""
}

// TestFastPathPropertiesCatchBrokenPath breaks each part of each path in
// turn (its sums, then its conversion of uint8 and int16 rows), in a
// child run of this test binary, and runs the suite of
// TestFastPathProperties on each path there: the run on the broken path
// must fail and the run on the other must pass. So each subtest of
// TestFastPathProperties runs the loops it names, and the suite catches
// a remainder bug in any of them.
func TestFastPathPropertiesCatchBrokenPath(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary: " + err.Error())
	}
	var paths []refimpl.FastPath
	for _, p := range summingPaths {
		if p.Available() {
			paths = append(paths, p)
		}
	}
	for _, broken := range paths {
		for _, part := range refimpl.BreakParts {
			for _, run := range paths {
				t.Run("broken="+broken.String()+"/"+part+"/run="+run.String(), func(t *testing.T) {
					checkBrokenRun(t, exe, broken, part, run)
				})
			}
		}
	}
}

// checkBrokenRun runs the suite on path run in a child with part of path
// broken broken, and checks that it fails exactly when run is broken.
func checkBrokenRun(t *testing.T, exe string, broken refimpl.FastPath, part string, run refimpl.FastPath) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestFastPathProperties$/^"+run.String()+"$", "-test.v", "-test.short", "-convtest.n=30")
	cmd.Env = append(os.Environ(), brokenPathEnv+"="+broken.String()+"/"+part)
	out, err := cmd.CombinedOutput()
	sub := "TestFastPathProperties/" + run.String()
	if run == broken {
		if err == nil || !strings.Contains(string(out), "--- FAIL: "+sub+"/agreement") {
			t.Errorf("the suite on the %v path with its %s broken did not fail its agreement property (%v):\n%s", run, part, err, tail(out))
		}
		return
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+sub+" ") {
		t.Errorf("the suite on the %v path failed with the %s of the %v path broken (%v):\n%s", run, part, broken, err, tail(out))
	}
}

// tail is the end of a child's output, enough to show why it failed.
func tail(out []byte) string {
	const n = 4000
	if len(out) > n {
		return "...\n" + string(out[len(out)-n:])
	}
	return string(out)
}
