package main

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/internal/testsum"
)

// testBinaryPackage reads from a test binary's build information its
// module and the import path of the package it tests.
func testBinaryPackage(binary string) (module, importPath string, err error) {
	bi, err := buildinfo.ReadFile(binary)
	if err != nil {
		return "", "", err
	}
	p, ok := strings.CutSuffix(bi.Path, ".test")
	if !ok {
		return "", "", fmt.Errorf("%s is %s, not a test binary of go test -c", binary, bi.Path)
	}
	return bi.Main.Path, p, nil
}

// A testPkg is a test binary of the binaries' folder and its package.
type testPkg struct {
	name       string // the binary is NAME.test
	dir        string // the package's folder, relative to the root
	importPath string
}

// testPackages lists the test binaries (BIN/*.test) with their packages,
// by import path.
func (r *runner) testPackages() ([]testPkg, error) {
	bins, err := filepath.Glob(filepath.Join(r.bin, "*.test"))
	if err != nil {
		return nil, err
	}
	if len(bins) == 0 {
		return nil, fmt.Errorf("no test binaries (*.test) in %s: make gpu-bins builds them", r.bin)
	}
	var pkgs []testPkg
	for _, b := range bins {
		mod, imp, err := testPackageOf(b)
		if err != nil {
			return nil, err
		}
		dir := "."
		if rel, ok := strings.CutPrefix(imp, mod+"/"); ok {
			dir = rel
		} else if imp != mod {
			return nil, fmt.Errorf("%s tests %s, outside its module %s", b, imp, mod)
		}
		pkgs = append(pkgs, testPkg{name: strings.TrimSuffix(filepath.Base(b), ".test"), dir: dir, importPath: imp})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].importPath < pkgs[j].importPath })
	return pkgs, nil
}

// A testRunResult is the outcome of every package's tests.
type testRunResult struct {
	packages         int
	pass, fail, skip int
	secs             int
	err              error // the binaries could not be listed
}

// tests is the tests stage: testRun with the time limit TEST_TIMEOUT.
func (r *runner) tests() string {
	res := r.testRun(r.setting("TEST_TIMEOUT", "10m"), nil)
	if res.err != nil {
		return res.err.Error()
	}
	return fmt.Sprintf("%d packages: %d passed, %d failed, %d skipped", res.packages, res.pass, res.fail, res.skip)
}

// testRun runs every test binary from its package's folder, TEST_JOBS at
// once, with -test.v, the time limit, TEST_FLAGS, -test.run=TEST_RUN and
// the flags extra gives a binary by name, each logged in
// OUTDIR/test-NAME.log, the compiles in OUTDIR/compiles.log. It writes and
// notes OUTDIR/tests-summary.txt (see the package doc) and writes and
// prints OUTDIR/tests-report.txt, testsum's summary.
func (r *runner) testRun(timeout string, extra map[string][]string) testRunResult {
	pkgs, err := r.testPackages()
	if err != nil {
		r.refuse("tests", err.Error())
		return testRunResult{err: err}
	}
	cache := "warm"
	if entries, _ := os.ReadDir(r.cacheDir()); len(entries) == 0 {
		cache = "cold"
	}
	compiles := r.outPath("compiles.log")
	r.writeFile("compiles.log", []string{r.header(), "# command: the NVRTC compiles of the tests stage, one line each (CONVBENCH_COMPILE_LOG)"})
	jobs, err := strconv.Atoi(r.setting("TEST_JOBS", strconv.Itoa(runtime.NumCPU())))
	if err != nil || jobs < 1 {
		jobs = runtime.NumCPU()
	}
	flags := slices.Concat([]string{"-test.v", "-test.timeout", timeout}, r.fields("TEST_FLAGS", ""), r.optional("TEST_RUN", "-test.run="))
	t0 := time.Now()
	outcomes := make([]outcome, len(pkgs))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, p := range pkgs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			args := append([]string{r.binary(p.name + ".test")}, flags...)
			outcomes[i] = r.run(step{name: "test-" + p.name, dir: p.dir, args: append(args, extra[p.name]...),
				env: []string{"CONVBENCH_COMPILE_LOG=" + compiles}, quiet: true})
		})
	}
	wg.Wait()
	res := testRunResult{packages: len(pkgs), secs: int(time.Since(t0).Seconds())}
	all := testsum.New(io.Discard)
	var lines []string
	for i, p := range pkgs {
		o := outcomes[i]
		b, _ := os.ReadFile(o.log)
		all.ReadVerbose(p.importPath, bytes.NewReader(b), float64(o.secs), o.rc != 0)
		res.pass, res.fail, res.skip = res.pass+o.pass, res.fail+o.fails(), res.skip+o.skip
		lines = append(lines, fmt.Sprintf("%s pass=%d fail=%d skip=%d secs=%d cpu-s=%d", p.importPath, o.pass, o.fails(), o.skip, o.secs, o.cpuSecs))
	}
	lines = append(lines, fmt.Sprintf("total wall-s=%d cache=%s", res.secs, cache))
	r.summarize("tests-summary.txt", lines, lines, res.fail > 0)
	if f, err := os.Open(compiles); err == nil {
		all.ReadCompiles(f)
		f.Close()
	}
	var report bytes.Buffer
	fmt.Fprintln(&report, r.header())
	fmt.Fprintf(&report, "# command: the tests stage, %s for each package, %d at once; read from tests-summary.txt, test-*.log and compiles.log\n",
		commandLine("DIR", nil, append([]string{r.binary("NAME.test")}, flags...)), jobs)
	all.Print(&report)
	if err := os.WriteFile(r.outPath("tests-report.txt"), report.Bytes(), 0o644); err != nil {
		r.refuse("tests", err.Error())
	}
	r.stdout.Write(report.Bytes())
	return res
}

// cacheDir is the folder of compiled kernels the commands share.
func (r *runner) cacheDir() string {
	return r.setting("CONVBENCH_CACHE_DIR", filepath.Join(r.root, ".gpu-cache"))
}
