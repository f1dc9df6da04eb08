package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTest stands in for every test binary: it acts by the name it runs
// under, prints its folder and arguments, logs NVRTC compiles to
// $CONVBENCH_COMPILE_LOG, and prints -test.v output: convolve passes
// tests nested at several depths, variants fails some of them, nvrtc
// panics after its tests pass.
const fakeTest = `#!/bin/sh
p=$(basename "$0" .test)
echo "pwd[$(pwd)]"
for a in "$@"; do echo "arg[$a]"; done
c() { echo "nvrtc-compile $1 k.cu $2 $p" >>"$CONVBENCH_COMPILE_LOG"; }
case $p in
convolve)
  c 1.000 ok
  cat <<'LOG'
=== RUN   TestA
--- PASS: TestA (3.00s)
=== RUN   TestB
    --- PASS: TestB/x (0.00s)
    --- SKIP: TestB/y (0.00s)
        --- SKIP: TestB/y/z (0.00s)
--- PASS: TestB (0.50s)
PASS
LOG
  ;;
variants)
  c 2.000 ok; c 0.250 error
  cat <<'LOG'
=== RUN   TestPar
--- PASS: TestPar (0.00s)
    --- PASS: TestPar/a (7.25s)
    --- FAIL: TestPar/b (1.00s)
        --- FAIL: TestPar/b/deep (1.00s)
=== RUN   TestSkip
    skip_test.go:3: needs a GPU: no device
--- SKIP: TestSkip (0.00s)
FAIL
LOG
  exit 1 ;;
nvrtc)
  printf -- '--- PASS: TestX (0.01s)\npanic: test timed out after 10m0s\n'
  exit 2 ;;
esac
`

// TestTestsStage runs the tests stage over stand-in test binaries: each
// runs from its package's folder with -test.v, the time limit and the
// flags TEST_FLAGS and TEST_RUN give; tests-summary.txt has a line a
// package, by import path, counting results at every depth (a binary
// that failed outside any test counts one failure), and the total;
// tests-report.txt, printed too, is testsum's summary with the compiles;
// every log names its command; and the stage fails.
func TestTestsStage(t *testing.T) {
	h := newHost(t)
	pkgs := map[string]string{"convolve": "example.org/m/convolve", "variants": "example.org/m/gpu/variants", "nvrtc": "example.org/m/cudabind/nvrtc"}
	h.packages(pkgs)
	for name, imp := range pkgs {
		h.exe(h.bin, name+".test", fakeTest)
		if err := os.MkdirAll(filepath.Join(h.root, strings.TrimPrefix(imp, "example.org/m/")), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TEST_FLAGS", "-a.b=1 -c")
	t.Setenv("TEST_RUN", "Test(A|B)")
	t.Setenv("TEST_TIMEOUT", "3m")
	stdout, code := h.run("tests")
	if code != 1 {
		t.Fatalf("exit status %d, want 1\n%s", code, stdout)
	}
	want := `example.org/m/convolve pass=3 fail=0 skip=2 secs=0 cpu-s=0
example.org/m/cudabind/nvrtc pass=1 fail=1 skip=0 secs=0 cpu-s=0
example.org/m/gpu/variants pass=2 fail=2 skip=1 secs=0 cpu-s=0
total wall-s=0 cache=cold
`
	if got := zeroSecs(h.read("tests-summary.txt")); got != want {
		t.Errorf("tests-summary.txt:\n%s\nwant\n%s", got, want)
	}
	for name, imp := range pkgs {
		log := h.read("test-" + name + ".log")
		lines := strings.Split(log, "\n")
		dir := strings.TrimPrefix(imp, "example.org/m/")
		cmd := "# command: (cd " + dir + " && CONVBENCH_COMPILE_LOG=" + filepath.Join(h.out, "compiles.log") + " " + filepath.Join(h.bin, name+".test") + " -test.v -test.timeout 3m -a.b=1 -c '-test.run=Test(A|B)')"
		if lines[0] != "# commit unknown, gpu: Test GPU, 1.0" || lines[1] != cmd {
			t.Errorf("test-%s.log starts\n%s\n%s\nwant the commit and\n%s", name, lines[0], lines[1], cmd)
		}
		if !strings.Contains(log, "pwd["+filepath.Join(h.root, dir)+"]\n") {
			t.Errorf("%s did not run in %s:\n%s", name, dir, log)
		}
	}
	report := h.read("tests-report.txt")
	if !strings.Contains(stdout, report) {
		t.Errorf("tests-report.txt was not printed:\n%s", stdout)
	}
	for _, w := range []string{
		"# command: the tests stage, (cd DIR && " + filepath.Join(h.bin, "NAME.test") + " -test.v -test.timeout 3m",
		"tests: 6 passed, 3 failed, 3 skipped (1 for want of a GPU, 2 for other reasons)\n",
		"failed: example.org/m/cudabind/nvrtc (the test binary failed outside any test), example.org/m/gpu/variants.TestPar/b, example.org/m/gpu/variants.TestPar/b/deep\n",
		"slowest tests:\n     7.25s  variants  TestPar\n     3.00s  convolve  TestA\n",
		"kernels compiled: 3 in 3.25s (1 failed)\n  variants  2 in 2.25s (1 failed)\n  convolve  1 in 1.00s\n",
	} {
		if !strings.Contains(report, w) {
			t.Errorf("tests-report.txt lacks %q:\n%s", w, report)
		}
	}
	summary := h.read("summary.txt")
	if !strings.Contains(summary, "example.org/m/gpu/variants pass=2 fail=2 skip=1 secs=") || !strings.HasSuffix(summary, "1 stage command(s) failed\n") {
		t.Errorf("summary.txt:\n%s", summary)
	}
	if c := h.read("compiles.log"); !strings.HasPrefix(c, "# commit unknown, gpu: Test GPU, 1.0\n# command: ") {
		t.Errorf("compiles.log does not start with the commit and command:\n%s", c)
	}
}

// TestTestsStageWarmCache: with compiled kernels in the cache the total
// says warm; without test binaries the stage fails saying so.
func TestTestsStageWarmCache(t *testing.T) {
	h := newHost(t)
	h.packages(map[string]string{"convolve": "example.org/m/convolve"})
	stdout, code := h.run("tests")
	if code != 1 || !strings.Contains(stdout, "tests NOT OK: no test binaries (*.test) in "+h.bin+": make gpu-bins builds them") {
		t.Errorf("no binaries: exit status %d\n%s", code, stdout)
	}
	h.exe(h.bin, "convolve.test", fakeTest)
	h.write(filepath.Join(h.root, "convolve", "x.go"), "package convolve\n")
	h.write(filepath.Join(os.Getenv("CONVBENCH_CACHE_DIR"), "k.cubin"), "")
	if stdout, code := h.run("tests"); code != 0 || !strings.HasSuffix(h.read("tests-summary.txt"), "cache=warm\n") {
		t.Errorf("exit status %d, tests-summary.txt\n%s\n%s", code, h.read("tests-summary.txt"), stdout)
	}
}

// TestTestBinaryPackage reads the package of a test binary that go test
// -c built: the module and its import path.
func TestTestBinaryPackage(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build a test binary")
	}
	bin := filepath.Join(t.TempDir(), "testsum.test")
	build := exec.Command(goCmd, "test", "-c", "-ldflags=-s", "-o", bin, "../../internal/testsum")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mod, imp, err := testBinaryPackage(bin)
	if err != nil || mod != "github.com/convbench/convbench" || imp != "github.com/convbench/convbench/internal/testsum" {
		t.Errorf("testBinaryPackage = %q, %q, %v", mod, imp, err)
	}
	if _, _, err := testBinaryPackage(filepath.Join("..", "..", "go.mod")); err == nil {
		t.Error("testBinaryPackage(go.mod) did not fail")
	}
}
