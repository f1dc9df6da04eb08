package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The end-of-run summary lists the cases sorted by variant, then size by
// pixels, then filter, whatever order the benchmark wrote them in, and
// names the failed cases after the table.
func TestPrintSummaryOrder(t *testing.T) {
	const keys = "/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none/opts=none"
	out := strings.Join([]string{
		"# convbench sweep test",
		"cpu: Test CPU",
		"BenchmarkConv/variant=cpu-naive/size=2048x2048/filter=gauss3" + keys + " 1 4000 ns/op",
		"BenchmarkConv/variant=cpu-fast/size=1024x1024/filter=gauss11" + keys + " 1 3000 ns/op",
		"BenchmarkConv/variant=cpu-naive/size=512x512/filter=gauss3" + keys + " 1 2000 ns/op",
		"BenchmarkConv/variant=cpu-fast/size=1024x1024/filter=gauss3" + keys + " 1 1000 ns/op",
		"--- FAIL: BenchmarkConv/variant=cpu-fast/size=4096x4096/filter=gauss3" + keys,
		"",
	}, "\n")
	path := filepath.Join(t.TempDir(), "cpu-test", "x.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := printSummary(&sb, path); err != nil {
		t.Fatal(err)
	}
	got := sb.String()
	// Each case's time (ms) tells its row apart: cpu-fast gauss3, cpu-fast
	// gauss11, cpu-naive 512x512, cpu-naive 2048x2048, then the failure.
	order := []string{"0.00100", "0.00300", "0.00200", "0.00400", "--- FAIL: BenchmarkConv/variant=cpu-fast/size=4096x4096"}
	last := -1
	for _, w := range order {
		i := strings.Index(got, w)
		if i < 0 {
			t.Fatalf("summary lacks %q:\n%s", w, got)
		}
		if i < last {
			t.Errorf("%q comes before the row above it in the wanted order:\n%s", w, got)
		}
		last = i
	}
}

// A user's run goes where git ignores it, so that make bench leaves git
// status clean and the committed report in step with results/data; only
// -publish writes the committed data.
func TestOutputDir(t *testing.T) {
	root, err := gitOutput("rev-parse", "--show-toplevel")
	if err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	local := outputDir(root, "", false)
	file := filepath.Join(local, "cpu-test-host", "default.txt")
	if out, err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", file).CombinedOutput(); err != nil {
		t.Errorf("a default run's file %s is not ignored by git (%v %s)", file, err, out)
	}
	published := outputDir(root, "", true)
	if want := filepath.Join(root, "results", "data"); published != want {
		t.Errorf("-publish writes under %s, want %s", published, want)
	}
	if out, err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", filepath.Join(published, "cpu-test-host", "default.txt")).CombinedOutput(); err == nil {
		t.Errorf("a published run's file under %s is ignored by git (%s)", published, out)
	}
	if got := outputDir(root, "/tmp/elsewhere", true); got != "/tmp/elsewhere" {
		t.Errorf("with -data, outputDir = %s, want /tmp/elsewhere", got)
	}
}
