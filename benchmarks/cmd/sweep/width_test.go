package main

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/results"
)

// checkWidth reports every line of out wider than results.TerminalWidth
// columns (runes: the summary draws its table with box-drawing
// characters), and returns the widest's width.
func checkWidth(t *testing.T, what, out string) int {
	t.Helper()
	widest := 0
	for i, l := range strings.Split(out, "\n") {
		n := utf8.RuneCountInString(l)
		widest = max(widest, n)
		if n > results.TerminalWidth {
			t.Errorf("%s: line %d is %d columns wide, over %d:\n%s", what, i+1, n, results.TerminalWidth, l)
		}
	}
	return widest
}

// What a CPU sweep prints, as make bench runs it (progress, notes, the
// summary with its speed-ups), fits the terminal, and names the loader's
// error once.
func TestSweepOutputFits(t *testing.T) {
	_, _ = cpuRunAxes(t) // skips where the binary cannot be built
	args := []string{"-variants=cpu-fast,cpu-naive", "-sizes=64x48", "-filters=gauss3,dense5"}
	var axes benchmarks.Axes
	for _, a := range args {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		for _, f := range benchmarks.AxisFlags() {
			if f.Name == name {
				if err := f.Apply(&axes, value); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	o := &options{axes: axes, args: args, count: 2, noise: 1, maxTime: 50 * time.Millisecond, dataDir: t.TempDir()}
	var stdout, stderr strings.Builder
	if err := run(o, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stderr.String() + stdout.String()
	w := checkWidth(t, "sweep", out)
	t.Logf("widest line of the sweep: %d columns", w)
	if n := strings.Count(out, "libcuda.so.1"); n > 1 {
		t.Errorf("the loader's error names libcuda.so.1 %d times, want once:\n%s", n, out)
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(l, "sweep custom") && strings.Contains(l, " done, ") && strings.Contains(l, "layout=") {
			t.Errorf("a progress line names keys that do not vary: %s", l)
		}
	}
	if !strings.Contains(stdout.String(), "speed-up") {
		t.Errorf("the summary has no speed-up column:\n%s", stdout.String())
	}
}

// -list, -h and a wrong command line fit the terminal; a wrong variant
// name is one line with the closest names.
func TestCommandOutputFits(t *testing.T) {
	for _, args := range [][]string{
		{"-list"},
		{"-h"},
		{"-variants", "cpu-fsat"},
		{"-variants", "gpu-"},
		{"-nosuch"},
		{"-sizes", "100000000x100000000"},
		{"-baseline", "cpu-nave"},
	} {
		var stdout, stderr strings.Builder
		sweepMain(append(args, "-data", t.TempDir()), &stdout, &stderr)
		w := checkWidth(t, strings.Join(args, " "), stdout.String()+stderr.String())
		t.Logf("widest line of sweep %s: %d columns", strings.Join(args, " "), w)
	}
	var stdout, stderr strings.Builder
	sweepMain([]string{"-variants", "cpu-fsat"}, &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "did you mean cpu-fast") || strings.Contains(lines[0], "gpu-") {
		t.Errorf("sweep -variants cpu-fsat:\n%s\nwant one line naming cpu-fast and no GPU variant, then the hint", stderr.String())
	}
}
