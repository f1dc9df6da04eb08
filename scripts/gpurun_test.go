// Package scripts holds tests of the shell scripts beside it.
package scripts

import (
	"cmp"
	"errors"
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
		"tune.log": {"arg[-variants]", "arg[gpu-regtile,gpu-tiled]", "arg[-k]", "arg[3,21]", "arg[-sizes]", "arg[large]",
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

// fakeSanitizer is a stand-in for compute-sanitizer: it appends its
// arguments to $SANLOG, runs the program after its options, and ends as
// the real tool does, by FAKE_SAN: "clean", each tool's summary with no
// error; "dirty", memcheck 1460 errors (one of them printed, a CUDA API
// error), racecheck 1 error and 1 warning in 2 hazards (exit 3 for
// both), synccheck clean, initcheck killed before its summary (exit 2).
const fakeSanitizer = `#!/bin/sh
echo "$*" >>"$SANLOG"
tool=
while [ $# -gt 0 ]; do
  case $1 in
  --tool) tool=$2; shift 2 ;;
  --leak-check|--error-exitcode|--print-limit) shift 2 ;;
  --*) shift ;;
  *) break ;;
  esac
done
echo "========= COMPUTE-SANITIZER"
"$@"
case $FAKE_SAN:$tool in
*:memcheck) echo "========= LEAK SUMMARY: 0 bytes leaked in 0 allocations" ;;
esac
case $FAKE_SAN:$tool in
clean:racecheck) echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" ;;
clean:*|dirty:synccheck) echo "========= ERROR SUMMARY: 0 errors" ;;
dirty:memcheck)
  echo '========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuFuncGetParamInfo.'
  echo "========= ERROR SUMMARY: 1460 errors"
  echo "========= ERROR SUMMARY: 1459 errors were not printed. Use --print-limit option to adjust the number of printed errors"
  exit 3 ;;
dirty:racecheck) echo "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)"; exit 3 ;;
dirty:initcheck) exit 2 ;;
esac
`

// secs matches the seconds of a sanitizer's summary line.
var secs = regexp.MustCompile(`secs=[0-9]+ `)

// TestGPURunSanitizers runs the sanitizer stages over a stand-in
// compute-sanitizer, properties test binary and nvidia-smi: each stage
// runs the four tools with their default options (no
// --report-api-errors) over the property suite of its variants, one
// variant at a time, each tool's log apart, and OUTDIR/NAME-summary.txt
// reads each tool's exit status and error count from the tool's output;
// sanitizers-slabs needs two GPUs.
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
		filepath.Join(bin, "properties.test"): "#!/bin/sh\necho \"pwd[$(pwd)]\"\nprintf -- '=== RUN   TestProperties\\n    --- PASS: TestProperties/gpu-naive (1.00s)\\n--- PASS: TestProperties (1.00s)\\nPASS\\n'\n",
	} {
		if err := os.WriteFile(file, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	flags := func(re string) string {
		return filepath.Join(bin, "properties.test") + " -test.v -test.short -test.parallel 1 -test.timeout 10m -props.variant=" + re + " -props.n=5"
	}
	const gpuRE, slabRE = "^(gpu-|npp|cudnn|auto$|auto-bf16$)", "^gpu-(slab|stream)"
	for _, tt := range []struct {
		name, stage, san string
		gpus             int
		env              []string
		code             int
		want             []string // lines of the summary after its header
		calls            []string // compute-sanitizer's arguments, in order
	}{
		{"clean", "sanitizers", "clean", 1, nil, 0, []string{
			"memcheck  rc=0 errors=0 api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-memcheck.log leaked-bytes=0",
			"racecheck rc=0 errors=0 api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-racecheck.log hazards=0 warnings=0",
			"synccheck rc=0 errors=0 api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-synccheck.log",
			"initcheck rc=0 errors=0 api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-initcheck.log",
			"sanitizers ok: 4 tools, 0 errors",
		}, []string{
			"--tool memcheck --leak-check full --error-exitcode 3 " + flags(gpuRE),
			"--tool racecheck --error-exitcode 3 " + flags(gpuRE),
			"--tool synccheck --error-exitcode 3 " + flags(gpuRE),
			"--tool initcheck --error-exitcode 3 " + flags(gpuRE),
		}},
		{"dirty", "sanitizers", "dirty", 1, nil, 1, []string{
			"memcheck  rc=3 errors=1460 api-errors=1 passed=2 failed=0 secs=0 log=sanitizers-memcheck.log leaked-bytes=0",
			"racecheck rc=3 errors=1 api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-racecheck.log hazards=2 warnings=1",
			"synccheck rc=0 errors=0 api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-synccheck.log",
			"initcheck rc=2 errors=missing api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-initcheck.log",
			"sanitizers NOT OK: memcheck (rc=3 errors=1460 failed=0), racecheck (rc=3 errors=1 failed=0), initcheck (rc=2 errors=missing failed=0)",
		}, nil},
		{"the former name, all at once", "props-sanitizers", "clean", 1, []string{"SAN_JOBS=4"}, 0, []string{
			"sanitizers ok: 4 tools, 0 errors",
		}, nil},
		{"slabs", "sanitizers-slabs", "clean", 2, nil, 0, []string{
			"memcheck  rc=0 errors=0 api-errors=0 passed=2 failed=0 secs=0 log=sanitizers-slabs-memcheck.log leaked-bytes=0",
			"sanitizers-slabs ok: 4 tools, 0 errors",
		}, []string{
			"--tool memcheck --leak-check full --error-exitcode 3 " + flags(slabRE),
			"--tool racecheck --error-exitcode 3 " + flags(slabRE),
			"--tool synccheck --error-exitcode 3 " + flags(slabRE),
			"--tool initcheck --error-exitcode 3 " + flags(slabRE),
		}},
		{"slabs on one GPU", "sanitizers-slabs", "clean", 1, nil, 1, nil, []string{}},
		{"a tool misnamed", "sanitizers", "clean", 1, []string{"SAN_TOOLS=memchek"}, 1, nil, []string{}},
		{"two of the tools", "sanitizers", "clean", 1, []string{"SAN_TOOLS=initcheck memcheck"}, 0, []string{
			"sanitizers ok: 2 tools, 0 errors",
		}, []string{
			"--tool memcheck --leak-check full --error-exitcode 3 " + flags(gpuRE),
			"--tool initcheck --error-exitcode 3 " + flags(gpuRE),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			sanlog := filepath.Join(t.TempDir(), "san.log")
			env := append([]string{"PATH=" + path + ":/usr/bin:/bin", "GPU_BIN=" + bin, "SANLOG=" + sanlog,
				"FAKE_SAN=" + tt.san, "FAKE_GPUS=" + strconv.Itoa(tt.gpus)}, tt.env...)
			b, code := gpuRun(t, root, out, env, tt.stage)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\n%s", code, tt.code, b)
			}
			calls, _ := os.ReadFile(sanlog)
			if tt.calls != nil {
				got := strings.Fields(strings.ReplaceAll(string(calls), " ", "\x00"))
				slices.Sort(got) // the tools may run at once
				want := slices.Sorted(slices.Values(tt.calls))
				for i := range want {
					want[i] = strings.ReplaceAll(want[i], " ", "\x00")
				}
				if !slices.Equal(got, want) {
					t.Errorf("compute-sanitizer ran with\n%q\nwant\n%q", got, want)
				}
			}
			if strings.Contains(string(calls), "report-api-errors") {
				t.Errorf("compute-sanitizer ran with --report-api-errors:\n%s", calls)
			}
			name := strings.TrimPrefix(tt.stage, "props-")
			all, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
			if tt.want == nil {
				want := "sanitizers-slabs NOT OK: needs 2 GPUs or more, nvidia-smi -L lists 1: not run\n"
				if slices.Contains(tt.env, "SAN_TOOLS=memchek") {
					want = "sanitizers NOT OK: SAN_TOOLS names memchek: want memcheck, racecheck, synccheck or initcheck\n"
				}
				if !strings.Contains(string(all), want) {
					t.Errorf("summary.txt lacks %q:\n%s", want, all)
				}
				return
			}
			sum, err := os.ReadFile(filepath.Join(out, name+"-summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			// The tools' seconds read 0 or 1 over the stand-ins.
			lines := strings.Split(strings.TrimSuffix(secs.ReplaceAllString(string(sum), "secs=0 "), "\n"), "\n")
			if !strings.HasPrefix(lines[0], "# commit unknown, gpu: NVIDIA H100 80GB HBM3, 580.159.04; "+name+": compute-sanitizer over the property suite of ") {
				t.Errorf("%s-summary.txt's header %q", name, lines[0])
			}
			for _, w := range tt.want {
				if !slices.Contains(lines[1:], w) {
					t.Errorf("%s-summary.txt lacks %q:\n%s", name, w, sum)
				}
			}
			if v := lines[len(lines)-1]; v != tt.want[len(tt.want)-1] || !strings.Contains(string(all), v+"\n") {
				t.Errorf("verdict %q, want %q last in %s-summary.txt and in summary.txt:\n%s", v, tt.want[len(tt.want)-1], name, all)
			}
			for _, tool := range []string{"memcheck", "racecheck", "synccheck", "initcheck"} {
				log, err := os.ReadFile(filepath.Join(out, name+"-"+tool+".log"))
				if ran := !slices.ContainsFunc(tt.env, func(e string) bool {
					return strings.HasPrefix(e, "SAN_TOOLS=") && !strings.Contains(e, tool)
				}); !ran {
					if err == nil {
						t.Errorf("%s-%s.log written, but SAN_TOOLS leaves %s out", name, tool, tool)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				head := strings.SplitN(string(log), "\n", 3)
				if len(head) < 3 || !strings.HasPrefix(head[1], "# command: (cd properties && compute-sanitizer --tool "+tool+" ") ||
					!strings.Contains(head[2], "pwd["+filepath.Join(root, "properties")+"]") {
					t.Errorf("%s-%s.log does not start with its command and run in properties/:\n%s", name, tool, log)
				}
			}
			_, err = os.Stat(filepath.Join(out, name+"-warm.log"))
			if warm := slices.Contains(tt.env, "SAN_JOBS=4"); (err == nil) != warm {
				t.Errorf("%s-warm.log there: %v, want %v (the suite under no tool first when the tools run at once)", name, err == nil, warm)
			}
		})
	}
}
