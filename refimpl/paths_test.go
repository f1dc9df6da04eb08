package refimpl_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/convbench/convbench/convtest"
	"github.com/convbench/convbench/refimpl"
)

// brokenPathEnv names, in a child run of the test binary, the path of
// cpu-fast that TestFastPathProperties breaks before it runs.
const brokenPathEnv = "REFIMPL_BROKEN_FAST_PATH"

// summingPaths are the paths with loops of their own (FastAuto is one of
// them, chosen by the CPU).
var summingPaths = []refimpl.FastPath{refimpl.FastPortable, refimpl.FastVector}

// TestFastPathProperties runs the property suite of convtest on each of
// cpu-fast's loops: the portable Go loops, and the AVX loop on a CPU
// that has it (elsewhere that subtest skips and says why). The two run in
// parallel.
func TestFastPathProperties(t *testing.T) {
	if name := os.Getenv(brokenPathEnv); name != "" {
		broken := pathNamed(t, name)
		t.Logf("the %v path is broken on purpose (%s=%s)", broken, brokenPathEnv, name)
		// Cleanup, not defer: the parallel subtests run after this
		// function returns.
		t.Cleanup(refimpl.BreakFastPath(broken))
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

func pathNamed(t *testing.T, name string) refimpl.FastPath {
	t.Helper()
	for _, p := range refimpl.FastPaths {
		if p.String() == name {
			return p
		}
	}
	t.Fatalf("%s=%q names no path of cpu-fast", brokenPathEnv, name)
	return 0
}

// TestFastPathPropertiesCatchBrokenPath breaks each path in turn, in a
// child run of this test binary, and runs the suite of
// TestFastPathProperties on each path there: the run on the broken path
// must fail and the run on the other must pass. So each subtest of
// TestFastPathProperties runs the loops it names, and the suite catches
// a remainder bug in them.
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
		for _, run := range paths {
			t.Run("broken="+broken.String()+"/run="+run.String(), func(t *testing.T) {
				cmd := exec.Command(exe, "-test.run=^TestFastPathProperties$/^"+run.String()+"$", "-test.v", "-test.short", "-convtest.n=30")
				cmd.Env = append(os.Environ(), brokenPathEnv+"="+broken.String())
				out, err := cmd.CombinedOutput()
				sub := "TestFastPathProperties/" + run.String()
				if run == broken {
					if err == nil || !strings.Contains(string(out), "--- FAIL: "+sub+"/agreement") {
						t.Errorf("the suite on the broken %v path did not fail its agreement property (%v):\n%s", run, err, tail(out))
					}
					return
				}
				if err != nil || !strings.Contains(string(out), "--- PASS: "+sub+" ") {
					t.Errorf("the suite on the %v path failed with the %v path broken (%v):\n%s", run, broken, err, tail(out))
				}
			})
		}
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
