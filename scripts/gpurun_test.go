// Package scripts holds tests of the shell scripts beside it.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGPURunCountsNestedResults runs gpu-run.sh's tests stage over a
// stand-in test binary whose subtests pass, fail and skip at several
// depths, and checks that the summary counts every level.
func TestGPURunCountsNestedResults(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(filepath.Join(root, "convolve"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := `#!/bin/sh
cat <<'LOG'
=== RUN   TestA
--- PASS: TestA (0.00s)
=== RUN   TestB
    --- PASS: TestB/x (0.00s)
    --- SKIP: TestB/y (0.00s)
        --- SKIP: TestB/y/z (0.00s)
        --- FAIL: TestB/y/w (0.00s)
--- FAIL: TestB (0.00s)
--- SKIP: TestC (0.00s)
FAIL
LOG
exit 1
`
	if err := os.WriteFile(filepath.Join(bin, "convolve.test"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("gpu-run.sh")
	if err != nil {
		t.Fatal(err)
	}
	// Reading the script makes go test's cache depend on its contents.
	if _, err := os.ReadFile(script); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	cmd := exec.Command("bash", script, out, "tests")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GPU_BIN="+bin, "PATH=/usr/bin:/bin")
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("gpu-run.sh over a failing test binary: %v, want exit status 1\n%s", err, b)
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "rc=1 passed=2 failed=2 skipped=3"; !strings.Contains(string(sum), want) {
		t.Errorf("summary.txt lacks %q:\n%s", want, sum)
	}
}
