package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/results"
)

// Every bad flag value is one line naming the flag, its value and what it
// wants, then the hint, exit status 2, and nothing written.
func TestFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-noise", "-1"}, "-noise -1: want a positive percentage"},
		{[]string{"-max-time", "0"}, "-max-time 0s: want a positive duration"},
		{[]string{"-count", "0"}, "-count 0: want 1 or more"},
		{[]string{"-count", "x"}, "-count x: parse error"},
		{[]string{"-cpu-cap", "-5"}, "-cpu-cap -5: want 0"},
		{[]string{"-sizes", "100000000x100000000"}, "-sizes 100000000x100000000: a 100000000x100000000 f32 image of 1 channel(s) is 40000000000000000 bytes, above the limit of one image"},
		{[]string{"-sizes", "gauss"}, "-sizes gauss: want WxH"},
		{[]string{"-filters", "gauss2000"}, "-filters gauss2000: want a library filter"},
		{[]string{"-bin", "/nonexistent/benchmarks.test"}, "-bin /nonexistent/benchmarks.test: no such test binary"},
		{[]string{"-sweep", "nope"}, `-sweep nope: no preset "nope"`},
		{[]string{"-gpu", "1"}, "-gpu 1: want 0"},
		{[]string{"-case-timeout", "0"}, "-case-timeout 0s: want a positive duration"},
		{[]string{"-prove-timeout", "0"}, "-prove-timeout 0s: want a positive duration"},
		{[]string{"-prove-timeout", "-1m"}, "-prove-timeout -1m0s: want a positive duration"},
		{[]string{"-prove-timeout", "soon"}, "-prove-timeout soon: parse error"},
		{[]string{"-nosuch"}, "-nosuch: no such flag"},
		{[]string{"-variants", "cpu-fast", "stray"}, "-stray: not a flag"},
	} {
		data := t.TempDir()
		var stdout, stderr strings.Builder
		code := sweepMain(append(tt.args, "-data", data), &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		msg := strings.Join(strings.Fields(strings.Join(lines[:len(lines)-1], " ")), " ")
		if code != exitUsage || !strings.HasPrefix(msg, "sweep: "+tt.want) || lines[len(lines)-1] != hint || slices.ContainsFunc(lines[1:len(lines)-1], func(l string) bool { return !strings.HasPrefix(l, "  ") }) {
			t.Errorf("sweep %q: exit %d, stderr:\n%s\nwant exit 2, %q (its lines after the first indented) and the hint", tt.args, code, stderr.String(), tt.want)
		}
		if strings.Count(msg, "convolve:")+strings.Count(msg, "benchmarks:") > 0 {
			t.Errorf("sweep %q: package prefixes in %q", tt.args, msg)
		}
		if entries, _ := os.ReadDir(data); len(entries) > 0 {
			t.Errorf("sweep %q wrote %d entries under -data", tt.args, len(entries))
		}
	}
}

// fakeBinary writes a test binary that prints out and exits with code.
func fakeBinary(t *testing.T, out string, code int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "benchmarks.test")
	script := "#!/bin/sh\ncat <<'EOF'\n" + out + "EOF\necho '[benchmarks] fake binary' >&2\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A run in which no case ran writes no file and exits 1 with the reason:
// the binary's notes, or its refusal.
func TestNoCaseRanWritesNothing(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	for _, tt := range []struct {
		out  string
		code int
		want string
	}{
		{"sweep: custom\ngpu: none\n# 2 GPU variants skipped: no CUDA device on this host (gpu-tiled, npp)\nBenchmarkConv \t 1\t 17883 ns/op\nPASS\n", 0, "no CUDA device on this host"},
		{"", 2, "fake binary"},
		{"sweep: custom\ngpu: none\n--- FAIL: BenchmarkConv/variant=cpu-fast/size=64x48/filter=gauss3\nFAIL\n", 1, "every case failed"},
	} {
		data := t.TempDir()
		var stdout, stderr strings.Builder
		code := sweepMain([]string{"-bin", fakeBinary(t, tt.out, tt.code), "-variants", "cpu-fast", "-sizes", "64x48", "-filters", "gauss3", "-data", data}, &stdout, &stderr)
		if code != exitFailed || !strings.Contains(stderr.String(), "nothing written") || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 1, nothing written and %q", code, stderr.String(), tt.want)
		}
		if entries, _ := os.ReadDir(data); len(entries) > 0 {
			t.Errorf("a run without cases wrote %d entries under -data", len(entries))
		}
	}
}

// A sweep that leaves every case out on this host fails before it runs.
func TestNothingToRun(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	data := t.TempDir()
	var stdout, stderr strings.Builder
	code := sweepMain([]string{"-bin", fakeBinary(t, "", 0), "-variants", "cpu-naive", "-sizes", "4096x4096", "-filters", "dense9", "-cpu-cap", "1000", "-data", data}, &stdout, &stderr)
	if code != exitFailed || !strings.Contains(stderr.String(), "no case to run") || !strings.Contains(stderr.String(), "above the CPU cap") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// Outside a tree with benchmarks/ the sweep says so, not that the host
// lacks a GPU.
func TestMissingTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("GIT_DIR", filepath.Join(dir, "no-git"))
	var stdout, stderr strings.Builder
	code := sweepMain([]string{"-bin", fakeBinary(t, "", 0), "-variants", "cpu-fast", "-sizes", "64x48", "-data", dir}, &stdout, &stderr)
	if code != exitFailed || !strings.Contains(stderr.String(), "no benchmarks directory under "+dir) || strings.Contains(stderr.String(), "GPU") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// A rerun never replaces an earlier file.
func TestWriteNew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "host")
	var paths []string
	for i := range 3 {
		p, err := writeNew(dir, "custom-1234", []byte{byte('a' + i)})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
	}
	if want := []string{"custom-1234.txt", "custom-1234-2.txt", "custom-1234-3.txt"}; strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths %v, want %v", paths, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "custom-1234.txt")); string(b) != "a" {
		t.Errorf("the first file holds %q, want its own run", b)
	}
}

// summaryOf renders the summary of a run of lines.
func summaryOf(t *testing.T, lines ...string) string {
	t.Helper()
	r, err := results.ReadRun(strings.NewReader("cpu: Test CPU\n"+strings.Join(lines, "\n")+"\n"), "x/cpu-test/run.txt")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := printSummary(&sb, r, ""); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// The summary has a column for each axis that varies in the run, so that
// no two rows read alike but for their times, names the values every case
// shares in its caption, and has a legend.
func TestSummaryVaryingAxes(t *testing.T) {
	line := func(border, gpus string, ns int) string {
		return "BenchmarkConv/variant=gpu-slab/size=64x64/filter=gauss3/k=3/block=default/border=" + border +
			"/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none/opts=default/gpus=" + gpus +
			" 1 " + itoa(ns) + " ns/op " + itoa(ns) + " gpu-ns/op 1 median-ci95-%"
	}
	got := summaryOf(t, line("zero", "0", 1000), line("reflect", "0", 1100), line("zero", "0,1", 600), line("reflect", "0,1", 700))
	var header string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "│") {
			header = l
			break
		}
	}
	for _, col := range []string{"border", "gpus", "time (ms)", "spread", "median spread", "runs agree"} {
		if !strings.Contains(header, col) {
			t.Errorf("header %q lacks %q", header, col)
		}
	}
	for _, col := range []string{" layout ", " k ", " variant ", " size ", " filter "} {
		if strings.Contains(header, col) {
			t.Errorf("header %q has %q, which does not vary", header, col)
		}
	}
	for _, shared := range []string{"variant gpu-slab", "size 64x64", "filter gauss3"} {
		if !strings.Contains(strings.Join(strings.Fields(got), " "), shared) {
			t.Errorf("the summary does not name %q, which every case has:\n%s", shared, got)
		}
	}
	if !strings.Contains(got, "time (ms): the median over the case's runs") || !strings.Contains(got, "runs agree: yes where") {
		t.Errorf("no legend:\n%s", got)
	}
}

// A case whose lines disagree beyond their own intervals and the noise
// target is flagged unstable with the cause its lines record, one whose
// lines agree is not, and the note under the table counts them by cause.
func TestSummaryUnstable(t *testing.T) {
	const name = "BenchmarkConv/variant=cpu-fast/size=64x64/filter=gauss3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	lines := []string{"noise: median-ci95 <= 1% (of 50µs for medians below it), at least 10 samples"}
	for f, times := range map[string][]int{
		"gauss3": {100000, 185000, 101000, 140000, 99000},  // 85% apart, each ±1%: no pattern
		"gauss5": {100000, 100500, 101000, 99500, 99000},   // within ±1%
		"gauss7": {100000, 110000, 120000, 130000, 140000}, // slower line after line
		"gauss9": {100000, 100200, 100100, 100150, 99800},  // 0.4% apart at ±0.01%, within the target
	} {
		ci := "1"
		if f == "gauss9" {
			ci = "0.01"
		}
		for _, ns := range times {
			lines = append(lines, strings.Replace(name, "gauss3", f, 1)+" 1 "+itoa(ns)+" ns/op "+ci+" median-ci95-%")
		}
	}
	got := summaryOf(t, lines...)
	rows := map[string]string{}
	for _, l := range strings.Split(got, "\n") {
		for _, f := range []string{"gauss3", "gauss5", "gauss7", "gauss9"} {
			if strings.Contains(l, f) {
				rows[f] = l
			}
		}
	}
	if !strings.Contains(rows["gauss3"], "UNSTABLE (unmeasured)") || !strings.Contains(rows["gauss7"], "UNSTABLE (drift)") ||
		strings.Contains(rows["gauss5"], "UNSTABLE") || strings.Contains(rows["gauss9"], "UNSTABLE") {
		t.Errorf("want gauss3 unstable with no cause measured, gauss7 with drift, gauss5 and gauss9 not:\n%s", got)
	}
	for _, want := range []string{
		"2 cases UNSTABLE: their lines differ by more than each line's own interval and the -noise target allow",
		"  by cause: 1 drift between lines (a monotone trend from first to last); 1 cause not measured (",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// The binary's progress lines pass with the ETA's time left; other lines
// pass unchanged, and the last of them are kept as the reason of a
// failure.
func TestProgressFilter(t *testing.T) {
	c := benchmarks.Case{Variant: "cpu-fast", Width: 64, Height: 48, Filter: "gauss3", Channels: 1, Timing: benchmarks.CPUTiming}
	est := benchmarks.SweepEstimate{Cases: []benchmarks.CaseEstimate{{Case: c, Low: time.Minute, High: time.Minute}}}
	var sb strings.Builder
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progressFilter{w: &sb, eta: benchmarks.NewETA(est), now: func() time.Time { return now }}
	start := benchmarks.ProgressLine{Sweep: "custom", Total: 1, Left: "time left unknown", Case: c.Name()}
	io := "[benchmarks] no GPU (none): running the CPU variants only\n" + start.String() + "\n  line 1: 6 samples\nunfinished"
	for _, chunk := range []string{io[:10], io[10:50], io[50:]} {
		p.Write([]byte(chunk))
	}
	p.Flush()
	got := strings.Split(sb.String(), "\n")
	want := strings.Replace(start.String(), "time left unknown", "about 1m0s left (estimate)", 1)
	if len(got) != 5 || got[1] != want || got[2] != "  line 1: 6 samples" || got[3] != "unfinished" {
		t.Errorf("filtered:\n%s\nwant the progress line %q", sb.String(), want)
	}
	if tail := p.Tail(); len(tail) != 2 || tail[0] != "no GPU (none): running the CPU variants only" {
		t.Errorf("tail %q", tail)
	}
}

// A shard's progress lines count its own cases under its own name, where
// the benchmark binary counts the whole preset's, and its last says
// finished.
func TestProgressFilterShard(t *testing.T) {
	c := benchmarks.Case{Variant: "cpu-fast", Width: 64, Height: 48, Filter: "gauss3", Channels: 1, Timing: benchmarks.CPUTiming}
	est := benchmarks.SweepEstimate{Cases: []benchmarks.CaseEstimate{{Case: c, Low: time.Minute, High: time.Minute}}}
	var sb strings.Builder
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progressFilter{w: &sb, eta: benchmarks.NewETA(est), now: func() time.Time { return now }, name: "roofline.shard-2-of-24", total: 1}
	lines := []benchmarks.ProgressLine{
		{Sweep: "roofline", Total: 752, Left: "time left unknown", Case: c.Name()},
		{Sweep: "roofline", Done: 1, Total: 752, Elapsed: time.Minute, Left: "about 12h30m0s left"},
	}
	for _, l := range lines {
		p.Write([]byte(l.String() + "\n"))
	}
	got := strings.Split(strings.TrimSpace(sb.String()), "\n")
	want := []string{
		"sweep roofline.shard-2-of-24: 0/1 done, 0s elapsed, about 1m0s left (estimate) " + c.Name(),
		"sweep roofline.shard-2-of-24: 1/1 done, 1m0s elapsed, finished",
	}
	if !slices.Equal(got, want) {
		t.Errorf("filtered:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A case the binary skipped as unsupported does not fail the sweep: the
// file keeps its line, and the summary counts it and gives its reason. A
// run whose every case was skipped so writes nothing and says why.
func TestSweepUnsupported(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	const keys = "/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	refused := "# unsupported variant=cpu-fast/size=64x48/filter=gauss5" + strings.Replace(keys, "k=3", "k=5", 1) +
		": convolve: cpu-fast does not support image rows of 64x48x1 f32: over the cap of 16384\n"
	ran := "BenchmarkConv/variant=cpu-fast/size=64x48/filter=gauss3" + keys + " 1 1000 ns/op\n"
	for _, tt := range []struct {
		name, out string
		code      int
		want      []string
	}{
		{"some ran", "sweep: custom\ncpu: Test CPU\n" + refused + ran + "PASS\n", 0,
			[]string{"1 case unsupported, skipped: their variants refuse them at plan time", "  cpu-fast 64x48 gauss5 f32 cpu: convolve: cpu-fast does not support image rows of 64x48x1 f32: over the cap of 16384"}},
		{"none ran", "sweep: custom\ncpu: Test CPU\n" + refused + "PASS\n", exitFailed,
			[]string{"no case ran, nothing written: every case was skipped, 1 as unsupported; the first: cpu-fast 64x48 gauss5 f32 cpu: convolve: cpu-fast does not support"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			var stdout, stderr strings.Builder
			code := sweepMain([]string{"-bin", fakeBinary(t, tt.out, 0), "-variants", "cpu-fast", "-sizes", "64x48", "-filters", "gauss3,gauss5", "-count", "1", "-data", data}, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(collapse(stdout.String()+stderr.String()), collapse(w)) {
					t.Errorf("output lacks %q:\nstdout:\n%s\nstderr:\n%s", w, stdout.String(), stderr.String())
				}
			}
			files, _ := filepath.Glob(filepath.Join(data, "*", "*.txt"))
			if tt.code != 0 {
				if len(files) != 0 {
					t.Errorf("files %v written by a run without a result", files)
				}
				return
			}
			if len(files) != 1 {
				t.Fatalf("files %v, want one", files)
			}
			r := readRun(t, files[0])
			if len(r.Unsupported) != 1 || r.Unsupported[0].Keys["filter"] != "gauss5" || len(r.Failures) != 0 {
				t.Errorf("the file records unsupported %+v, failures %q: want the gauss5 case and no failure", r.Unsupported, r.Failures)
			}
		})
	}
}

// On the terminal a progress line names its case by the keys that vary
// in the sweep, and a note wider than results.TerminalWidth wraps under
// its indent.
func TestProgressFilterFits(t *testing.T) {
	var cases []benchmarks.Case
	for _, v := range []string{"cpu-fast", "cpu-naive"} {
		cases = append(cases, benchmarks.Case{Variant: v, Width: 64, Height: 48, Filter: "gauss3", Channels: 1, Timing: benchmarks.CPUTiming})
	}
	est := benchmarks.SweepEstimate{Cases: []benchmarks.CaseEstimate{{Case: cases[0], Low: time.Minute, High: time.Minute}, {Case: cases[1], Low: time.Minute, High: time.Minute}}}
	var sb strings.Builder
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progressFilter{w: &sb, eta: benchmarks.NewETA(est), now: func() time.Time { return now }, label: benchmarks.CaseLabels(caseNames(cases))}
	start := benchmarks.ProgressLine{Sweep: "custom", Total: 2, Left: "time left unknown", Case: cases[1].Name()}
	note := "  line 1: " + strings.Repeat("samples of runs, ", 10) + "stopped"
	p.Write([]byte(start.String() + "\n" + note + "\n"))
	lines := strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n")
	if len(lines) < 3 || !strings.HasSuffix(lines[0], "left (estimate) cpu-naive") {
		t.Errorf("filtered:\n%s\nwant the progress line to end in the case's variant alone", sb.String())
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > results.TerminalWidth {
			t.Errorf("line of %d columns: %s", n, l)
		}
	}
	if len(lines) > 2 && !strings.HasPrefix(lines[2], "    ") {
		t.Errorf("the note's second line %q is not indented under it", lines[2])
	}
}
