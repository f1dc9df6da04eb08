package main

import (
	"errors"
	"github.com/convbench/convbench/runfile"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeProperties stands in for the property suite's test binary: it
// prints its folder and arguments and passes three tests, or fails two where its
// -props.seed is $FAKE_FAIL_SEED.
const fakeProperties = `#!/bin/sh
seed=
echo "pwd[$(pwd)]"
for a in "$@"; do echo "arg[$a]"; case $a in -props.seed=*) seed=${a#*=} ;; esac; done
echo "=== RUN   TestProperties"
echo "    props_test.go:107: props.seed=$seed"
echo "    --- PASS: TestProperties/gpu-tiled (0.00s)"
if [ "$seed" = "$FAKE_FAIL_SEED" ]; then
  printf -- '    --- FAIL: TestProperties/gpu-naive (0.00s)\n--- FAIL: TestProperties (0.00s)\nFAIL\n'
  exit 1
fi
printf -- '    --- PASS: TestProperties/gpu-naive (0.00s)\n--- PASS: TestProperties (0.00s)\nPASS\n'
`

// releaseHost is a stand-in GPU host in this repository (the faults
// stage's kernels are its own) with stand-in binaries: the test binaries
// of convolve and properties, the sweep (fakeSweep, the faults stage's
// run from the committed run in which every kernel is as expected), the
// report and the gallery (exiting $FAKE_REPORT_RC and $FAKE_GALLERY_RC).
func releaseHost(t *testing.T) *host {
	h := newHost(t)
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	h.root = root
	h.packages(map[string]string{"convolve": "example.org/m/convolve", "properties": "example.org/m/properties"})
	h.exe(h.bin, "convolve.test", fakeTest)
	h.exe(h.bin, "properties.test", fakeProperties)
	h.exe(h.bin, "sweep", fakeSweep)
	h.exe(h.bin, "report", strings.Replace(printArgs, "FAKE_RC", "FAKE_REPORT_RC", 1))
	h.exe(h.bin, "gallery", strings.Replace(printArgs, "FAKE_RC", "FAKE_GALLERY_RC", 1))
	for _, v := range []string{"FAKE_FAIL_SEED", "FAKE_UNSTABLE", "FAKE_FAIL_CASE", "FAKE_SWEEP_RC", "FAKE_REPORT_RC", "FAKE_GALLERY_RC"} {
		t.Setenv(v, "")
	}
	t.Setenv("FAKE_FAULTS_RUN", filepath.Join(root, committedFaults[0].run))
	return h
}

// TestRelease runs the release check over stand-ins, each way it can
// fail, and checks release-summary.txt: a line a seed (the test run's
// first), the sweep's counts, the report's, gallery's and faults' exit
// statuses, and the verdict with why; and the exit status.
func TestRelease(t *testing.T) {
	seedLines := "seed=11 pass=6 fail=0 secs=0\nseed=22 pass=3 fail=0 secs=0\nseed=33 pass=3 fail=0 secs=0\nseed=44 pass=3 fail=0 secs=0\n"
	okBench := "bench rc=0 cases=3 failed=0 unsupported=1 unstable=0 secs=0\n"
	okRest := "report rc=0\ngallery rc=0\nfaults rc=0\n"
	for _, tt := range []struct {
		name string
		env  []string
		want string
	}{
		{"ok", nil, seedLines + okBench + okRest + "release ok\n"},
		{"the test run's seed fails", []string{"FAKE_FAIL_SEED=11"},
			strings.Replace(seedLines, "seed=11 pass=6 fail=0", "seed=11 pass=4 fail=2", 1) + okBench + okRest +
				"release NOT OK: the test run at seed 11: 2 failed\n"},
		{"another seed fails", []string{"FAKE_FAIL_SEED=33"},
			strings.Replace(seedLines, "seed=33 pass=3 fail=0", "seed=33 pass=1 fail=2", 1) + okBench + okRest +
				"release NOT OK: the property suite at seed 33: 2 failed\n"},
		{"a case fails", []string{"FAKE_FAIL_CASE=1", "FAKE_SWEEP_RC=1"},
			seedLines + "bench rc=1 cases=3 failed=1 unsupported=1 unstable=0 secs=0\n" + okRest +
				"release NOT OK: bench: the sweep exited 1; bench: 1 cases failed\n"},
		{"too many unstable", []string{"FAKE_UNSTABLE=1"},
			seedLines + "bench rc=0 cases=3 failed=0 unsupported=1 unstable=1 secs=0\n" + okRest +
				"release NOT OK: bench: 1 of 3 cases unstable, over a tenth\n"},
		{"report and gallery fail", []string{"FAKE_REPORT_RC=2", "FAKE_GALLERY_RC=1"},
			seedLines + okBench + "report rc=2\ngallery rc=1\nfaults rc=0\n" +
				"release NOT OK: report exited 2; gallery exited 1\n"},
		{"faults not as expected", []string{"FAKE_FAULTS_RUN=" + filepath.Join(repoRoot, committedFaults[1].run)},
			seedLines + okBench + "report rc=0\ngallery rc=0\nfaults rc=1\n" +
				"release NOT OK: faults: see faults-summary.txt\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := releaseHost(t)
			t.Setenv("RELEASE_SEEDS", "11,22,33,44")
			for _, e := range tt.env {
				k, v, _ := strings.Cut(e, "=")
				if k == "FAKE_FAULTS_RUN" {
					v, _ = filepath.Abs(v)
				}
				t.Setenv(k, v)
			}
			stdout, code := h.run("release")
			got := h.read("release-summary.txt")
			if zeroSecs(got) != tt.want {
				t.Errorf("release-summary.txt:\n%s\nwant\n%s", got, tt.want)
			}
			if wantCode := map[bool]int{true: 0, false: 1}[strings.HasSuffix(tt.want, "release ok\n")]; code != wantCode {
				t.Errorf("exit status %d, want %d\n%s", code, wantCode, stdout)
			}
			if !strings.Contains(stdout, got) {
				t.Errorf("release-summary.txt was not printed:\n%s", stdout)
			}
			if i := strings.LastIndex(stdout, "stage"); i < 0 || !strings.HasPrefix(strings.TrimSpace(stdout[i+len("stage"):]), "result") || !strings.Contains(stdout[i:], "\nrelease ") {
				t.Errorf("the output does not end with the table of stages:\n%s", stdout)
			}
		})
	}
}

// TestReleaseSteps checks what the release check runs: the test run with
// the first seed given to the property suite alone, the suite at the
// three others with its budget flags from properties/, the default sweep
// from the prebuilt binaries into OUTDIR/data, its report and gallery
// from that data, and the faults stage; every log names its command.
func TestReleaseSteps(t *testing.T) {
	h := releaseHost(t)
	t.Setenv("RELEASE_SEEDS", "11,22,33,44")
	t.Setenv("RELEASE_PROPS_N", "7")
	if stdout, code := h.run("release"); code != 0 {
		t.Fatalf("exit status %d\n%s", code, stdout)
	}
	for _, tt := range []struct {
		log  string
		want []string
	}{
		{"test-properties.log", []string{"-test.v", "-test.timeout", "6m0s", "-props.seed=11", "-props.n=7", "-props.time=2s", "-props.pool=4"}},
		{"test-convolve.log", []string{"-test.v", "-test.timeout", "6m0s"}},
		{"release-props-22.log", []string{"-test.v", "-test.run=^TestProperties$", "-test.timeout", "6m0s", "-props.seed=22", "-props.n=7", "-props.time=2s", "-props.pool=4"}},
		{"release-props-44.log", []string{"-test.v", "-test.run=^TestProperties$", "-test.timeout", "6m0s", "-props.seed=44", "-props.n=7", "-props.time=2s", "-props.pool=4"}},
		{"release-sweep.log", []string{"-bin", filepath.Join(h.bin, "benchmarks.test"), "-data", filepath.Join(h.out, "data"),
			"-sweep=default", "-count", "2", "-noise=1", "-max-time=1s"}},
		{"release-report.log", []string{"-data", filepath.Join(h.out, "data"), "-out", filepath.Join(h.out, "report")}},
		{"release-gallery.log", []string{"-data", filepath.Join(h.out, "data"), "-out", filepath.Join(h.out, "report", "gallery")}},
	} {
		log := h.read(tt.log)
		if got := args(log); !slices.Equal(got, tt.want) {
			t.Errorf("%s: arguments %q, want %q", tt.log, got, tt.want)
		}
		if !strings.HasPrefix(strings.Split(log, "\n")[1], "# command: (cd ") {
			t.Errorf("%s does not name its command on its second line:\n%s", tt.log, log)
		}
	}
	if !strings.Contains(h.read("release-props-22.log"), "pwd["+filepath.Join(h.root, "properties")+"]") {
		t.Errorf("the property suite did not run from properties/")
	}
	if !strings.HasSuffix(h.read("faults-summary.txt"), "faults ok: 7 kernels as expected\n") {
		t.Errorf("faults-summary.txt:\n%s", h.read("faults-summary.txt"))
	}
}

// TestReleaseFreshSeeds: without RELEASE_SEEDS the check draws four
// distinct positive seeds, prints them, and gives the first to the test
// run.
func TestReleaseFreshSeeds(t *testing.T) {
	h := releaseHost(t)
	stdout, _ := h.run("release")
	var seeds []int64
	for _, l := range strings.Split(h.read("release-summary.txt"), "\n") {
		if v, ok := strings.CutPrefix(l, "seed="); ok {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil || n <= 0 {
				t.Errorf("seed line %q", l)
			}
			seeds = append(seeds, n)
		}
	}
	if len(seeds) != 4 || len(slices.Compact(slices.Sorted(slices.Values(seeds)))) != 4 {
		t.Fatalf("seeds %v, want 4 distinct", seeds)
	}
	want := "release: seeds " + strconv.FormatInt(seeds[0], 10) + " (the test run's), " + strconv.FormatInt(seeds[1], 10)
	if !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	if !slices.Contains(args(h.read("test-properties.log")), seedFlag(seeds[0])) {
		t.Errorf("the test run's property suite did not get %s", seedFlag(seeds[0]))
	}
	for _, bad := range []string{"1,2,3", "1,2,3,x", "1,2,3,0"} {
		t.Setenv("RELEASE_SEEDS", bad)
		if stdout, code := h.run("release"); code != 1 || !strings.Contains(stdout, "release NOT OK: RELEASE_SEEDS="+bad) {
			t.Errorf("RELEASE_SEEDS=%s: exit status %d\n%s", bad, code, stdout)
		}
	}
}

// TestReleaseLines covers verdicts the stand-ins do not reach: a test run
// that could not list its binaries, a sweep without a run file or
// without cases, a seed that ran no test.
func TestReleaseLines(t *testing.T) {
	seeds := []seedResult{{1, 5, 0, 9}, {2, 0, 0, 1}, {3, 4, 0, 1}, {4, 4, 0, 1}}
	lines, why := releaseLines(seeds, errors.New("no test binaries"), benchResult{err: errors.New("the sweep wrote no run file")}, 0, 0, true)
	want := "the property suite at seed 2: no test passed; the test run: no test binaries; bench: the sweep wrote no run file"
	if why != want || lines[len(lines)-1] != "release NOT OK: "+want || lines[0] != "seed=1 pass=5 fail=0 secs=9" {
		t.Errorf("releaseLines:\n%s\nwhy %q", strings.Join(lines, "\n"), why)
	}
	seeds[1].pass = 3
	if _, why := releaseLines(seeds, nil, benchResult{}, 0, 0, true); why != "bench: no case in the run file" {
		t.Errorf("a run without cases: %q", why)
	}
	if lines, why := releaseLines(seeds, nil, benchResult{cases: 87, unstable: 8, unsupported: 2}, 0, 0, true); why != "" || lines[4] != "bench rc=0 cases=87 failed=0 unsupported=2 unstable=8 secs=0" {
		t.Errorf("8 of 87 unstable: %q\n%s", why, strings.Join(lines, "\n"))
	}
}

// TestUnsupportedCases counts the cases a run file's unsupported lines
// name, each once, and no other line.
func TestUnsupportedCases(t *testing.T) {
	for _, tt := range []struct {
		lines []string
		want  int
	}{
		{nil, 0},
		{[]string{runfile.UnsupportedLine("variant=a/size=8x8", "plan: over the cap"), runfile.UnsupportedLine("variant=a/size=8x8", "again")}, 1},
		{[]string{runfile.UnsupportedLine("variant=a/size=8x8", "why"), runfile.UnsupportedLine("variant=b/size=8x8", "why"), "--- SKIP: BenchmarkConv/variant=c (0.00s)"}, 2},
		{[]string{"# unsupported", "# setting variant=a: block=8x8", "--- FAIL: BenchmarkConv/variant=a", "BenchmarkConv/variant=a 1 1 ns/op", "# skip: variant=b: why"}, 0},
	} {
		if got := unsupportedCases(tt.lines); got != tt.want {
			t.Errorf("unsupportedCases(%q) = %d, want %d", tt.lines, got, tt.want)
		}
	}
}

// TestReleaseTimeouts: the test run's and the extra seeds' timeouts are
// their settings cut to what the check's whole budget leaves once the
// sweep is done, less 20 s, and never under 30 s.
func TestReleaseTimeouts(t *testing.T) {
	for _, tt := range []struct {
		name      string
		env       map[string]string
		elapsed   time.Duration
		test, pro string
	}{
		{"defaults, at once", nil, 0, "6m0s", "6m0s"},
		{"defaults, after a 4-minute sweep", nil, 4 * time.Minute, "5m10s", "5m10s"},
		{"settings under the budget", map[string]string{"RELEASE_TEST_TIMEOUT": "2m", "RELEASE_PROPS_TIMEOUT": "90s"}, time.Minute, "2m0s", "1m30s"},
		{"a smaller budget", map[string]string{"RELEASE_TIME": "5m"}, time.Minute, "3m40s", "3m40s"},
		{"budget spent", nil, 12 * time.Minute, "30s", "30s"},
		{"not a duration", map[string]string{"RELEASE_TEST_TIMEOUT": "soon", "RELEASE_TIME": "-1m"}, 0, "6m0s", "6m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{getenv: func(k string) string { return tt.env[k] }}
			// A second of slack for the time the call itself takes.
			test, props := r.releaseTimeouts(time.Now().Add(-tt.elapsed).Add(time.Second / 2))
			if test != tt.test || props != tt.pro {
				t.Errorf("timeouts %s, %s; want %s, %s", test, props, tt.test, tt.pro)
			}
		})
	}
}
