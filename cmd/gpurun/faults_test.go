package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository's root, from this package's folder.
const repoRoot = "../.."

// committedFaults are two committed GPU runs of the faults stage (the
// sweep's run file and the summary the stage wrote of it): one with every
// kernel as expected, one with three kernels not.
var committedFaults = []struct{ run, summary string }{
	{"results/logs/nvidia-h200/2026-11-28-09376ed/faults-run.txt", "results/logs/nvidia-h200/2026-11-28-09376ed/faults-summary.txt"},
	{"results/logs/nvidia-h200/2026-11-27-8db91b6-faults-sanitizers/g3-faults-run.txt", "results/logs/nvidia-h200/2026-11-27-8db91b6-faults-sanitizers/g3-faults-summary.txt"},
}

// kernelsOf returns the faults stage's kernels under root.
func kernelsOf(t *testing.T, root string) []string {
	t.Helper()
	r := &runner{root: root}
	k, err := r.faultKernels()
	if err != nil {
		t.Fatal(err)
	}
	if len(k) != 7 {
		t.Fatalf("faults kernels %q: want direct.cu and the 6 broken ones", k)
	}
	return k
}

// TestFaultSummaryOfCommittedRuns judges the committed runs of the faults
// stage as the stage did on the GPU host: the same lines after the
// summary's header.
func TestFaultSummaryOfCommittedRuns(t *testing.T) {
	kernels := kernelsOf(t, repoRoot)
	for _, c := range committedFaults {
		want, err := os.ReadFile(filepath.Join(repoRoot, c.summary))
		if err != nil {
			t.Fatal(err)
		}
		wantLines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")[1:]
		got, ok := faultSummary(filepath.Join(repoRoot, c.run), kernels, 2)
		if !slices.Equal(got, wantLines) {
			t.Errorf("%s:\n%s\nwant\n%s", c.run, strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
		}
		if wantOK := strings.HasPrefix(wantLines[len(wantLines)-1], "faults ok"); ok != wantOK {
			t.Errorf("%s: ok %v, want %v", c.run, ok, wantOK)
		}
	}
}

// TestFaultSummaryCatches changes the committed run in which every
// kernel is as expected, one way a kernel can go wrong at a time, and
// checks the summary's verdict names it.
func TestFaultSummaryCatches(t *testing.T) {
	kernels := kernelsOf(t, repoRoot)
	good, err := os.ReadFile(filepath.Join(repoRoot, committedFaults[0].run))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		edit func(string) string // the run file; "" writes none
		want []string            // lines of the summary, in order
	}{
		{"a hang proven", func(s string) string {
			return replaceLine(s, "# user kernel user-hang: refused: ", "# user kernel user-hang: passed the property suite; its 2 cases are timed")
		}, []string{"user-hang WRONG: want it refused, got: passed the property suite; its 2 cases are timed", "faults NOT OK: 1 of 7 kernels not as expected"}},
		{"a crash refused as another failure", func(s string) string {
			return strings.Replace(s, "# user kernel user-oob: refused: crash: ", "# user kernel user-oob: refused: ", 1)
		}, []string{`user-oob WRONG: want a refusal that says "refused: crash: failed the property suite", got: refused: failed the property suite`, "faults NOT OK: 1 of 7 kernels not as expected"}},
		{"a case one line short", func(s string) string {
			return replaceLine(s, "BenchmarkConv/variant=user-direct/size=512x512/filter=gauss5/", "")
		}, []string{"user-direct WRONG: want 2 result lines for each case and no failed case: 0 failed, 2 cases, 1 of them with 2 lines", "faults NOT OK: 1 of 7 kernels not as expected"}},
		{"a refused kernel timed", func(s string) string {
			line := firstLineWith(s, "BenchmarkConv/variant=user-direct/")
			return s + strings.Replace(line, "user-direct", "user-shared", 1) + "\n"
		}, []string{"user-shared WRONG: refused, but 1 result lines were timed", "faults NOT OK: 1 of 7 kernels not as expected"}},
		{"no run file", nil, []string{"user-direct WRONG: want it proven, got: no verdict line", "user-oob WRONG: want it refused, got: no verdict line",
			"faults NOT OK: the sweep wrote no run file (see faults.log)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := ""
			if tt.edit != nil {
				file = filepath.Join(t.TempDir(), "run.txt")
				if err := os.WriteFile(file, []byte(tt.edit(string(good))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := faultSummary(file, kernels, 2)
			if ok {
				t.Error("summary ok")
			}
			i := 0
			for _, w := range tt.want {
				for i < len(got) && !strings.HasPrefix(got[i], w) {
					i++
				}
				if i == len(got) {
					t.Errorf("summary lacks, in order, %q:\n%s", w, strings.Join(got, "\n"))
					break
				}
			}
		})
	}
}

// replaceLine replaces the first line of s that begins with prefix by
// line ("" removes it).
func replaceLine(s, prefix, line string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			if line == "" {
				return strings.Join(slices.Delete(lines, i, i+1), "\n")
			}
			lines[i] = line
			return strings.Join(lines, "\n")
		}
	}
	return s
}

// firstLineWith is the first line of s that begins with prefix.
func firstLineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// fakeSweep stands in for the sweep command. It prints its arguments
// ("arg[A]") and then acts: with -kernel (the faults stage) it copies
// $FAKE_FAULTS_RUN into -data, prints "sweep: wrote PATH" and exits 1 as
// the real sweep does when the broken kernels' cases fail; with
// -sweep=default (the release check) it writes a run file of three cases
// with two lines each and one case skipped as unsupported, cpu-fast's two
// lines disagreeing when $FAKE_UNSTABLE is set, and exits $FAKE_SWEEP_RC.
const fakeSweep = `#!/bin/bash
for a in "$@"; do echo "arg[$a]"; done
data=; kernel=; preset=
while [ $# -gt 0 ]; do
  case $1 in -data) data=$2; shift ;; -kernel) kernel=1; shift ;; -sweep=*) preset=${1#-sweep=} ;; esac
  shift
done
mkdir -p "$data/test-gpu"
if [ -n "$kernel" ]; then
  [ -n "$FAKE_FAULTS_RUN" ] || exit 1
  f=$data/test-gpu/custom-1a1e0e0f.txt
  cp "$FAKE_FAULTS_RUN" "$f"
  echo "sweep: wrote $f" >&2
  exit 1
fi
f=$data/test-gpu/$preset.txt
n=gauss5/k=5/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default
{
  echo "# convbench sweep $preset, commit x, command: fake"
  echo "gpu: Test GPU"
  for v in gpu-naive gpu-tiled cpu-fast; do
    t=1000
    for i in 1 2; do
      [ "${FAKE_UNSTABLE:-0}" != 0 ] && [ $v = cpu-fast ] && [ $i = 2 ] && t=2000
      echo "BenchmarkConv/variant=$v/size=1024x1024/filter=$n 1 $t ns/op 0.5 median-ci95-%"
    done
  done
  echo "# unsupported variant=gpu-stream/size=1024x1024/filter=$n: plan: over the cap"
  echo "--- SKIP: BenchmarkConv/variant=gpu-stream/size=1024x1024/filter=$n"
  echo "    bench_test.go:1: gpu-stream: unsupported, skipped: plan: over the cap"
  [ -n "$FAKE_FAIL_CASE" ] && echo "--- FAIL: BenchmarkConv/variant=gpu-tiled/size=1024x1024/filter=$n"
} >"$f"
echo "sweep: wrote $f" >&2
exit ${FAKE_SWEEP_RC:-0}
`

// TestFaultsStage runs the faults stage in this repository over a
// stand-in sweep that writes a committed run: the sweep gets one run over
// every kernel, the prebuilt benchmark binary, a data folder under OUTDIR,
// a temporary folder there and the stage's limits; faults-summary.txt
// judges the run; the sweep's own exit status 1 does not fail the stage,
// a summary that is not ok does.
func TestFaultsStage(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	kernels := kernelsOf(t, root)
	for _, tt := range []struct {
		run  string
		code int
	}{{committedFaults[0].run, 0}, {committedFaults[1].run, 1}, {"", 1}} {
		h := newHost(t)
		h.root = root
		h.exe(h.bin, "sweep", fakeSweep)
		t.Setenv("FAKE_FAULTS_RUN", "")
		if tt.run != "" {
			t.Setenv("FAKE_FAULTS_RUN", filepath.Join(root, tt.run))
		}
		t.Setenv("FAULTS_PROVE_TIMEOUT", "90s")
		stdout, code := h.run("faults")
		if code != tt.code {
			t.Errorf("%s: exit status %d, want %d\n%s", tt.run, code, tt.code, stdout)
		}
		sum := strings.Split(strings.TrimSuffix(h.read("faults-summary.txt"), "\n"), "\n")
		from := filepath.Join(h.out, "faults", "test-gpu", "custom-1a1e0e0f.txt")
		if tt.run == "" {
			from = "no run file"
		}
		if want := "# commit unknown, gpu: Test GPU, 1.0; faults: the sweep's verdict on each user kernel, from " + from; sum[0] != want {
			t.Errorf("faults-summary.txt's header %q, want %q", sum[0], want)
		}
		if !strings.Contains(h.read("summary.txt"), "\n"+sum[len(sum)-1]+"\n") {
			t.Errorf("summary.txt lacks the verdict %q:\n%s", sum[len(sum)-1], h.read("summary.txt"))
		}
		want := []string{"-bin", filepath.Join(h.bin, "benchmarks.test"), "-data", filepath.Join(h.out, "faults"),
			"-variants", "user-.*", "-sizes", "512x512", "-filters", "gauss3,gauss5", "-types", "f32", "-count", "2",
			"-max-time", "0.5s", "-case-timeout", "20s", "-prove-timeout", "90s"}
		for _, k := range kernels {
			want = append(want, "-kernel", k)
		}
		if got := args(h.read("faults.log")); !slices.Equal(got, want) {
			t.Errorf("the sweep's arguments\n%q\nwant one run over every kernel\n%q", got, want)
		}
		if !strings.Contains(strings.Split(h.read("faults.log"), "\n")[1], "TMPDIR="+filepath.Join(h.out, "faults-tmp")+" ") {
			t.Errorf("faults.log's command does not set TMPDIR to faults-tmp:\n%s", strings.Split(h.read("faults.log"), "\n")[1])
		}
	}
}

// TestRunFile: the run file is the one the sweep's log names last, else
// the only one under the data folder, else none.
func TestRunFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	a, b := filepath.Join(data, "g", "a.txt"), filepath.Join(data, "g", "a-2.txt")
	log := filepath.Join(dir, "sweep.log")
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(log, "progress\n")
	if got := runFile(log, data); got != "" {
		t.Errorf("no file: runFile = %q", got)
	}
	write(a, "")
	if got := runFile(log, data); got != a {
		t.Errorf("one file: runFile = %q, want %q", got, a)
	}
	write(b, "")
	if got := runFile(log, data); got != "" {
		t.Errorf("two files and no line naming one: runFile = %q", got)
	}
	write(log, wrotePrefix+a+"\nmore\n"+wrotePrefix+b+"\n")
	if got := runFile(log, data); got != b {
		t.Errorf("named by the log: runFile = %q, want %q", got, b)
	}
}
