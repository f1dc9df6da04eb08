package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/results"
	"github.com/convbench/convbench/runfile"
	"golang.org/x/perf/benchfmt"
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
	if err := printSummary(&sb, readRun(t, path), ""); err != nil {
		t.Fatal(err)
	}
	got := sb.String()
	// Each case's time (ms) tells its row apart: cpu-fast gauss3, cpu-fast
	// gauss11, cpu-naive 512x512, cpu-naive 2048x2048, then the failure.
	order := []string{"0.00100", "0.00300", "0.00200", "0.00400", "1 case FAILED", "  cpu-fast 4096x4096 gauss3 f32 cpu\n"}
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

// A run in which no case ran (every selected variant needs a GPU and the
// host has none) ends with an error that gives the binary's reason, not
// with a parse error over the bare BenchmarkConv line Go prints for a
// benchmark without cases.
func TestNoCaseRan(t *testing.T) {
	out := strings.Join([]string{
		"sweep: custom",
		"gpu: none",
		runfile.MeasuredLine(runfile.KeyCPUCopyGBps, "53.5"),
		"# 2 GPU variants skipped: no CUDA device on this host (gpu-tiled, npp)",
		"BenchmarkConv \t       1\t     23975 ns/op",
		"PASS",
		"",
	}, "\n")
	r, err := results.ReadRun(strings.NewReader(out), "x/cpu/custom.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Samples) != 0 {
		t.Fatalf("%d samples from a run without cases", len(r.Samples))
	}
	err = noCaseRan(nil, r, []byte(out), nil)
	if err == nil || !strings.Contains(err.Error(), "no case ran") || !strings.Contains(err.Error(), "no CUDA device on this host") {
		t.Errorf("noCaseRan = %v, want no case ran and the reason", err)
	}
	if err != nil && strings.Contains(err.Error(), runfile.KeyCPUCopyGBps) {
		t.Errorf("noCaseRan = %v: a measured value is no reason", err)
	}
	// A binary that refused its flags printed no configuration: its own
	// words are the reason.
	err = noCaseRan(errors.New("exit status 2"), &results.Run{}, nil, []string{"benchmarks: noise target -1%: must be a positive percentage"})
	if err == nil || !strings.Contains(err.Error(), "noise target -1%") {
		t.Errorf("noCaseRan of a refusal = %v, want the binary's reason", err)
	}
}

// readRun reads the stored run at path.
func readRun(t *testing.T, path string) *results.Run {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := results.ReadRun(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return r
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

// cpuRunAxes readies a test that builds and runs the benchmark binary on
// the CPU, skipping it under -short or outside a git checkout: it returns
// the axis flags of a four-case sweep of cpu-fast (two filters, two
// types) and the axes they set.
func cpuRunAxes(t *testing.T) ([]string, benchmarks.Axes) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the benchmark binary (a few seconds)")
	}
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	t.Setenv("CONVBENCH_LIBCUDA", "/nonexistent/libcuda.so.1")
	args := []string{"-variants=cpu-fast", "-sizes=64x48", "-filters=gauss3,dense5", "-types=u8,f32"}
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
	return args, axes
}

// The sweep command builds a sweep from axis flags alone, passes them to
// the benchmark binary and stores its output, one standard benchmark line
// per case, under a name of its own.
func TestRunAxisFlags(t *testing.T) {
	args, axes := cpuRunAxes(t)
	data := t.TempDir()
	o := &options{axes: axes, args: args, count: 1, noise: 1, maxTime: 50 * time.Millisecond, dataDir: data}
	var stdout, stderr strings.Builder
	if err := run(o, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 cases, 1 lines each; estimated duration about", "about", "left (estimate)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	files, _ := filepath.Glob(filepath.Join(data, "*", runName("custom", args)+".txt"))
	if len(files) != 1 {
		t.Fatalf("files %v, want one custom-<digest>.txt", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	r := benchfmt.NewReader(f, files[0])
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Error(rec)
		case *benchfmt.Result:
			if _, ok := rec.Value("sec/op"); !ok {
				t.Errorf("%s: no sec/op", rec.Name.Full())
			}
			names = append(names, string(rec.Name.Full()))
		}
	}
	var want []string
	for _, fk := range []string{"filter=gauss3/k=3", "filter=dense5/k=5"} {
		for _, typ := range []string{"u8", "f32"} {
			want = append(want, "Conv/variant=cpu-fast/size=64x48/"+fk+"/block=none/border=zero/type="+typ+"/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none")
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("benchmarks\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

func TestRunName(t *testing.T) {
	if got := runName("default", nil); got != "default" {
		t.Errorf("runName(default) = %s", got)
	}
	a := runName("custom", []string{"-sizes=64x48"})
	b := runName("custom", []string{"-sizes=64x64"})
	if a == b || !strings.HasPrefix(a, "custom-") || len(a) != len("custom-")+8 || a != runName("custom", []string{"-sizes=64x48"}) {
		t.Errorf("runName: %s and %s; want custom-<8 hex digits>, stable and different for other axes", a, b)
	}
}

// File paths given to -image and -filters reach the binary, which runs in
// the benchmarks directory, as absolute paths.
func TestAbsPaths(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w.txt")
	if err := os.WriteFile(w, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	got := absPaths([]string{"-filters=gauss3,w.txt", "-image=w.txt", "-sizes=8x8"})
	want := []string{"-filters=gauss3," + w, "-image=" + w, "-sizes=8x8"}
	if !slices.Equal(got, want) {
		t.Errorf("absPaths = %q, want %q", got, want)
	}
}

// Outside a git checkout the root is the directory of go.mod and the
// commit is unknown.
func TestCheckoutWithoutGit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "benchmarks")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	t.Setenv("GIT_DIR", filepath.Join(dir, "no-git"))
	root, commit, err := checkout()
	if err != nil || root != dir || !strings.HasPrefix(commit, "unknown") {
		t.Errorf("checkout() = %q, %q, %v; want %q and an unknown commit", root, commit, err, dir)
	}
}

func TestBinaryCommit(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "benchmarks.test")
	if _, ok := binaryCommit(bin); ok {
		t.Errorf("binaryCommit without a COMMIT file reported one")
	}
	if err := os.WriteFile(filepath.Join(dir, "COMMIT"), []byte("702f740 (with uncommitted changes)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, ok := binaryCommit(bin)
	if want := "702f740 (with uncommitted changes) (prebuilt benchmarks.test)"; !ok || c != want {
		t.Errorf("binaryCommit = %q, %v; want %q", c, ok, want)
	}
}

// kernelFile writes a copy of the example kernel with the given
// description header and returns its path.
func kernelFile(t *testing.T, name, header string) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "kernels", "direct.cu"))
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(body), "#include")
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(header+"\n#include"+code), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// -kernel adds a variant that -variants names wherever it stands; the
// binary gets the kernel's absolute path, and the run's name differs from
// the preset's.
func TestParseFlagsKernel(t *testing.T) {
	p := kernelFile(t, "sweepk.cu", "// convbench:kernel\n// entry: direct_conv")
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	o, err := parseFlags(fs, []string{"-variants", "user-sweepk|cpu-fast", "-sizes", "64x48", "-kernel", p})
	if err != nil {
		t.Fatal(err)
	}
	if o.preset != "" || len(o.axes.Variants) != 2 || !slices.Contains(o.axes.Variants, "user-sweepk") {
		t.Errorf("preset %q variants %v: want the axes alone with user-sweepk", o.preset, o.axes.Variants)
	}
	if !slices.Contains(o.args, "-kernel="+p) {
		t.Errorf("binary args %v: want -kernel=%s", o.args, p)
	}
	fs = flag.NewFlagSet("sweep", flag.ContinueOnError)
	o, err = parseFlags(fs, []string{"-kernel", p})
	if err != nil {
		t.Fatal(err)
	}
	if o.preset != "default" || runName("default", o.args) == "default" {
		t.Errorf("-kernel alone: preset %q, run name %q: want the default preset under a name of its own", o.preset, runName("default", o.args))
	}
}

// The benchmark binary gets -prove-timeout, the limit of the property
// suite on one user kernel, when -kernel adds one, and every -kernel
// flag given; without a user kernel it gets no -prove-timeout.
func TestProveTimeoutArgs(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	t.Setenv("CONVBENCH_LIBCUDA", "/nonexistent/libcuda.so.1")
	k1 := kernelFile(t, "provea.cu", "// convbench:kernel\n// entry: direct_conv")
	k2 := kernelFile(t, "proveb.cu", "// convbench:kernel\n// entry: direct_conv")
	const c = "variant=cpu-fast/size=64x48/filter=gauss3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	axes := []string{"-variants", "cpu-fast|user-prove.*", "-sizes", "64x48", "-filters", "gauss3", "-types", "f32"}
	for _, tt := range []struct {
		name string
		args []string
		want []string // in the binary's arguments
		not  string
	}{
		{"kernels", []string{"-kernel", k1, "-prove-timeout", "90s", "-kernel", k2}, []string{"-prove-timeout=1m30s", "-kernel=" + k1, "-kernel=" + k2}, ""},
		{"default", []string{"-kernel", k1}, []string{"-prove-timeout=10m0s", "-kernel=" + k1}, ""},
		{"no kernel", []string{"-prove-timeout", "90s"}, nil, "-prove-timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, log := filepath.Join(dir, "benchmarks.test"), filepath.Join(dir, "args.log")
			script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\necho 'sweep: custom'\necho 'cpu: Test CPU'\n" +
				"echo 'sweep custom: 0/1 done, 0s elapsed, time left unknown " + c + "' >&2\n" +
				"echo 'BenchmarkConv/" + c + " 1 1000 ns/op'\necho 'sweep custom: 1/1 done, 0s elapsed, finished' >&2\necho PASS\n"
			if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			args := append(append([]string{"-bin", bin, "-data", t.TempDir(), "-count", "1"}, axes...), tt.args...)
			if code := sweepMain(args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr.String())
			}
			got, _ := os.ReadFile(log)
			fields := strings.Fields(string(got))
			for _, w := range tt.want {
				if !slices.Contains(fields, w) {
					t.Errorf("binary args %q lack %s", got, w)
				}
			}
			if tt.not != "" && strings.Contains(string(got), tt.not) {
				t.Errorf("binary args %q hold %s", got, tt.not)
			}
		})
	}
}

// A bad kernel description is an error naming the file, line, field and
// valid values, not a panic; so is a description-less file.
func TestParseFlagsBadKernel(t *testing.T) {
	bad := kernelFile(t, "badtypes.cu", "// convbench:kernel\n// entry: direct_conv\n// types: f32, f16")
	none := kernelFile(t, "nodesc.cu", "// a kernel without a description")
	for file, want := range map[string]string{
		bad:  bad + ":3: types: \"f32, f16\": \"f16\" is not a valid value (valid: f32, u8, i16)",
		none: none + ": no kernel description",
	} {
		fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		_, err := parseFlags(fs, []string{"-variants", "cpu-fast", "-kernel", file})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// A time reads ±∞ (too few runs for an interval) only under 5 runs, and
// the legend says what that means.
func TestPrintSummaryInfiniteNote(t *testing.T) {
	const keys = "/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none/opts=none"
	for _, tc := range []struct {
		runs int
		note bool
	}{{1, true}, {3, true}, {5, false}} {
		lines := []string{"cpu: Test CPU"}
		for i := range tc.runs {
			lines = append(lines, fmt.Sprintf("BenchmarkConv/variant=cpu-fast/size=64x64/filter=gauss3%s 1 %d ns/op", keys, 1000+i))
		}
		path := filepath.Join(t.TempDir(), "cpu-test", "x.txt")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		if err := printSummary(&sb, readRun(t, path), ""); err != nil {
			t.Fatal(err)
		}
		out := sb.String()
		row := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "cpu-fast") {
				row = l
			}
		}
		if got := strings.Contains(row, "±∞"); got != tc.note {
			t.Errorf("%d runs: ±∞ shown %v, want %v:\n%s", tc.runs, got, tc.note, out)
		}
		if !strings.Contains(out, "±∞: too few runs") {
			t.Errorf("%d runs: the legend does not say what ±∞ means:\n%s", tc.runs, out)
		}
	}
}

// The estimate says how many GPU cases' short lines add an energy phase:
// a hot kernel case's do, a cold one's and a CPU case's do not.
func TestPrintEstimateEnergyPhase(t *testing.T) {
	mk := func(v string, gpu bool, timing benchmarks.Timing, cache benchmarks.Cache) benchmarks.Case {
		return benchmarks.Case{Variant: v, Op: convolve.Filter2D, Width: 1024, Height: 1024, Filter: "gauss5", Type: convolve.Float32, Channels: 1,
			Cache: cache, Timing: timing, GPU: gpu}
	}
	cases := []benchmarks.Case{
		mk("gpu-regtile", true, benchmarks.KernelTiming, benchmarks.Hot),
		mk("gpu-regtile", true, benchmarks.KernelTiming, benchmarks.Cold),
		mk("cpu-fast", false, benchmarks.CPUTiming, benchmarks.Hot),
	}
	probe := func(benchmarks.Case) (time.Duration, error) { return time.Millisecond, nil }
	var sb strings.Builder
	printEstimate(&sb, "test", benchmarks.EstimateSweep(cases, benchmarks.DefaultNoise, 2, probe))
	if want := "2 GPU cases at a nominal rate; the lines of 1 of them that span under 1s add an energy phase of about 410ms, as on a GPU whose energy counter updates every 100ms)"; !strings.Contains(collapse(sb.String()), want) {
		t.Errorf("estimate %q lacks %q", sb.String(), want)
	}
}

// The estimate says that a case whose probe its variant refuses as
// unsupported will be skipped, and that one whose probe fails otherwise
// will fail.
func TestPrintEstimateUnsupported(t *testing.T) {
	cases := []benchmarks.Case{
		{Variant: "cpu-refusing", Op: convolve.Filter2D, Width: 64, Height: 48, Filter: "gauss5", Type: convolve.Float32, Channels: 1, Timing: benchmarks.CPUTiming},
		{Variant: "cpu-failing", Op: convolve.Filter2D, Width: 64, Height: 48, Filter: "gauss5", Type: convolve.Float32, Channels: 1, Timing: benchmarks.CPUTiming},
	}
	probe := func(c benchmarks.Case) (time.Duration, error) {
		if c.Variant == "cpu-refusing" {
			return 0, fmt.Errorf("plan: %w", &convolve.CapabilityError{Variant: c.Variant, What: "image rows", Value: "of 64x48"})
		}
		return 0, errors.New("plan: out of handles")
	}
	var sb strings.Builder
	printEstimate(&sb, "test", benchmarks.EstimateSweep(cases, benchmarks.DefaultNoise, 2, probe))
	for _, want := range []string{
		"sweep: cpu-refusing refuses cpu-refusing 64x48 gauss5 f32 as unsupported, the run will skip it: plan: convolve: cpu-refusing does not support image rows of 64x48",
		"sweep: the probe of cpu-failing 64x48 gauss5 f32 failed, the run will fail it too: plan: out of handles",
	} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("estimate lacks %q:\n%s", want, sb.String())
		}
	}
}

// -h prints every flag with its type and default, and nothing the flag
// package says of a value that panicked.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := sweepMain([]string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("sweep -h exited %d: %s", code, stderr.String())
	}
	out := stderr.String()
	for _, want := range []string{"usage: sweep", "-count int", "-max-time duration", "-bin string", "-publish", "(default 6)", "-dry-run", "-report"} {
		if !strings.Contains(out, want) {
			t.Errorf("usage lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "panic") {
		t.Errorf("usage reports a panic:\n%s", out)
	}
}

// collapse replaces each run of white space in s, such as a wrapped
// line's break and indent, with one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestPrintWrapped(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, tt := range []struct {
		s      string
		indent string
	}{
		{"short line", ""},
		{"  an indented note", "  "},
		{long, ""},
		{"    " + long, "    "},
	} {
		var b strings.Builder
		if err := printWrapped(&b, tt.s); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if words := strings.Fields(b.String()); !slices.Equal(words, strings.Fields(tt.s)) {
			t.Errorf("printWrapped(%.20q…) lost or changed words: %q", tt.s, words)
		}
		for i, l := range lines {
			want := tt.indent
			if i > 0 {
				want += "  "
			}
			if len(l) > results.TerminalWidth || !strings.HasPrefix(l, want) || strings.HasPrefix(l, want+" ") {
				t.Errorf("printWrapped(%.20q…) line %d = %q: want at most %d columns behind %q", tt.s, i+1, l, results.TerminalWidth, want)
			}
		}
		if len(tt.s) > results.TerminalWidth && len(lines) < 2 {
			t.Errorf("printWrapped of %d characters wrote one line", len(tt.s))
		}
	}
}
