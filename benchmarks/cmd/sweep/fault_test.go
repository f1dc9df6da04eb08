package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// faultCases are the four cases of faultArgs, in the order they run.
var faultCases = func() []string {
	var names []string
	for _, fk := range []string{"filter=gauss3/k=3", "filter=dense5/k=5"} {
		for _, typ := range []string{"u8", "f32"} {
			names = append(names, "variant=cpu-fast/size=64x48/"+fk+"/block=none/border=zero/type="+typ+"/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none")
		}
	}
	return names
}()

var faultArgs = []string{"-variants", "cpu-fast", "-sizes", "64x48", "-filters", "gauss3,dense5", "-types", "u8,f32"}

// caseRun is the fake binary's shell code that runs case i (0-based) of
// faultCases: its progress line on stderr, its result line on stdout.
func caseRun(i int) string {
	return "echo 'sweep custom: " + itoa(i) + "/4 done, 0s elapsed, time left unknown " + faultCases[i] + "' >&2\n" +
		"echo 'BenchmarkConv/" + faultCases[i] + " 1 " + itoa(1000*(i+1)) + " ns/op'\n"
}

// faultyBinary writes a fake test binary: its first run runs the cases
// before bad, then does what fault says at case bad; a run given
// -test.skip (a restart) runs the cases after bad. Each run's arguments
// are appended to the returned log.
func faultyBinary(t *testing.T, bad int, fault string) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "benchmarks.test"), filepath.Join(dir, "args.log")
	first := "echo 'sweep: custom'\necho 'cpu: Test CPU'\n"
	for i := range bad {
		first += caseRun(i)
	}
	first += "echo 'sweep custom: " + itoa(bad) + "/4 done, 0s elapsed, time left unknown " + faultCases[bad] + "' >&2\n" + fault
	rest := "echo 'sweep: custom'\necho 'cpu: Test CPU'\n"
	for i := bad + 1; i < len(faultCases); i++ {
		rest += caseRun(i)
	}
	rest += "echo 'sweep custom: 4/4 done, 0s elapsed, finished' >&2\necho PASS\n"
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\ncase \"$*\" in\n*-test.skip*)\n" + rest + ";;\n*)\n" + first + ";;\nesac\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// A case that crashes the binary (a sticky CUDA error, then exit 1) or
// hangs it (past -case-timeout) fails alone: the sweep names it with the
// command that reproduces it, restarts the binary on the cases not yet
// run, writes every other case's line and exits 1.
func TestFaultIsolation(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	sticky := "echo '--- FAIL: BenchmarkConv/" + faultCases[1] + "'\n" +
		"echo '    bench_test.go:134: cpu-fast: timing: cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)'\n"
	for _, tt := range []struct {
		name, fault string
		args        []string
		want        []string
	}{
		{"sticky", sticky + "sleep 30\n", nil, []string{"crash of cpu-fast, case " + faultCases[1], "sticky CUDA error", "CUDA_ERROR_ILLEGAL_ADDRESS"}},
		{"crash", "echo 'SIGSEGV: segmentation violation' >&2\nexit 2\n", nil, []string{"crash of cpu-fast, case " + faultCases[1], "exit status 2: SIGSEGV: segmentation violation"}},
		{"hang", "sleep 30\n", []string{"-case-timeout", "1s"}, []string{"hang of cpu-fast, case " + faultCases[1], "still running after 1s (-case-timeout)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin, log := faultyBinary(t, 1, tt.fault)
			data := t.TempDir()
			var stdout, stderr strings.Builder
			start := time.Now()
			code := sweepMain(append(append([]string{"-bin", bin, "-data", data, "-count", "1"}, faultArgs...), tt.args...), &stdout, &stderr)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the sweep took %v: it waited for the faulty binary", took)
			}
			t.Logf("stderr:\n%s", stderr.String())
			if code != exitFailed {
				t.Errorf("exit %d, want %d", code, exitFailed)
			}
			repro := "reproduce alone: cd benchmarks && " + bin + " -test.run '^$' -test.bench '" + casePattern(faultCases[1]) + "'"
			for _, w := range append(tt.want, repro, "1 case failed by ending the benchmark binary") {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q", w)
				}
			}
			files, _ := filepath.Glob(filepath.Join(data, "*", "*.txt"))
			if len(files) != 1 {
				t.Fatalf("files %v, want one", files)
			}
			r := readRun(t, files[0])
			var got []string
			for _, s := range r.Samples {
				got = append(got, s.Keys["filter"]+"/"+s.Keys["type"])
			}
			slices.Sort(got)
			if want := "dense5/f32 dense5/u8 gauss3/u8"; strings.Join(got, " ") != want {
				t.Errorf("cases in the file %v, want %s", got, want)
			}
			if len(r.Failures) != 1 || !strings.HasPrefix(r.Failures[0], "--- FAIL: BenchmarkConv/"+faultCases[1]) {
				t.Errorf("failures %q, want the faulting case once", r.Failures)
			}
			b, _ := os.ReadFile(files[0])
			if !strings.Contains(string(b), "# fault "+tt.want[0]) || !strings.Contains(string(b), repro) {
				t.Errorf("the file does not record the fault and its command:\n%s", b)
			}
			runs, _ := os.ReadFile(log)
			lines := strings.Split(strings.TrimSpace(string(runs)), "\n")
			if len(lines) != 2 || !strings.Contains(lines[1], "-test.skip "+casePattern(faultCases[1])+"|"+casePattern(faultCases[0])) {
				t.Errorf("runs of the binary:\n%s\nwant two, the second skipping the first two cases", runs)
			}
		})
	}
}

// A restart that runs no case ends the sweep with an error naming the
// fault it followed, instead of restarting again.
func TestFaultNoProgress(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	bin, log := faultyBinary(t, 1, "exit 1\n")
	script, _ := os.ReadFile(bin)
	// The restart dies before its first case.
	s := strings.Replace(string(script), "*-test.skip*)\n", "*-test.skip*)\necho 'no device' >&2\nexit 3\n", 1)
	if err := os.WriteFile(bin, []byte(s), 0o755); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var stdout, stderr strings.Builder
	code := sweepMain(append([]string{"-bin", bin, "-data", data, "-count", "1"}, faultArgs...), &stdout, &stderr)
	if want := "the restarted benchmark binary ran no case after the crash of " + faultCases[1] + " (exit status 3: no device); stopped with 2 cases not run"; code != exitFailed || !strings.Contains(collapse(stderr.String()), want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr.String(), want)
	}
	if runs, _ := os.ReadFile(log); strings.Count(string(runs), "\n") != 2 {
		t.Errorf("runs of the binary:\n%s\nwant two", runs)
	}
	if files, _ := filepath.Glob(filepath.Join(data, "*", "*.txt")); len(files) != 1 {
		t.Errorf("files %v, want the first case's run", files)
	}
}

func TestSkipPattern(t *testing.T) {
	all := []string{"variant=a/x=1", "variant=a/x=2", "variant=b/x=1", "variant=b/x=2"}
	for _, tt := range []struct {
		done []string
		want string
	}{
		{[]string{"variant=a/x=1"}, "^BenchmarkConv$/^variant=a$/^x=1$"},
		{[]string{"variant=a/x=1", "variant=a/x=2", "variant=b/x=1"}, "^BenchmarkConv$/^variant=a$|^BenchmarkConv$/^variant=b$/^x=1$"},
		{[]string{"variant=b/x=1.5"}, `^BenchmarkConv$/^variant=b$/^x=1\.5$`},
	} {
		done := map[string]bool{}
		for _, d := range tt.done {
			done[d] = true
		}
		if got := skipPattern(all, done); got != tt.want {
			t.Errorf("skipPattern(%v) = %q, want %q", tt.done, got, tt.want)
		}
	}
}

// TestStartedCases: the cases a run started are those its progress lines
// named, then those its stdout names on result and "--- FAIL" lines and
// the sticky fault's, each once: a binary stopped at a sticky error
// before its progress lines were read has still started the cases it
// printed.
func TestStartedCases(t *testing.T) {
	out := []byte("goos: linux\n" +
		"BenchmarkConv/variant=a/size=8x8 \t       1\t      100 ns/op\n" +
		"BenchmarkConv/variant=d/size=8x8 1 100 ns/op\n" +
		"BenchmarkConv/variant=a/size=8x8 \t       1\t      101 ns/op\n" +
		"# setting variant=b/size=8x8: block=8x8\n" +
		"--- FAIL: BenchmarkConv/variant=b/size=8x8\n" +
		"    bench_test.go:1: CUDA_ERROR_ILLEGAL_ADDRESS\n")
	sticky := &fault{Case: "variant=b/size=8x8", Kind: faultCrash}
	for _, tt := range []struct {
		name     string
		progress []string
		f        *fault
		want     []string
	}{
		{"no progress read", nil, sticky, []string{"variant=a/size=8x8", "variant=d/size=8x8", "variant=b/size=8x8"}},
		{"progress read", []string{"variant=a/size=8x8", "variant=d/size=8x8", "variant=b/size=8x8"}, sticky, []string{"variant=a/size=8x8", "variant=d/size=8x8", "variant=b/size=8x8"}},
		{"fault without output", []string{"variant=z/size=1x1"}, &fault{Case: "variant=c/size=8x8"}, []string{"variant=z/size=1x1", "variant=a/size=8x8", "variant=d/size=8x8", "variant=b/size=8x8", "variant=c/size=8x8"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := startedCases(tt.progress, out, tt.f); !slices.Equal(got, tt.want) {
				t.Errorf("startedCases = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFailedCase(t *testing.T) {
	for _, tt := range []struct {
		line, want string
		ok         bool
	}{
		{"--- FAIL: BenchmarkConv/variant=gpu-tiled/size=64x64", "variant=gpu-tiled/size=64x64", true},
		{"--- FAIL: BenchmarkConv/variant=gpu-tiled/size=64x64#01 (0.00s)", "variant=gpu-tiled/size=64x64", true},
		{"BenchmarkConv/variant=npp-1 1 5 ns/op --- FAIL: BenchmarkConv/variant=npp#02", "variant=npp", true},
		{"--- FAIL: BenchmarkConv/", "", false},
		{"ok  	github.com/convbench/convbench/benchmarks", "", false},
	} {
		got, ok := failedCase(tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("failedCase(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
