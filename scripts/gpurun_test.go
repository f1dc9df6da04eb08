// Package scripts holds tests of the shell scripts beside it.
package scripts

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
	out := filepath.Join(root, "out")
	if b, code := gpuRun(t, root, out, []string{"GPU_BIN=" + bin}, "tests"); code != 1 {
		t.Fatalf("gpu-run.sh over a failing test binary: exit status %d, want 1\n%s", code, b)
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
	report, err := os.ReadFile(filepath.Join(out, "tests-report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"slowest tests:\n     0.00s  convolve  TestA\n     0.00s  convolve  TestB\n",
		"kernels compiled: none (no NVRTC on this host, or every kernel came from the cache)\n",
	} {
		if !strings.Contains(string(report), want) {
			t.Errorf("tests-report.txt lacks %q:\n%s", want, report)
		}
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
	out := filepath.Join(root, "out")
	if b, code := gpuRun(t, root, out, []string{"GPU_BIN=" + bin, "COUNT=2", "SWEEP_ARGS=-variants gpu-tiled|npp -sizes 6000x4000"}, "sweep:a"); code != 0 {
		t.Fatalf("gpu-run.sh sweep:a: exit status %d\n%s", code, b)
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
	for _, d := range []string{bin, filepath.Join(root, "tables", "tuning"), filepath.Join(root, "tune")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "tables", "tuning", "test-gpu.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\necho \"pwd[$(pwd)]\"; echo \"env[$CONVBENCH_TUNING]\"; for a in \"$@\"; do echo \"arg[$a]\"; done\n"
	for _, name := range []string{"tune", "tune.test"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(root, "out")
	if b, code := gpuRun(t, root, out, []string{"GPU_BIN=" + bin, "TUNE_K=3,21", "TUNE_TIME=100s", "PROPS_N=7"}, "tune", "tune-props"); code != 0 {
		t.Fatalf("gpu-run.sh tune tune-props: exit status %d\n%s", code, b)
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

// TestGPURunGalleryStage runs the gallery stage over a stand-in gallery
// command and checks that it gets the committed runs and a directory
// named gallery to write, and that OUTDIR/gallery.tar holds what it wrote
// there under gallery/.
func TestGPURunGalleryStage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := `#!/bin/sh
for a in "$@"; do echo "arg[$a]"; done
while [ $# -gt 0 ]; do [ "$1" = -out ] && dir=$2; shift; done
mkdir -p "$dir" && echo '# Filter gallery' >"$dir/README.md"
`
	if err := os.WriteFile(filepath.Join(bin, "gallery"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	if b, code := gpuRun(t, root, out, []string{"GPU_BIN=" + bin}, "gallery"); code != 0 {
		t.Fatalf("gpu-run.sh gallery: exit status %d\n%s", code, b)
	}
	log, err := os.ReadFile(filepath.Join(out, "gallery.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"arg[-data]", "arg[" + filepath.Join(root, "results", "data") + "]", "arg[-out]"} {
		if !strings.Contains(string(log), want+"\n") {
			t.Errorf("gallery stage's log lacks %s:\n%s", want, log)
		}
	}
	if !strings.Contains(string(log), "/gallery]\n") {
		t.Errorf("gallery stage's -out is not a directory named gallery:\n%s", log)
	}
	tar, err := exec.Command("tar", "-tf", filepath.Join(out, "gallery.tar")).Output()
	if err != nil {
		t.Fatalf("tar -tf gallery.tar: %v", err)
	}
	if !strings.Contains(string(tar), "gallery/README.md") {
		t.Errorf("gallery.tar lists\n%s\nwant gallery/README.md", tar)
	}
}

// TestGPURunTestsReport runs gpu-run.sh's tests stage over stand-in test
// binaries that log NVRTC compiles and tests of several lengths, one
// package slower than the others, and checks OUTDIR/tests-report.txt: its
// header, the slowest packages, the slowest top-level tests (a parent as
// long as its longest subtest, its result printed before or after theirs;
// skips, subtests, tests that did not end and output lines left out), and the kernels compiled, in all and for the top programs.
func TestGPURunTestsReport(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	pkgs := map[string]string{"convolve": "convolve", "cudabind": "cudabind", "nvrtc": "cudabind/nvrtc",
		"kernels": "gpu/kernels", "variants": "gpu/variants", "userkernel": "gpu/userkernel",
		"properties": "properties"}
	for _, dir := range append([]string{"bin"}, slices.Collect(maps.Values(pkgs))...) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.org/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every stand-in is this script, which acts by the name it runs under.
	fake := `#!/bin/sh
p=$(basename "$0" .test)
c() { echo "nvrtc-compile $1 k.cu $2 $p" >>"$CONVBENCH_COMPILE_LOG"; }
case $p in
convolve)
  sleep 2
  cat <<'LOG'
=== RUN   TestC1
--- PASS: TestC1 (3.00s)
=== RUN   TestC2
    --- PASS: TestC2/x (0.40s)
--- PASS: TestC2 (0.50s)
--- SKIP: TestSkip (9.00s)
PASS
LOG
  ;;
variants)
  c 1.000 ok; c 2.000 ok; c 0.500 ok; c 0.250 error
  cat <<'LOG'
=== RUN   TestPar
--- PASS: TestPar (0.00s)
    --- PASS: TestPar/a (7.25s)
        --- PASS: TestPar/a/deep (7.00s)
    --- PASS: TestPar/b (1.00s)
=== RUN   TestSeq
    --- PASS: TestSeq/a (1.50s)
--- PASS: TestSeq (0.30s)
=== RUN   TestTimedOut
    --- PASS: TestTimedOut/a (30.00s)
    variants_test.go:9: --- PASS: TestFake (99.00s)
--- FAIL: TestBroken (2.00s)
FAIL
LOG
  exit 1 ;;
*)
  case $p in
  properties) c 1.500 ok; c 1.500 ok ;;
  kernels) c 0.800 ok ;;
  userkernel) c 0.600 ok ;;
  nvrtc) c 0.200 error; echo "nvrtc-compile 9.000 old.cu ok" >>"$CONVBENCH_COMPILE_LOG" ;;
  cudabind) c 0.100 ok ;;
  esac
  printf -- '--- PASS: TestX (0.01s)\n--- PASS: TestY (0.02s)\nPASS\n' ;;
esac
`
	for name := range pkgs {
		if err := os.WriteFile(filepath.Join(bin, name+".test"), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(root, "out")
	stdout, code := gpuRun(t, root, out, []string{"GPU_BIN=" + bin}, "tests")
	if code != 1 {
		t.Fatalf("gpu-run.sh over a failing test binary: exit status %d, want 1\n%s", code, stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "tests-report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	if !strings.Contains(string(stdout), report) {
		t.Errorf("the report was not printed; stdout:\n%s", stdout)
	}
	lines := strings.Split(report, "\n")
	if len(lines) < 9 || !strings.HasPrefix(lines[0], "# commit ") || !strings.HasPrefix(lines[1], "# command: ") ||
		lines[2] != "slowest packages:" || lines[8] != "slowest tests:" {
		t.Fatalf("tests-report.txt: want the commit and command lines, then the slowest packages, 5 of them, and tests:\n%s", report)
	}
	if first := strings.Fields(lines[3]); len(first) != 2 || first[1] != "example.org/m/convolve" || seconds(first[0]) < 2 {
		t.Errorf("slowest package %q, want example.org/m/convolve, 2s or more", lines[3])
	}
	for _, l := range lines[4:8] {
		if f := strings.Fields(l); len(f) != 2 || seconds(f[0]) < 0 || !strings.HasPrefix(f[1], "example.org/m/") {
			t.Errorf("slowest package line %q, want seconds and an import path", l)
		}
	}
	want := `slowest tests:
     7.25s  variants    TestPar
     3.00s  convolve    TestC1
     2.00s  variants    TestBroken
     1.50s  variants    TestSeq
     0.50s  convolve    TestC2
     0.02s  cudabind    TestY
     0.02s  kernels     TestY
     0.02s  nvrtc       TestY
     0.02s  properties  TestY
     0.02s  userkernel  TestY
kernels compiled: 10 in 8.45s (2 failed)
  variants    4 in 3.75s (1 failed)
  properties  2 in 3.00s
  kernels     1 in 0.80s
  userkernel  1 in 0.60s
  nvrtc       1 in 0.20s (1 failed)
`
	if got := strings.Join(lines[8:], "\n"); got != want {
		t.Errorf("tests-report.txt's tests and kernels:\n%s\nwant:\n%s", got, want)
	}
}

// seconds reads "12s" as 12, anything else as -1.
func seconds(s string) int {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "s"))
	if err != nil || !strings.HasSuffix(s, "s") {
		return -1
	}
	return n
}

// gpuRun runs gpu-run.sh OUT STAGE... in root with PATH=/usr/bin:/bin and
// env added, and returns its output and exit status. Reading the script
// first makes go test's cache depend on its contents.
func gpuRun(t *testing.T, root, out string, env []string, stages ...string) ([]byte, int) {
	t.Helper()
	script, err := filepath.Abs("gpu-run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(script); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{script, out}, stages...)...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "PATH=/usr/bin:/bin"), env...)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return b, 0
	case errors.As(err, &ee):
		return b, ee.ExitCode()
	}
	t.Fatalf("gpu-run.sh %v: %v\n%s", stages, err, b)
	return nil, -1
}
