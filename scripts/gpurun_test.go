// Package scripts holds tests of the shell scripts beside it.
package scripts

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
// writes there, and receives the TUNE_* settings (-case-timeout 2m when
// TUNE_CASE_TIMEOUT is unset); tune-props runs the
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
		"tune.log": {"arg[-variants]", "arg[gpu-regtile,gpu-tiled,gpu-sepfused]", "arg[-k]", "arg[3,21]", "arg[-sizes]", "arg[large]",
			"arg[-time]", "arg[100s]", "arg[-case-timeout]", "arg[2m]", "arg[-out]", "arg[" + tables + "]"},
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

// fakeSweep is a stand-in for the sweep command in the faults stage: it
// prints its arguments one a line, then writes a run file under -data
// with a line naming each -kernel's file, then a verdict line for each
// as the benchmarks write them: the
// correct kernel (no "// expect refusal: " line) proven, with -count
// result lines for each of its two cases, each broken one refused with
// the texts of its expect lines. FAKE_MODE changes that: "hang-proven"
// proves user-hang, "wrong-kind" refuses user-oob for wrong results, not
// as a crash, "short" gives the correct kernel a case with one line too
// few, "none" writes no file. It exits 1, as the sweep does when
// cases fail.
const fakeSweep = `#!/bin/bash
for a in "$@"; do echo "arg[$a]"; done
data=; count=1; kernels=()
while [ $# -gt 0 ]; do
  case $1 in -data) data=$2; shift ;; -count) count=$2; shift ;; -kernel) kernels+=("$2"); shift ;; esac
  shift
done
[ "$FAKE_MODE" = none ] && exit 1
mkdir -p "$data/fake-gpu"
{
  echo "cpu: Test CPU"
  for k in "${kernels[@]}"; do
    echo "# user kernel user-$(basename "$k" .cu): $k (sha256 0123456789abcdef), described in $k"
  done
  for k in "${kernels[@]}"; do
    n=user-$(basename "$k" .cu)
    if ! grep -q '^// expect refusal: ' "$k" || { [ "$FAKE_MODE" = hang-proven ] && [ $n = user-hang ]; }; then
      echo "# user kernel $n: passed the property suite; its 2 cases are timed"
      for c in gauss3 gauss5; do
        m=$count; [ "$FAKE_MODE" = short ] && [ $c = gauss5 ] && m=$((count-1))
        for i in $(seq $m); do echo "BenchmarkConv/variant=$n/size=512x512/filter=$c/type=f32 1 1000 ns/op"; done
      done
    elif [ "$FAKE_MODE" = wrong-kind ] && [ $n = user-oob ]; then
      echo "# user kernel $n: refused: failed the property suite (property agreement): CUDA_ERROR_ILLEGAL_ADDRESS; its 2 cases are not timed"
    else
      echo "# user kernel $n: $(sed -n 's|^// expect refusal: *||p' "$k" | paste -sd ' '); its 2 cases are not timed"
      echo "--- FAIL: BenchmarkConv/variant=$n/size=512x512/filter=gauss3/type=f32"
      echo "    bench_test.go:228: $n: not timed: refused"
    fi
  done
  echo "# fault crash of user-late, case variant=user-late/size=512x512: sticky CUDA error; reproduce alone: cd benchmarks && x"
} >"$data/fake-gpu/custom-1.txt"
exit 1
`

// TestGPURunFaultsStage runs the faults stage in this repository over a
// stand-in sweep: the sweep gets one run with every broken kernel of
// gpu/userkernel/testdata/broken beside examples/kernels/direct.cu, the
// prebuilt benchmark binary, a data folder under OUTDIR and the stage's
// limits; OUTDIR/faults-summary.txt says each kernel is as expected, or
// which is not, and the stage fails only then (the sweep's own exit
// status 1 is expected).
func TestGPURunFaultsStage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	broken, err := filepath.Glob(filepath.Join(root, "gpu", "userkernel", "testdata", "broken", "*.cu"))
	if err != nil || len(broken) != 6 {
		t.Fatalf("broken kernels %q (%v): want the 6 of gpu/userkernel/testdata/broken", broken, err)
	}
	kernels := append([]string{filepath.Join(root, "examples", "kernels", "direct.cu")}, broken...)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "sweep"), []byte(fakeSweep), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mode string
		code int
		want []string // lines of faults-summary.txt after its header, in order
	}{
		{"", 0, []string{
			"user-direct ok: proven; 2 cases, 2 result lines each",
			"user-hang ok: refused: hang: the property suite was still running after (-prove-timeout); its 2 cases are not timed",
			"user-oob ok: refused: crash: failed the property suite CUDA_ERROR_ILLEGAL_ADDRESS; its 2 cases are not timed",
			"user-shared ok: refused: failed the property suite CUDA_ERROR_INVALID_VALUE; its 2 cases are not timed",
			"user-threads ok: refused: failed the property suite CUDA_ERROR_INVALID_VALUE; its 2 cases are not timed",
			"user-trap ok: refused: crash: failed the property suite CUDA_ERROR_LAUNCH_FAILED; its 2 cases are not timed",
			"user-unwritten ok: refused: failed the property suite (property agreement) not written; its 2 cases are not timed",
			"# fault crash of user-late, case variant=user-late/size=512x512: sticky CUDA error; reproduce alone: cd benchmarks && x",
			"faults ok: 7 kernels as expected",
		}},
		{"hang-proven", 1, []string{
			"user-hang WRONG: want it refused, got: passed the property suite; its 2 cases are timed",
			"faults NOT OK: 1 of 7 kernels not as expected",
		}},
		{"wrong-kind", 1, []string{
			`user-oob WRONG: want a refusal that says "refused: crash: failed the property suite", got: refused: failed the property suite (property agreement): CUDA_ERROR_ILLEGAL_ADDRESS; its 2 cases are not timed`,
			"faults NOT OK: 1 of 7 kernels not as expected",
		}},
		{"short", 1, []string{
			"user-direct WRONG: want 2 result lines for each case and no failed case: 0 failed, 2 cases, 1 of them with 2 lines",
			"faults NOT OK: 1 of 7 kernels not as expected",
		}},
		{"none", 1, []string{
			"user-direct WRONG: want it proven, got: no verdict line",
			"user-oob WRONG: want it refused, got: no verdict line",
			"faults NOT OK: the sweep wrote no run file (see faults.log)",
		}},
	} {
		t.Run(cmp.Or(tt.mode, "as expected"), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			env := []string{"GPU_BIN=" + bin, "FAKE_MODE=" + tt.mode, "FAULTS_PROVE_TIMEOUT=90s", "CONVBENCH_CACHE_DIR=" + t.TempDir()}
			b, code := gpuRun(t, root, out, env, "faults")
			if code != tt.code {
				t.Errorf("exit status %d, want %d\n%s", code, tt.code, b)
			}
			sum, err := os.ReadFile(filepath.Join(out, "faults-summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(sum), "\n"), "\n")
			if !strings.HasPrefix(lines[0], "# commit ") {
				t.Errorf("faults-summary.txt's first line %q, want the commit", lines[0])
			}
			i := 1
			for _, w := range tt.want {
				for i < len(lines) && lines[i] != w {
					i++
				}
				if i == len(lines) {
					t.Errorf("faults-summary.txt lacks, in order, %q:\n%s", w, sum)
					break
				}
			}
			all, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
			if last := tt.want[len(tt.want)-1]; !strings.Contains(string(all), last+"\n") {
				t.Errorf("summary.txt lacks %q:\n%s", last, all)
			}
			if tt.mode != "" {
				return
			}
			log, err := os.ReadFile(filepath.Join(out, "faults.log"))
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			for _, l := range strings.Split(string(log), "\n") {
				if a, ok := strings.CutPrefix(l, "arg["); ok {
					args = append(args, strings.TrimSuffix(a, "]"))
				}
			}
			want := []string{"-bin", filepath.Join(bin, "benchmarks.test"), "-data", filepath.Join(out, "faults"),
				"-variants", "user-.*", "-sizes", "512x512", "-filters", "gauss3,gauss5", "-types", "f32", "-count", "2",
				"-max-time", "0.5s", "-case-timeout", "20s", "-prove-timeout", "90s"}
			for _, k := range kernels {
				want = append(want, "-kernel", k)
			}
			if !slices.Equal(args, want) {
				t.Errorf("the sweep's arguments\n%q\nwant one run over every kernel\n%q", args, want)
			}
		})
	}
}

// fakeSanitizer is a stand-in for compute-sanitizer. It appends
// "CUDA_VISIBLE_DEVICES|its arguments" to $SANLOG; holds a folder
// $LOCKS/G for each GPU G it was given while it runs, noting in
// $OVERLAPS a GPU whose folder another process holds and in $BUSY how
// many GPUs are held as it starts; runs the program after its options
// with FAKE_TOOL set to its tool; takes 1.1 s (memcheck) or 0.3 s (the
// others); and ends as the real tool does. Its
// summary is clean, with 100 bytes leaked (memcheck) and 3 hazards, all
// warnings (racecheck), except where FAKE_SAN is "dirty" and the program
// ran gpu-tiled or auto: then memcheck reports 1460 errors (one printed,
// a CUDA API error), racecheck 1 error and 4 warnings in 5 hazards (exit
// 3 for both), synccheck is clean, and initcheck, where it ran gpu-tiled,
// prints no summary.
const fakeSanitizer = `#!/bin/bash
echo "${CUDA_VISIBLE_DEVICES:-}|$*" >>"$SANLOG"
tool=
while [ $# -gt 0 ]; do
  case $1 in
  --tool) tool=$2; shift 2 ;;
  --leak-check|--error-exitcode|--print-limit) shift 2 ;;
  --*) shift ;;
  *) break ;;
  esac
done
gpus=${CUDA_VISIBLE_DEVICES//,/ }
for g in $gpus; do mkdir "$LOCKS/$g" 2>/dev/null || echo "GPU $g" >>"$OVERLAPS"; done
ls "$LOCKS" | wc -l >>"$BUSY"
echo "========= COMPUTE-SANITIZER"
ran=$(FAKE_TOOL=$tool "$@")
echo "$ran"
# A memcheck job lasts a second or more, others less.
case $tool in memcheck) sleep 1.1 ;; *) sleep 0.3 ;; esac
for g in $gpus; do rmdir "$LOCKS/$g"; done
mode=clean
case $ran in
*"TestProperties/gpu-tiled "*) mode=$FAKE_SAN ;;
*"TestProperties/auto "*) [ "$tool" = initcheck ] || mode=$FAKE_SAN ;;
esac
case $tool in memcheck) echo "========= LEAK SUMMARY: 100 bytes leaked in 1 allocations" ;; esac
case $mode:$tool in
clean:racecheck) echo "========= RACECHECK SUMMARY: 3 hazards displayed (0 errors, 3 warnings)" ;;
clean:*|dirty:synccheck) echo "========= ERROR SUMMARY: 0 errors" ;;
dirty:memcheck)
  echo '========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuFuncGetParamInfo.'
  echo "========= ERROR SUMMARY: 1460 errors"
  echo "========= ERROR SUMMARY: 1459 errors were not printed. Use --print-limit option to adjust the number of printed errors"
  exit 3 ;;
dirty:racecheck) echo "========= RACECHECK SUMMARY: 5 hazards displayed (1 error, 4 warnings)"; exit 3 ;;
esac
`

// fakeVariants are the variants fakeProperties knows: gpu-v1.5's dot
// must be quoted, or a shard's pattern also selects gpu-v1x5.
var fakeVariants = []string{"auto", "auto-bf16", "cpu-fast", "cudnn", "gpu-naive", "gpu-slab2", "gpu-slab4",
	"gpu-stream", "gpu-tiled", "gpu-v1.5", "gpu-v1x5", "npp", "npp-interior"}

// fakeProperties is a stand-in for the properties test binary over
// fakeVariants: with -props.list it prints those -props.variant selects,
// one a line (exit status 1 when none), else it prints its folder, and a
// passing subtest of TestProperties for each, noting
// "$FAKE_TOOL $CUDA_VISIBLE_DEVICES VARIANT" in $COVER.
var fakeProperties = `#!/bin/bash
list=; re=
for a; do case $a in -props.list) list=1 ;; -props.variant=*) re=${a#*=} ;; esac; done
sel=$(printf '%s\n' ` + strings.Join(fakeVariants, " ") + ` | grep -E -- "$re")
if [ -n "$list" ]; then
  [ -n "$sel" ] || { echo "-props.variant=\"$re\" matches none of the registered variants" >&2; exit 1; }
  echo "$sel"; exit 0
fi
echo "pwd[$(pwd)]"
echo "=== RUN   TestProperties"
for n in $sel; do echo "    --- PASS: TestProperties/$n (0.00s)"; echo "$FAKE_TOOL ${CUDA_VISIBLE_DEVICES:-} $n" >>"$COVER"; done
echo "--- PASS: TestProperties (0.00s)"
echo PASS
`

// seconds of the sanitizer summaries' lines, which read 0 or 1 over the
// stand-ins.
var (
	secs  = regexp.MustCompile(`\b(secs|wall-s)=[0-9]+\b`)
	field = regexp.MustCompile(`^(\S+)\s+rc=(\d+) errors=(\S+) api-errors=(\d+) passed=(\d+) failed=(\d+) secs=(\d+) `)
)

// TestGPURunSanitizers runs the sanitizer stages over a stand-in
// compute-sanitizer, properties test binary and nvidia-smi. Each stage
// lists its variants, deals them into shards and runs each tool over
// each shard as one process, with its default options (no
// --report-api-errors), one variant at a time, on one GPU
// (sanitizers-slabs: a pair of GPUs) named by CUDA_VISIBLE_DEVICES:
// every GPU gets jobs, none runs two at once, and every variant is in
// one shard of each tool. Each job's log starts with its command;
// OUTDIR/NAME-shards.txt has a line a job and OUTDIR/NAME-summary.txt a
// line a tool, summing its jobs' figures, and the verdict, NOT OK where
// a shard had errors or no summary. A stage that cannot run says why.
func TestGPURunSanitizers(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	root, bin, path := filepath.Join(dir, "root"), filepath.Join(dir, "bin"), filepath.Join(dir, "path")
	for _, d := range []string{filepath.Join(root, "properties"), bin, path} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for file, text := range map[string]string{
		filepath.Join(path, "compute-sanitizer"): fakeSanitizer,
		filepath.Join(path, "nvidia-smi"): "#!/bin/sh\ncase \"$*\" in\n-L) i=0; while [ $i -lt $FAKE_GPUS ]; do echo \"GPU $i: NVIDIA H100 80GB HBM3 (UUID: GPU-$i)\"; i=$((i+1)); done ;;\n" +
			"*) echo 'NVIDIA H100 80GB HBM3, 580.159.04' ;;\nesac\n",
		filepath.Join(bin, "properties.test"): fakeProperties,
	} {
		if err := os.WriteFile(file, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const gpuRE, slabRE = "^(gpu-|npp|cudnn|auto$|auto-bf16$)", "^gpu-(slab|stream)"
	all := []string{"memcheck", "racecheck", "synccheck", "initcheck"}
	for _, tt := range []struct {
		name, stage, san string
		gpus             int
		env              []string
		code             int
		re               string   // the variants the stage covers
		tools            []string // the tools it runs
		slots            []string // the CUDA_VISIBLE_DEVICES values of its jobs
		shards           int      // shards a tool
		want             []string // lines of the summary after its header, secs and wall-s 0
		refusal          string   // the line of summary.txt of a stage that did not run
	}{
		{
			name: "two tools on 4 GPUs", stage: "sanitizers", san: "clean", gpus: 4,
			env: []string{"SAN_TOOLS=memcheck racecheck"}, re: gpuRE, tools: []string{"memcheck", "racecheck"},
			slots: []string{"0", "1", "2", "3"}, shards: 4, want: []string{
				"memcheck  rc=0 errors=0 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-memcheck-shard*.log leaked-bytes=400",
				"racecheck rc=0 errors=0 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-racecheck-shard*.log hazards=12 warnings=12",
				"sanitizers ok: 2 tools, 0 errors",
			},
		},
		{
			name: "a dirty shard a tool", stage: "sanitizers", san: "dirty", gpus: 4, code: 1,
			re: gpuRE, tools: all, slots: []string{"0", "1", "2", "3"}, shards: 4, want: []string{
				"memcheck  rc=3 errors=2920 api-errors=2 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-memcheck-shard*.log leaked-bytes=400",
				"racecheck rc=3 errors=2 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-racecheck-shard*.log hazards=16 warnings=14",
				"synccheck rc=0 errors=0 api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-synccheck-shard*.log",
				"initcheck rc=0 errors=missing api-errors=0 passed=16 failed=0 secs=0 wall-s=0 shards=4 log=sanitizers-initcheck-shard*.log",
				"sanitizers NOT OK: memcheck (rc=3 errors=2920 failed=0), racecheck (rc=3 errors=2 failed=0), initcheck (rc=0 errors=missing failed=0)",
			},
		},
		{
			name: "3 shards on GPUs 1 and 3", stage: "sanitizers", san: "clean", gpus: 4,
			env: []string{"SAN_GPUS=3,1", "SAN_SHARDS=3", "SAN_TOOLS=initcheck"}, re: gpuRE, tools: []string{"initcheck"},
			slots: []string{"3", "1"}, shards: 3, want: []string{
				"initcheck rc=0 errors=0 api-errors=0 passed=15 failed=0 secs=0 wall-s=0 shards=3 log=sanitizers-initcheck-shard*.log",
				"sanitizers ok: 1 tools, 0 errors",
			},
		},
		{
			name: "the former name on one GPU", stage: "props-sanitizers", san: "clean", gpus: 1,
			env: []string{"SAN_TOOLS=synccheck"}, re: gpuRE, tools: []string{"synccheck"},
			slots: []string{"0"}, shards: 1, want: []string{
				"synccheck rc=0 errors=0 api-errors=0 passed=13 failed=0 secs=0 wall-s=0 shards=1 log=sanitizers-synccheck-shard*.log",
				"sanitizers ok: 1 tools, 0 errors",
			},
		},
		{
			name: "slabs on 4 GPUs", stage: "sanitizers-slabs", san: "clean", gpus: 4,
			re: slabRE, tools: all, slots: []string{"0,1", "2,3"}, shards: 2, want: []string{
				"memcheck  rc=0 errors=0 api-errors=0 passed=5 failed=0 secs=0 wall-s=0 shards=2 log=sanitizers-slabs-memcheck-shard*.log leaked-bytes=200",
				"sanitizers-slabs ok: 4 tools, 0 errors",
			},
		},
		{
			name: "slabs on 3 GPUs, more shards than variants", stage: "sanitizers-slabs", san: "clean", gpus: 3,
			env: []string{"SAN_TOOLS=memcheck", "SAN_SHARDS=5"}, re: slabRE, tools: []string{"memcheck"}, slots: []string{"0,1"}, shards: 3, want: []string{
				"memcheck  rc=0 errors=0 api-errors=0 passed=6 failed=0 secs=0 wall-s=0 shards=3 log=sanitizers-slabs-memcheck-shard*.log leaked-bytes=300",
				"sanitizers-slabs ok: 1 tools, 0 errors",
			},
		},
		{
			name: "slabs on one GPU", stage: "sanitizers-slabs", gpus: 1, code: 1,
			refusal: "sanitizers-slabs NOT OK: needs 2 GPUs or more, nvidia-smi -L lists 1: not run",
		},
		{
			name: "slabs on one GPU of SAN_GPUS", stage: "sanitizers-slabs", gpus: 4, env: []string{"SAN_GPUS=2"}, code: 1,
			refusal: "sanitizers-slabs NOT OK: needs 2 GPUs or more, SAN_GPUS=2 names 1: not run",
		},
		{
			name: "no GPU", stage: "sanitizers", gpus: 0, code: 1,
			refusal: "sanitizers NOT OK: needs a GPU, nvidia-smi -L lists 0: not run",
		},
		{
			name: "SAN_GPUS not indices", stage: "sanitizers", gpus: 4, env: []string{"SAN_GPUS=0,x"}, code: 1,
			refusal: "sanitizers NOT OK: SAN_GPUS=0,x: x is not a GPU index",
		},
		{
			name: "SAN_GPUS naming a GPU twice", stage: "sanitizers", gpus: 4, env: []string{"SAN_GPUS=0,1,0"}, code: 1,
			refusal: "sanitizers NOT OK: SAN_GPUS=0,1,0 names a GPU twice",
		},
		{
			name: "SAN_SHARDS not a count", stage: "sanitizers", gpus: 4, env: []string{"SAN_SHARDS=0"}, code: 1,
			refusal: "sanitizers NOT OK: SAN_SHARDS=0: want a count of shards, 1 or more",
		},
		{
			name: "a tool misnamed", stage: "sanitizers", gpus: 4, env: []string{"SAN_TOOLS=memchek"}, code: 1,
			refusal: "sanitizers NOT OK: SAN_TOOLS names memchek: want memcheck, racecheck, synccheck or initcheck",
		},
		{
			name: "no variant", stage: "sanitizers", gpus: 4, env: []string{"SAN_VARIANT=^none$"}, code: 1,
			refusal: `sanitizers NOT OK: (cd properties && ` + filepath.Join(bin, "properties.test") + ` -props.list '-props.variant=^none$') exited 1, listing no variant: -props.variant="^none$" matches none of the registered variants`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, tmp := filepath.Join(t.TempDir(), "out"), t.TempDir()
			sanlog, cover, overlaps, busy, locks := filepath.Join(tmp, "san.log"), filepath.Join(tmp, "cover"),
				filepath.Join(tmp, "overlaps"), filepath.Join(tmp, "busy"), filepath.Join(tmp, "locks")
			if err := os.Mkdir(locks, 0o755); err != nil {
				t.Fatal(err)
			}
			env := append([]string{"PATH=" + path + ":/usr/bin:/bin", "GPU_BIN=" + bin, "SANLOG=" + sanlog, "COVER=" + cover,
				"OVERLAPS=" + overlaps, "BUSY=" + busy, "LOCKS=" + locks, "FAKE_SAN=" + tt.san, "FAKE_GPUS=" + strconv.Itoa(tt.gpus)}, tt.env...)
			b, code := gpuRun(t, root, out, env, tt.stage)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\n%s", code, tt.code, b)
			}
			calls, _ := os.ReadFile(sanlog)
			summary, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
			if tt.refusal != "" {
				if len(calls) != 0 {
					t.Errorf("compute-sanitizer ran:\n%s", calls)
				}
				if !strings.Contains(string(summary), "\n"+tt.refusal+"\n") {
					t.Errorf("summary.txt lacks %q:\n%s", tt.refusal, summary)
				}
				return
			}
			name := strings.TrimPrefix(tt.stage, "props-")

			// The jobs: a process a tool and shard, each on a slot's GPUs,
			// every slot used, no GPU running two at once, and more than
			// one running at once where there are several slots.
			var lines []string
			if s := strings.TrimSuffix(string(calls), "\n"); s != "" {
				lines = strings.Split(s, "\n")
			}
			if len(lines) != len(tt.tools)*tt.shards {
				t.Errorf("compute-sanitizer ran %d times, want %d (%d tools, %d shards):\n%s", len(lines), len(tt.tools)*tt.shards, len(tt.tools), tt.shards, calls)
			}
			arg := regexp.MustCompile(`^--tool (\w+) (--leak-check full )?--error-exitcode 3 ` + regexp.QuoteMeta(filepath.Join(bin, "properties.test")) +
				` -test\.v -test\.short -test\.parallel 1 -test\.timeout 10m -props\.variant=\^\((.*)\)\$ -props\.n=5$`)
			used := map[string]bool{}
			for _, l := range lines {
				dev, args, _ := strings.Cut(l, "|")
				m := arg.FindStringSubmatch(args)
				if m == nil || !slices.Contains(tt.slots, dev) || (m[1] == "memcheck") != (m[2] != "") {
					t.Errorf("compute-sanitizer ran on CUDA_VISIBLE_DEVICES=%q with %q, want a slot of %q, the flags of the short suite and an anchored alternation of variants", dev, args, tt.slots)
				}
				used[dev] = true
			}
			if got := slices.Sorted(maps.Keys(used)); !slices.Equal(got, slices.Sorted(slices.Values(tt.slots))) {
				t.Errorf("the jobs ran on CUDA_VISIBLE_DEVICES %q, want each of %q", got, tt.slots)
			}
			if o, _ := os.ReadFile(overlaps); len(o) != 0 {
				t.Errorf("two jobs ran at once on one GPU:\n%s", o)
			}
			if len(tt.slots) > 1 {
				most := 0
				bs, _ := os.ReadFile(busy)
				for _, f := range strings.Fields(string(bs)) {
					n, _ := strconv.Atoi(f)
					most = max(most, n)
				}
				if per := strings.Count(tt.slots[0], ",") + 1; most <= per {
					t.Errorf("at most %d GPUs busy at once, want the jobs of more than one slot at once", most)
				}
			}

			// Every variant of the stage in one shard of each tool.
			cv, _ := os.ReadFile(cover)
			ran := map[string]int{}
			for _, l := range strings.Split(strings.TrimSpace(string(cv)), "\n") {
				if f := strings.Fields(l); len(f) == 3 {
					ran[f[0]+" "+f[2]]++
				} else {
					t.Errorf("a variant ran on no GPU: %q", l)
				}
			}
			want := map[string]int{}
			for _, tool := range tt.tools {
				for _, v := range fakeVariants {
					if regexp.MustCompile(tt.re).MatchString(v) {
						want[tool+" "+v] = 1
					}
				}
			}
			if !maps.Equal(ran, want) {
				t.Errorf("tool and variant: times run\n%v\nwant each once\n%v", ran, want)
			}

			// Each job's log starts with its command, CUDA_VISIBLE_DEVICES
			// included, and runs in properties/.
			for _, tool := range tt.tools {
				for s := range tt.shards {
					file := name + "-" + tool + "-shard" + strconv.Itoa(s) + ".log"
					log, err := os.ReadFile(filepath.Join(out, file))
					if err != nil {
						t.Error(err)
						continue
					}
					head := strings.SplitN(string(log), "\n", 4)
					if len(head) < 4 || !strings.HasPrefix(head[0], "# commit unknown, gpu: ") ||
						!regexp.MustCompile(`^# command: \(cd properties && CUDA_VISIBLE_DEVICES=[0-9,]+ compute-sanitizer --tool `+tool+` .* '-props\.variant=\^\(.*\)\$' -props\.n=5\)$`).MatchString(head[1]) ||
						!strings.Contains(head[3], "pwd["+filepath.Join(root, "properties")+"]") {
						t.Errorf("%s does not start with its command and run in properties/:\n%s", file, log)
					}
				}
			}

			// The summary: a line a tool, its figures the sums of its
			// shards' lines, then the verdict, also in summary.txt.
			sum, err := os.ReadFile(filepath.Join(out, name+"-summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(string(sum), "\n"), "\n")
			if !strings.HasPrefix(got[0], "# commit unknown, gpu: NVIDIA H100 80GB HBM3, 580.159.04; "+name+": compute-sanitizer over the property suite of "+tt.re+" ") {
				t.Errorf("%s-summary.txt's header %q", name, got[0])
			}
			if len(got) != len(tt.tools)+2 {
				t.Errorf("%s-summary.txt has %d lines, want the header, %d tools' and the verdict:\n%s", name, len(got), len(tt.tools), sum)
			}
			zeroed := strings.Split(secs.ReplaceAllString(strings.Join(got, "\n"), "${1}=0"), "\n")
			for _, w := range tt.want {
				if !slices.Contains(zeroed[1:], w) {
					t.Errorf("%s-summary.txt lacks %q:\n%s", name, w, sum)
				}
			}
			if v, w := got[len(got)-1], tt.want[len(tt.want)-1]; v != w || !strings.Contains(string(summary), "\n"+v+"\n") {
				t.Errorf("verdict %q, want %q last in %s-summary.txt and in summary.txt:\n%s", v, w, name, summary)
			}
			shards, err := os.ReadFile(filepath.Join(out, name+"-shards.txt"))
			if err != nil {
				t.Fatal(err)
			}
			type figures struct{ n, passed, failed, secs int }
			per := map[string]figures{}
			for _, l := range strings.Split(strings.TrimSpace(string(shards)), "\n")[1:] {
				m := field.FindStringSubmatch(l)
				if m == nil || !strings.Contains(l, " cuda-visible-devices=") || !strings.Contains(l, " variants=") {
					t.Errorf("%s-shards.txt line %q, want a job's summary, its GPUs and its variants", name, l)
					continue
				}
				f := per[m[1]]
				f.n++
				f.passed += atoi(m[5])
				f.failed += atoi(m[6])
				f.secs += atoi(m[7])
				per[m[1]] = f
			}
			for _, l := range got[1 : len(got)-1] {
				m := field.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("%s-summary.txt line %q, want a tool's summary", name, l)
					continue
				}
				if f, w := per[m[1]], (figures{tt.shards, atoi(m[5]), atoi(m[6]), atoi(m[7])}); f != w {
					t.Errorf("%s: shards, passed, failed and secs of %s-shards.txt %v, want those of the summary's line %v", m[1], name, f, w)
				}
				if m[1] == "memcheck" && atoi(m[7]) < tt.shards {
					t.Errorf("memcheck's secs=%s, want the sum of %d jobs of a second or more", m[7], tt.shards)
				}
			}
			if !strings.Contains(string(summary), name+": "+got[1]+"\n") {
				t.Errorf("summary.txt lacks %q:\n%s", name+": "+got[1], summary)
			}
			if strings.Contains(string(calls), "report-api-errors") {
				t.Errorf("compute-sanitizer ran with --report-api-errors:\n%s", calls)
			}
		})
	}
}

// atoi reads a count of a summary line.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// fakeNCU is a stand-in for ncu: it prints its arguments one a line and
// ncu's "==PROF==" lines, runs the program its options end at (the first
// argument that is not an option or an option's value), and then prints
// a CSV details page of two kernels, three launches, as ncu --csv --page
// details does, with the program's output before it and a line of it
// among the rows. With FAKE_NCU=none it profiles no launch.
const fakeNCU = `#!/bin/bash
for a in "$@"; do echo "arg[$a]"; done
while [ $# -gt 0 ]; do
  case $1 in
  --clock-control|--section|--metrics|--page|--launch-skip|--launch-count|-k) shift 2 ;;
  -*) shift ;;
  *) break ;;
  esac
done
echo "==PROF== Connected to process 4242 ($1)"
"$@"
rc=$?
echo "==PROF== Disconnected from process 4242"
if [ "$FAKE_NCU" = none ]; then echo "==WARNING== No kernels were profiled."; exit $rc; fi
h='"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
echo "$h"
row() { echo "\"$1\",\"4242\",\"benchmarks.test\",\"127.0.0.1\",\"$2\",\"1\",\"7\",\"(16, 16, 1)\",\"(256, 256, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"$3\",\"$4\",\"$5\""; }
k='void conv<float, 11>(const float *, float *, int)'
for id in 0 1; do
  row $id "$k" Duration usecond 1,100.4
  row $id "$k" "Compute (SM) Throughput" % 71.5
  row $id "$k" "Memory Throughput" % 40.25
  row $id "$k" "DRAM Throughput" % 40.25
done
echo "[benchmarks] a line of the program's among the rows"
row 2 'flush_l2(int *)' Duration usecond 5.5
row 2 'flush_l2(int *)' "Compute (SM) Throughput" % 3.5
row 2 'flush_l2(int *)' "Memory Throughput" % 60
row 2 'flush_l2(int *)' "L2 Cache Throughput" % 60
exit $rc
`

// TestGPURunNCUStage runs the ncu stage over a stand-in ncu and benchmark
// binary, with the real ncusum built into the folder of binaries, and
// checks: ncu's command line (clocks left alone, the SpeedOfLight
// section as CSV of the details page, the launch options, the kernel
// regex, the benchmark binary run once over NCU_BENCH's cases from
// benchmarks/ with a short -max-time, NCU_ARGS after), the CSV in
// OUTDIR/ncu-NAME.csv after the commit and command lines, ncusum's table
// in OUTDIR/ncu-NAME.md and the stage's lines in summary.txt. Without
// NCU_BENCH, without ncu on PATH, or when ncu profiles no launch, the
// stage says NOT OK and fails.
func TestGPURunNCUStage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build ncusum")
	}
	dir := t.TempDir()
	root, bin, path := filepath.Join(dir, "root"), filepath.Join(dir, "bin"), filepath.Join(dir, "path")
	for _, d := range []string{filepath.Join(root, "benchmarks"), bin, path} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command(goCmd, "build", "-o", filepath.Join(bin, "ncusum"), "./results/cmd/ncusum")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./results/cmd/ncusum: %v\n%s", err, b)
	}
	for file, text := range map[string]string{
		filepath.Join(path, "ncu"):            fakeNCU,
		filepath.Join(bin, "benchmarks.test"): "#!/bin/sh\necho \"pwd[$(pwd)]\"\necho 'BenchmarkConv/variant=gpu-regtile/size=4096x4096 1 2200000 ns/op'\necho PASS\n",
	} {
		if err := os.WriteFile(file, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const bench = "BenchmarkConv/variant=gpu-regtile/size=4096x4096/filter=dense11/"
	withNCU := "PATH=" + path + ":/usr/bin:/bin"
	for _, tt := range []struct {
		name    string
		env     []string
		code    int
		args    []string // ncu's arguments, in order; nil where ncu must not run
		summary []string // lines of summary.txt, its seconds 0
	}{
		{
			name: "defaults", env: []string{withNCU, "NCU_BENCH=" + bench},
			args: []string{"--clock-control", "none", "--section", "SpeedOfLight", "--csv", "--page", "details",
				"--launch-skip", "2", "--launch-count", "3", filepath.Join(bin, "benchmarks.test"),
				"-test.run", "^$", "-test.bench", bench, "-test.benchtime", "1x", "-test.count", "1", "-test.cpu", "1",
				"-test.timeout", "0", "-max-time=20ms"},
			summary: []string{
				"ncu-a                        rc=0 passed=0 failed=0 skipped=0 0s ",
				"ncu-a ok: 2 kernels, 3 launches profiled; table in ncu-a.md",
			},
		},
		{
			name: "settings", env: []string{withNCU, "NCU_BENCH=" + bench, "NCU_SKIP=0", "NCU_COUNT=10",
				"NCU_KERNEL=conv|regtile", "NCU_MAX_TIME=5ms", "NCU_ARGS=-variants gpu-regtile -sizes 4096x4096",
				"NCU_SECTIONS=ComputeWorkloadAnalysis InstructionStats", "NCU_METRICS=m.a,m.b"},
			args: []string{"--clock-control", "none", "--section", "SpeedOfLight", "--csv", "--page", "details",
				"--launch-skip", "0", "--launch-count", "10", "-k", "regex:conv|regtile",
				"--section", "ComputeWorkloadAnalysis", "--section", "InstructionStats", "--metrics", "m.a,m.b", filepath.Join(bin, "benchmarks.test"),
				"-test.run", "^$", "-test.bench", bench, "-test.benchtime", "1x", "-test.count", "1", "-test.cpu", "1",
				"-test.timeout", "0", "-max-time=5ms", "-variants", "gpu-regtile", "-sizes", "4096x4096"},
			summary: []string{"ncu-a ok: 2 kernels, 3 launches profiled; table in ncu-a.md"},
		},
		{
			name: "no launch profiled", env: []string{withNCU, "NCU_BENCH=" + bench, "FAKE_NCU=none"}, code: 1,
			args: []string{"--clock-control", "none", "--section", "SpeedOfLight", "--csv", "--page", "details",
				"--launch-skip", "2", "--launch-count", "3", filepath.Join(bin, "benchmarks.test"),
				"-test.run", "^$", "-test.bench", bench, "-test.benchtime", "1x", "-test.count", "1", "-test.cpu", "1",
				"-test.timeout", "0", "-max-time=20ms"},
			summary: []string{"ncu-a NOT OK: ncusum: ncu-a.csv: no kernel launch found: no CSV header row starting with \"ID\" (ncu --csv --page details writes one)"},
		},
		{
			name: "no NCU_BENCH", env: []string{withNCU}, code: 1,
			summary: []string{"ncu-a NOT OK: NCU_BENCH is empty: set it to a -test.bench regex naming the cases to profile, such as '" + bench + "'; not run"},
		},
		{
			name: "no ncu", env: []string{"NCU_BENCH=" + bench}, code: 1,
			summary: []string{"ncu-a NOT OK: ncu is not on PATH; not run"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "no ncu" {
				if p, err := exec.LookPath("/usr/bin/ncu"); err == nil {
					t.Skipf("%s is on the script's PATH", p)
				}
				if p, err := exec.LookPath("/bin/ncu"); err == nil {
					t.Skipf("%s is on the script's PATH", p)
				}
			}
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tt.name, " ", "-"))
			b, code := gpuRun(t, root, out, append([]string{"GPU_BIN=" + bin}, tt.env...), "ncu:a")
			if code != tt.code {
				t.Fatalf("gpu-run.sh ncu:a: exit status %d, want %d\n%s", code, tt.code, b)
			}
			summary, err := os.ReadFile(filepath.Join(out, "summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(regexp.MustCompile(` [0-9]+s `).ReplaceAllString(string(summary), " 0s "), "\n")
			for _, w := range tt.summary {
				if !slices.Contains(lines, w) {
					t.Errorf("summary.txt lacks %q:\n%s", w, summary)
				}
			}
			if tt.code != 0 && !strings.Contains(string(summary), "1 stage command(s) failed") {
				t.Errorf("summary.txt does not count the failed stage:\n%s", summary)
			}
			csv, err := os.ReadFile(filepath.Join(out, "ncu-a.csv"))
			if tt.args == nil {
				if err == nil {
					t.Errorf("the stage ran ncu:\n%s", csv)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			log := strings.Split(string(csv), "\n")
			if !strings.HasPrefix(log[0], "# commit ") ||
				!strings.HasPrefix(log[1], "# command: (cd benchmarks && ncu --clock-control none --section SpeedOfLight --csv --page details ") ||
				!strings.Contains(log[1], " -test.run '^$' -test.bench "+bench+" ") {
				t.Errorf("ncu-a.csv does not start with the commit and the command, quoted:\n%s\n%s", log[0], log[1])
			}
			var args []string
			for _, l := range log {
				if a, ok := strings.CutPrefix(l, "arg["); ok {
					args = append(args, strings.TrimSuffix(a, "]"))
				}
			}
			if !slices.Equal(args, tt.args) {
				t.Errorf("ncu's arguments\n%q\nwant\n%q", args, tt.args)
			}
			if !slices.Contains(log, "pwd["+filepath.Join(root, "benchmarks")+"]") {
				t.Errorf("the benchmark binary did not run in benchmarks/:\n%s", csv)
			}
			if tt.code != 0 {
				if _, err := os.Stat(filepath.Join(out, "ncu-a.md")); err == nil {
					t.Errorf("a failed stage left ncu-a.md")
				}
				return
			}
			md, err := os.ReadFile(filepath.Join(out, "ncu-a.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{
				"\nncu-a.csv: 3 launches of 2 kernels.\n",
				"| `void conv<float, 11>(const float *, float *, int)` | (16, 16, 1) | (256, 256, 1) | 2 | 1100 | 2201 | 71.5 | 40.2 | 40.2 |  |  | compute (SM) | 71.5 |\n",
				"| `flush_l2(int *)` | (16, 16, 1) | (256, 256, 1) | 1 | 5.50 | 5.50 | 3.50 | 60.0 |  |  | 60.0 | memory (L2) | 60.0 |\n",
			} {
				if !strings.Contains(string(md), w) {
					t.Errorf("ncu-a.md lacks %q:\n%s", w, md)
				}
			}
		})
	}
}

// fakeShardSweep is a stand-in for the sweep command in the shards stage:
// with -shard K/N it writes DATA/fake-gpu/PRESET.shard-K-of-N.txt, a line
// naming its shard and CUDA_VISIBLE_DEVICES (FAKE_FAIL=K makes shard K
// fail instead); with -merge it writes the files it is given, in order,
// into PRESET.txt beside them and removes them.
const fakeShardSweep = `#!/bin/bash
echo "args: $*"
if [ "$1" = -merge ]; then
  shift
  dir=$(dirname "$1"); name=$(basename "$1"); name=${name%%.shard-*}
  cat "$@" >"$dir/$name.txt" && rm "$@"
  exit
fi
data=; preset=; shard=
while [ $# -gt 0 ]; do
  case $1 in -data) data=$2; shift ;; -sweep=*) preset=${1#-sweep=} ;; -shard) shard=$2; shift ;; esac
  shift
done
k=${shard%/*} n=${shard#*/}
[ "$FAKE_FAIL" = "$k" ] && { echo "shard $k failed"; exit 1; }
mkdir -p "$data/fake-gpu"
echo "shard $k of $n on CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES" >"$data/fake-gpu/$preset.shard-$k-of-$n.txt"
`

// TestGPURunShardsStage runs the shards stage over a stand-in sweep: one
// sweep a GPU of SHARD_GPUS, each with its GPU and its shard, then one
// merge of their files into the preset's run. A shard that fails fails
// the stage, and the merge is given only the files the others wrote (the
// real sweep -merge then refuses, naming the shard missing; the stand-in
// joins what it is given, which shows what that was).
func TestGPURunShardsStage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, tt := range []struct {
		name string
		env  []string
		code int
		want []string // lines of OUTDIR/data/fake-gpu/roofline.txt
	}{
		{"three GPUs", []string{"SHARD_GPUS=2,5,7"}, 0, []string{
			"shard 1 of 3 on CUDA_VISIBLE_DEVICES=2", "shard 2 of 3 on CUDA_VISIBLE_DEVICES=5", "shard 3 of 3 on CUDA_VISIBLE_DEVICES=7"}},
		{"a shard fails", []string{"SHARD_GPUS=0,1", "FAKE_FAIL=2"}, 1, []string{"shard 1 of 2 on CUDA_VISIBLE_DEVICES=0"}},
		{"the second half of 4 shards", []string{"SHARD_GPUS=0,1", "SHARDS=4", "SHARD_FIRST=3"}, 0, nil},
		{"shards past the count", []string{"SHARD_GPUS=0,1", "SHARDS=4", "SHARD_FIRST=4"}, 1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			bin := filepath.Join(root, "bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, "sweep"), []byte(fakeShardSweep), 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(root, "out")
			b, code := gpuRun(t, root, out, append([]string{"GPU_BIN=" + bin, "COUNT=6"}, tt.env...), "shards:roofline")
			if code != tt.code {
				t.Fatalf("gpu-run.sh shards:roofline: exit status %d, want %d\n%s", code, tt.code, b)
			}
			if tt.want == nil {
				// Not all shards here: no merge, and a line saying so.
				if _, err := os.Stat(filepath.Join(out, "data", "fake-gpu", "roofline.txt")); !os.IsNotExist(err) {
					t.Errorf("a merged run without every shard (%v)", err)
				}
				summary, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
				switch {
				case code == 0:
					for _, k := range []string{"3", "4"} {
						if _, err := os.Stat(filepath.Join(out, "data", "fake-gpu", "roofline.shard-"+k+"-of-4.txt")); err != nil {
							t.Errorf("shard %s of 4: %v", k, err)
						}
					}
					if !strings.Contains(string(summary), "shards 3 to 4 of 4 run here") {
						t.Errorf("summary.txt does not say to merge later:\n%s", summary)
					}
				case !strings.Contains(string(summary), "shards-roofline NOT OK: SHARDS=4 SHARD_FIRST=4 with 2 GPUs"):
					t.Errorf("summary.txt does not refuse the shards:\n%s", summary)
				}
				return
			}
			got, err := os.ReadFile(filepath.Join(out, "data", "fake-gpu", "roofline.txt"))
			if err != nil {
				t.Fatalf("no merged run: %v\n%s", err, b)
			}
			if lines := strings.Split(strings.TrimSpace(string(got)), "\n"); !slices.Equal(lines, tt.want) {
				t.Errorf("merged run:\n%s\nwant\n%s", got, strings.Join(tt.want, "\n"))
			}
			left, _ := filepath.Glob(filepath.Join(out, "data", "fake-gpu", "roofline.shard-*"))
			if len(left) != 0 {
				t.Errorf("shards left after the merge: %v", left)
			}
			n := len(strings.Split(strings.TrimPrefix(tt.env[0], "SHARD_GPUS="), ","))
			log, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("shards-roofline-1-of-%d.log", n)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), "-count 6 -sweep=roofline -shard 1/"+fmt.Sprint(n)) || !strings.Contains(strings.Split(string(log), "\n")[1], "command:") {
				t.Errorf("shard 1's log:\n%s", log)
			}
		})
	}
}
