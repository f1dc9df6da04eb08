package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sweep that wrote its run ends by saying how to build the report of
// its data directory, and with -report writes that report into the
// report directory beside it.
func TestSweepReport(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	const name = "BenchmarkConv/variant=cpu-fast/size=64x48/filter=gauss3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	var out strings.Builder
	out.WriteString("sweep: custom\ncpu: Test CPU\ngpu: none\n")
	for i := range 6 {
		out.WriteString(name + " 1 " + itoa(1000+i) + " ns/op\n")
	}
	out.WriteString("PASS\n")
	for _, write := range []bool{false, true} {
		dir := t.TempDir()
		data := filepath.Join(dir, "data")
		args := []string{"-bin", fakeBinary(t, out.String(), 0), "-variants", "cpu-fast", "-sizes", "64x48", "-filters", "gauss3", "-data", data}
		if write {
			args = append(args, "-report")
		}
		var stdout, stderr strings.Builder
		if code := sweepMain(args, &stdout, &stderr); code != 0 {
			t.Fatalf("-report %v: exit %d\n%s", write, code, stderr.String())
		}
		report := filepath.Join(dir, "report")
		_, err := os.Stat(filepath.Join(report, "README.md"))
		_, errHTML := os.Stat(filepath.Join(report, "index.html"))
		if !write {
			want := "sweep: its report: go run ./results/cmd/report -data " + data + " -out " + report + " (or run the sweep with -report)"
			if !strings.Contains(collapse(stderr.String()), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
			if err == nil {
				t.Errorf("a report written without -report")
			}
			continue
		}
		if err != nil || errHTML != nil {
			t.Errorf("-report: %v, %v\n%s", err, errHTML, stderr.String())
		}
		if want := "sweep: wrote the report of " + data + ": " + filepath.Join(report, "README.md"); !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestReportDir(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{"results/local/data", "results/local/report"},
		{"results/data/", "results/report"},
		{"/tmp/runs/data", "/tmp/runs/report"},
	} {
		if got := reportDir(filepath.FromSlash(tt.data)); got != filepath.FromSlash(tt.want) {
			t.Errorf("reportDir(%q) = %q, want %q", tt.data, got, tt.want)
		}
	}
	root := filepath.FromSlash("/repo")
	if got := reportCommand(root, filepath.FromSlash("/repo/results/local/data"), filepath.FromSlash("/repo/results/local/report"), ""); got != "go run ./results/cmd/report -data results/local/data -out results/local/report" {
		t.Errorf("reportCommand = %q", got)
	}
	// The sweep's -baseline carries over to its report.
	if got := reportCommand(root, filepath.FromSlash("/repo/results/local/data"), filepath.FromSlash("/repo/results/local/report"), "cpu-naive"); !strings.HasSuffix(got, " -baseline cpu-naive") {
		t.Errorf("reportCommand with a baseline = %q, want it to end in -baseline cpu-naive", got)
	}
}
