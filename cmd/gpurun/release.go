package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/runfile"
)

// releaseSeeds is how many seeds a release check runs the property suite
// at, the test run's first.
const releaseSeeds = 4

// seeds returns the release check's seeds: RELEASE_SEEDS, else fresh ones
// from crypto/rand.
func (r *runner) seeds() ([]int64, error) {
	v := r.getenv("RELEASE_SEEDS")
	if v == "" {
		seeds := make([]int64, releaseSeeds)
		var b [8]byte
		for i := range seeds {
			if _, err := rand.Read(b[:]); err != nil {
				return nil, err
			}
			seeds[i] = int64(binary.LittleEndian.Uint64(b[:])>>2) | 1 // positive: 0 would ask the suite for the clock
		}
		return seeds, nil
	}
	var seeds []int64
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("RELEASE_SEEDS=%s: %q is not a positive integer", v, f)
		}
		seeds = append(seeds, n)
	}
	if len(seeds) != releaseSeeds {
		return nil, fmt.Errorf("RELEASE_SEEDS=%s: want %d seeds, the test run's first", v, releaseSeeds)
	}
	return seeds, nil
}

// A seedResult is the property suite's tests and seconds at one seed.
type seedResult struct {
	seed       int64
	pass, fail int
	secs       int
}

// A benchResult is the release check's sweep: its exit status, its cases
// and seconds, and why its run file could not be read.
type benchResult struct {
	rc, cases, failed, unsupported, unstable, secs int
	err                                            error
}

// release is the release stage (see the package doc). It writes
// OUTDIR/release-summary.txt (releaseLines), its lines noted, and
// OUTDIR/release-load.log (sampleLoad).
func (r *runner) release() string {
	before := r.failures()
	start := time.Now()
	seeds, err := r.seeds()
	if err != nil {
		return r.refuse("release", err.Error())
	}
	r.note(fmt.Sprintf("release: seeds %d (the test run's), %d, %d, %d", seeds[0], seeds[1], seeds[2], seeds[3]))
	stopLoad, loadDone := make(chan struct{}), make(chan struct{})
	go r.sampleLoad("release-load", 10*time.Second, stopLoad, loadDone)
	defer func() { close(stopLoad); <-loadDone }()
	// The sweep first, with the GPU to itself; then the checks that
	// share it, whose compiles keep the host's cores busy.
	bench := r.releaseBench()
	report := r.run(step{name: "release-report", args: []string{r.binary("report"), "-data", r.outPath("data"), "-out", r.outPath("report")}})
	gallery := r.run(step{name: "release-gallery", args: []string{r.binary("gallery"), "-data", r.outPath("data"), "-out", filepath.Join(r.outPath("report"), "gallery")}})
	testTimeout, propsTimeout := r.releaseTimeouts(start)
	seedResults := make([]seedResult, len(seeds))
	var testErr error
	var faultsOK bool
	var wg sync.WaitGroup
	wg.Go(func() {
		tr := r.testRun(testTimeout, map[string][]string{"properties": append([]string{seedFlag(seeds[0])}, r.propsBudget()...)})
		testErr = tr.err
		if _, err := os.Stat(r.binary("properties.test")); testErr == nil && err != nil {
			testErr = fmt.Errorf("no properties.test in %s: the test run did not run the property suite", r.bin)
		}
		seedResults[0] = seedResult{seed: seeds[0], pass: tr.pass, fail: tr.fail, secs: tr.secs}
	})
	// The extra seeds' suites run at once: they compile on the host's
	// cores more than they wait on the GPU.
	for i, s := range seeds[1:] {
		wg.Go(func() { seedResults[i+1] = r.propsAtSeed(s, propsTimeout) })
	}
	wg.Go(func() { faultsOK, _ = r.runFaults() })
	wg.Wait()
	lines, why := releaseLines(seedResults, testErr, bench, report.rc, gallery.rc, faultsOK)
	r.writeFile("release-summary.txt", lines)
	r.note(lines...)
	if why != "" && r.failures() == before {
		r.fail()
	}
	return lines[len(lines)-1]
}

// releaseTimeouts are the -test.timeout of the test run and of the extra
// seeds' suites: RELEASE_TEST_TIMEOUT and RELEASE_PROPS_TIMEOUT, cut to
// what is left of RELEASE_TIME from start less 20 s, and at least 30 s.
func (r *runner) releaseTimeouts(start time.Time) (test, props string) {
	dur := func(name string, def time.Duration) time.Duration {
		if d, err := time.ParseDuration(r.setting(name, "")); err == nil && d > 0 {
			return d
		}
		return def
	}
	left := time.Until(start.Add(dur("RELEASE_TIME", 9*time.Minute+30*time.Second))) - 20*time.Second
	cut := func(d time.Duration) string {
		return max(min(d, left), 30*time.Second).Round(time.Second).String()
	}
	return cut(dur("RELEASE_TEST_TIMEOUT", 6*time.Minute)), cut(dur("RELEASE_PROPS_TIMEOUT", 6*time.Minute))
}

// seedFlag is the property suite's flag for a seed.
func seedFlag(seed int64) string { return "-props.seed=" + strconv.FormatInt(seed, 10) }

// propsBudget are the property suite's budget flags at every seed of the
// release check. On a 16-core H200 host four seeds ran out of time at
// pools of 6 and finished at pools of 4.
func (r *runner) propsBudget() []string {
	return []string{"-props.n=" + r.setting("RELEASE_PROPS_N", "10"), "-props.time=" + r.setting("RELEASE_PROPS_TIME", "2s"),
		"-props.pool=" + r.setting("RELEASE_PROPS_POOL", "4")}
}

// propsAtSeed runs TestProperties, the only test that draws from the
// seed, at seed, logged in OUTDIR/release-props-SEED.log.
func (r *runner) propsAtSeed(seed int64, timeout string) seedResult {
	args := slices.Concat([]string{r.binary("properties.test"), "-test.v", "-test.run=^TestProperties$", "-test.timeout", timeout, seedFlag(seed)},
		r.propsBudget(), r.optional("RELEASE_PROPS_VARIANT", "-props.variant="))
	o := r.run(step{name: fmt.Sprintf("release-props-%d", seed), dir: "properties", args: args})
	return seedResult{seed: seed, pass: o.pass, fail: o.fails(), secs: o.secs}
}

// releaseBench runs the default sweep into OUTDIR/data and counts what
// its run file says.
func (r *runner) releaseBench() benchResult {
	data := r.outPath("data")
	o := r.run(step{name: "release-sweep", args: r.sweep("-data", data,
		"-sweep=default", "-count", r.setting("RELEASE_COUNT", "2"), "-noise="+r.setting("RELEASE_NOISE", "1"),
		"-max-time="+r.setting("RELEASE_MAX_TIME", "1s"))})
	res := benchResult{rc: o.rc, secs: o.secs}
	file := runFile(o.log, data)
	if file == "" {
		res.err = fmt.Errorf("the sweep wrote no run file (see release-sweep.log)")
		return res
	}
	text, run, err := readRun(file)
	if res.err = err; err == nil {
		res.cases, res.failed, res.unstable = len(run.Samples), len(run.Failures), len(run.Unstable())
		res.unsupported = unsupportedCases(strings.Split(string(text), "\n"))
	}
	return res
}

// releaseLines are the lines of release-summary.txt (docs/gpu-hosts.md),
// the last "release ok" or "release NOT OK: " and why, which it also
// returns ("" when ok).
func releaseLines(seeds []seedResult, testErr error, b benchResult, reportRC, galleryRC int, faultsOK bool) (lines []string, why string) {
	var bad []string
	for i, s := range seeds {
		lines = append(lines, fmt.Sprintf("seed=%d pass=%d fail=%d secs=%d", s.seed, s.pass, s.fail, s.secs))
		what := "the property suite"
		if i == 0 {
			what = "the test run"
		}
		switch {
		case s.fail > 0:
			bad = append(bad, fmt.Sprintf("%s at seed %d: %d failed", what, s.seed, s.fail))
		case s.pass == 0:
			bad = append(bad, fmt.Sprintf("%s at seed %d: no test passed", what, s.seed))
		}
	}
	faultsRC := 0
	if !faultsOK {
		faultsRC = 1
	}
	lines = append(lines, fmt.Sprintf("bench rc=%d cases=%d failed=%d unsupported=%d unstable=%d secs=%d", b.rc, b.cases, b.failed, b.unsupported, b.unstable, b.secs),
		fmt.Sprintf("report rc=%d", reportRC), fmt.Sprintf("gallery rc=%d", galleryRC), fmt.Sprintf("faults rc=%d", faultsRC))
	for _, c := range []struct {
		failed bool
		why    string
	}{
		{testErr != nil, fmt.Sprint("the test run: ", testErr)},
		{b.err != nil, fmt.Sprint("bench: ", b.err)},
		{b.err == nil && b.cases == 0, "bench: no case in the run file"},
		{b.rc != 0, fmt.Sprintf("bench: the sweep exited %d", b.rc)},
		{b.failed > 0, fmt.Sprintf("bench: %d cases failed", b.failed)},
		{b.cases > 0 && b.unstable*10 > b.cases, fmt.Sprintf("bench: %d of %d cases unstable, over a tenth", b.unstable, b.cases)},
		{!faultsOK, "faults: see faults-summary.txt"},
		{reportRC != 0, fmt.Sprintf("report exited %d", reportRC)},
		{galleryRC != 0, fmt.Sprintf("gallery exited %d", galleryRC)},
	} {
		if c.failed {
			bad = append(bad, c.why)
		}
	}
	if len(bad) == 0 {
		return append(lines, "release ok"), ""
	}
	why = strings.Join(bad, "; ")
	return append(lines, "release NOT OK: "+why), why
}

// unsupportedCases counts the distinct cases of a run file's unsupported
// lines.
func unsupportedCases(lines []string) int {
	seen := map[string]bool{}
	for _, l := range lines {
		if name, _, ok := runfile.ParseUnsupported(l); ok {
			seen[name] = true
		}
	}
	return len(seen)
}
