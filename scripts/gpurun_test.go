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
// depths, and checks that the summaries count every level and name the
// package by its import path.
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
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.org/m\n"), 0o644); err != nil {
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
	if want := "fail=2"; !strings.Contains(string(sum), want) {
		t.Errorf("summary.txt lacks %q:\n%s", want, sum)
	}
	tests, err := os.ReadFile(filepath.Join(out, "tests-summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tests)), "\n")
	if len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "example.org/m/convolve pass=2 fail=2 skip=3 secs=") ||
		!strings.HasPrefix(lines[1], "total wall-s=") || !strings.HasSuffix(lines[1], " cache=cold") {
		t.Errorf("tests-summary.txt:\n%s\nwant the package's line and the total's, cache cold", tests)
	}
}

// TestGPURunSweepStage runs the sweep stage over a stand-in sweep command
// and checks that it receives the prebuilt benchmark binary, a data folder
// under OUTDIR and the arguments of SWEEP_ARGS one by one, and that the
// stage's log names the command.
func TestGPURunSweepStage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\nfor a in \"$@\"; do echo \"arg[$a]\"; done\n"
	if err := os.WriteFile(filepath.Join(bin, "sweep"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("gpu-run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(script); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	cmd := exec.Command("bash", script, out, "sweep:a")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GPU_BIN="+bin, "PATH=/usr/bin:/bin", "COUNT=2",
		"SWEEP_ARGS=-variants gpu-tiled|npp -sizes 6000x4000")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpu-run.sh sweep:a: %v\n%s", err, b)
	}
	log, err := os.ReadFile(filepath.Join(out, "sweep-a.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(log), "\n")
	if !strings.Contains(lines[1], "command:") {
		t.Errorf("log's second line = %q, want the command", lines[1])
	}
	for _, want := range []string{
		"arg[-bin]", "arg[" + filepath.Join(bin, "benchmarks.test") + "]",
		"arg[-data]", "arg[" + filepath.Join(out, "data") + "]",
		"arg[-count]", "arg[2]",
		"arg[-variants]", "arg[gpu-tiled|npp]", "arg[-sizes]", "arg[6000x4000]",
	} {
		if !strings.Contains(string(log), want+"\n") {
			t.Errorf("sweep stage's log lacks %s:\n%s", want, log)
		}
	}
}

// TestGPURunTuneStages runs the tune and tune-props stages over stand-in
// binaries: tune gets the committed tables copied into OUTDIR/tuning,
// writes there, and receives the TUNE_* settings; tune-props runs the
// tune package's test binary from its directory with CONVBENCH_TUNING at
// those tables.
func TestGPURunTuneStages(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	for _, d := range []string{bin, filepath.Join(root, "results", "tuning"), filepath.Join(root, "tune")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "results", "tuning", "test-gpu.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\necho \"pwd[$(pwd)]\"; echo \"env[$CONVBENCH_TUNING]\"; for a in \"$@\"; do echo \"arg[$a]\"; done\n"
	for _, name := range []string{"tune", "tune.test"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("gpu-run.sh")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	cmd := exec.Command("bash", script, out, "tune", "tune-props")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GPU_BIN="+bin, "PATH=/usr/bin:/bin", "TUNE_K=3,21", "TUNE_TIME=100s", "PROPS_N=7")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpu-run.sh tune tune-props: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, "tuning", "test-gpu.json")); err != nil {
		t.Errorf("the committed table was not copied into OUTDIR/tuning: %v", err)
	}
	tables := filepath.Join(out, "tuning")
	for log, wants := range map[string][]string{
		"tune.log": {"arg[-variants]", "arg[gpu-regtile,gpu-tiled]", "arg[-k]", "arg[3,21]", "arg[-sizes]", "arg[large]",
			"arg[-time]", "arg[100s]", "arg[-out]", "arg[" + tables + "]"},
		"tune-props.log": {"pwd[" + filepath.Join(root, "tune") + "]", "env[" + tables + "]",
			"arg[-test.run]", "arg[TestTunedProperties|TestTuneGPU]", "arg[-convtest.n=7]"},
	} {
		b, err := os.ReadFile(filepath.Join(out, log))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(string(b), want+"\n") {
				t.Errorf("%s lacks %s:\n%s", log, want, b)
			}
		}
	}
}
