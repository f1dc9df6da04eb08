// Package testsum counts and summarises test results: passes, failures,
// skips by reason (no GPU, no NVRTC, other), the slowest packages and
// top-level tests, and the NVRTC compiles the test binaries logged.
//
// It reads go test -json events (ReadJSON) or the -test.v output of one
// test binary run alone (ReadVerbose).
package testsum

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Event is one line of go test -json (cmd/test2json's TestEvent).
type Event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// Skip reasons, by what a skipped test lacked.
const (
	needGPU   = "GPU"
	needNVRTC = "NVRTC"
	needOther = "other"
)

// How many of the slowest packages, tests and compiling programs print.
const (
	slowPackages = 5
	slowTests    = 10
	topCompilers = 5
)

// Summary counts test outcomes from go test -json events, echoing package
// result lines and the output of failing tests.
type Summary struct {
	w              io.Writer
	passed, failed int
	skipped        map[string]int // by reason
	out            map[string][]string
	failedTests    []string
	packageTimes   []timing            // packages that passed or failed
	testSecs       map[testKey]float64 // the longest of a top-level test and its subtests
	testEnded      map[testKey]bool    // top-level tests that passed or failed
	cached         map[string]bool     // packages whose result came from go test's cache
	compiles       compileTotals
}

// testKey names a top-level test.
type testKey struct{ pkg, test string }

// timing is how long a package's tests (test empty) or one test took.
type timing struct {
	pkg, test string
	secs      float64
}

// New returns an empty summary that echoes package result lines and the
// output of failing tests to w.
func New(w io.Writer) *Summary {
	return &Summary{w: w, skipped: map[string]int{}, out: map[string][]string{},
		testSecs: map[testKey]float64{}, testEnded: map[testKey]bool{}, cached: map[string]bool{}}
}

// ReadJSON adds the events of a go test -json stream; lines that are not
// events (build failures and the like) are echoed.
func (s *Summary) ReadJSON(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e Event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintln(s.w, string(line))
			continue
		}
		s.Add(e)
	}
	return sc.Err()
}

// Add adds one event: a test's output, pass, fail or skip (Test set), or
// a package's (Test empty).
func (s *Summary) Add(e Event) {
	key := e.Package + " " + e.Test
	switch e.Action {
	case "output":
		if e.Test == "" { // the ok/FAIL/? lines and output outside a test
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				fmt.Fprint(s.w, e.Output)
			}
			if strings.HasPrefix(e.Output, "ok ") && strings.Contains(e.Output, "\t(cached)") {
				s.cached[e.Package] = true
			}
			return
		}
		s.out[key] = append(s.out[key], e.Output)
	case "pass":
		s.recordTime(e)
		if e.Test != "" {
			s.passed++
			delete(s.out, key)
		}
	case "fail":
		s.recordTime(e)
		if e.Test != "" {
			s.failed++
			s.failedTests = append(s.failedTests, e.Package+"."+e.Test)
			fmt.Fprint(s.w, strings.Join(s.out[key], ""))
			delete(s.out, key)
		}
	case "skip":
		if e.Test != "" {
			s.skipped[skipReason(s.out[key])]++
			delete(s.out, key)
		}
	}
}

// recordTime keeps the elapsed time of a package or of a top-level test
// that passed or failed. A top-level test counts as long as its longest
// subtest: one whose subtests run in parallel reports only its own time.
func (s *Summary) recordTime(e Event) {
	if e.Test == "" {
		s.packageTimes = append(s.packageTimes, timing{pkg: e.Package, secs: e.Elapsed})
		return
	}
	top, _, isSubtest := strings.Cut(e.Test, "/")
	k := testKey{e.Package, top}
	s.testSecs[k] = max(s.testSecs[k], e.Elapsed)
	if !isSubtest {
		s.testEnded[k] = true
	}
}

// testTimes returns the times of the top-level tests that passed or failed.
func (s *Summary) testTimes() []timing {
	var times []timing
	for k := range s.testEnded {
		times = append(times, timing{pkg: k.pkg, test: k.test, secs: s.testSecs[k]})
	}
	return times
}

// skipReason classifies a skipped test by the message it skipped with.
func skipReason(output []string) string {
	text := strings.Join(output, "")
	switch {
	case strings.Contains(text, "libnvrtc") || strings.Contains(text, "no NVRTC"):
		return needNVRTC
	case strings.Contains(text, "libcuda") || strings.Contains(text, "needs a GPU") || strings.Contains(text, "CUDA device"):
		return needGPU
	}
	return needOther
}

// Print writes the summary: the counts, whether the NVRTC compile checks
// ran, the failed tests, the slowest packages and tests, and the kernels
// compiled.
func (s *Summary) Print(w io.Writer) {
	total := s.skippedTotal()
	fmt.Fprintf(w, "\ntests: %d passed, %d failed, %d skipped", s.passed, s.failed, total)
	if total > 0 {
		var parts []string
		for _, r := range [][2]string{{needGPU, "for want of a GPU"}, {needNVRTC, "for want of NVRTC"}, {needOther, "for other reasons"}} {
			if n := s.skipped[r[0]]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, r[1]))
			}
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	if n := s.skipped[needNVRTC]; n > 0 {
		fmt.Fprintf(w, "NVRTC kernel compile checks: skipped (%d tests need NVRTC, which this machine lacks)\n", n)
	} else {
		fmt.Fprintln(w, "NVRTC kernel compile checks: ran (no test skipped for want of NVRTC)")
	}
	if len(s.failedTests) > 0 {
		slices.Sort(s.failedTests)
		fmt.Fprintf(w, "failed: %s\n", strings.Join(s.failedTests, ", "))
	}
	s.printSlowest(w)
	s.compiles.print(w)
}

// printSlowest prints the packages and top-level tests that took longest,
// leaving out those whose result go test took from its cache.
func (s *Summary) printSlowest(w io.Writer) {
	packages := slowest(s.packageTimes, s.cached, slowPackages)
	tests := slowest(s.testTimes(), s.cached, slowTests)
	if len(packages) == 0 && len(tests) == 0 {
		if len(s.cached) > 0 {
			fmt.Fprintf(w, "slowest packages and tests: none ran (%d cached)\n", len(s.cached))
		}
		return
	}
	note := ""
	if len(s.cached) > 0 {
		note = fmt.Sprintf(" (%d cached left out)", len(s.cached))
	}
	fmt.Fprintf(w, "slowest packages%s:%s\n", note, noneIfEmpty(len(packages)))
	for _, t := range packages {
		fmt.Fprintf(w, "  %7.2fs  %s\n", t.secs, t.pkg)
	}
	fmt.Fprintf(w, "slowest tests:%s\n", noneIfEmpty(len(tests)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range tests {
		fmt.Fprintf(tw, "  %7.2fs  %s\t%s\n", t.secs, t.pkg[strings.LastIndex(t.pkg, "/")+1:], t.test)
	}
	tw.Flush()
}

// noneIfEmpty is what follows a list's heading: " none" for an empty list.
func noneIfEmpty(n int) string {
	if n == 0 {
		return " none"
	}
	return ""
}

// slowest returns up to n of times, longest first (ties by package, then
// test), without the packages in cached.
func slowest(times []timing, cached map[string]bool, n int) []timing {
	var kept []timing
	for _, t := range times {
		if !cached[t.pkg] {
			kept = append(kept, t)
		}
	}
	slices.SortStableFunc(kept, func(a, b timing) int {
		return cmp.Or(cmp.Compare(b.secs, a.secs), cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.test, b.test))
	})
	return kept[:min(n, len(kept))]
}

// compileTotal counts NVRTC compiles and the seconds they took.
type compileTotal struct {
	count, failed int
	secs          float64
}

func (t *compileTotal) add(c compile) {
	t.count++
	t.secs += c.secs
	if !c.ok {
		t.failed++
	}
}

// compileTotals counts NVRTC compiles overall and by program.
type compileTotals struct {
	compileTotal
	byProgram map[string]compileTotal
}

func (t *compileTotals) add(c compile) {
	t.compileTotal.add(c)
	if t.byProgram == nil {
		t.byProgram = map[string]compileTotal{}
	}
	p := t.byProgram[c.program]
	p.add(c)
	t.byProgram[c.program] = p
}

// compile is one line of the compile log ($CONVBENCH_COMPILE_LOG).
type compile struct {
	secs    float64
	ok      bool
	program string
}

// parseCompile reads a compile log line, "nvrtc-compile <seconds> <source
// name> ok|error <program>", as cudabind/nvrtc writes it; ok is false for
// comments and any other line.
func parseCompile(line string) (c compile, ok bool) {
	f := strings.Fields(line)
	if len(f) != 5 || f[0] != "nvrtc-compile" || (f[3] != "ok" && f[3] != "error") {
		return compile{}, false
	}
	secs, err := strconv.ParseFloat(f[1], 64)
	if err != nil || secs < 0 {
		return compile{}, false
	}
	return compile{secs: secs, ok: f[3] == "ok", program: f[4]}, true
}

// ReadCompiles adds the compiles of a compile log ($CONVBENCH_COMPILE_LOG)
// to the summary.
func (s *Summary) ReadCompiles(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if c, ok := parseCompile(sc.Text()); ok {
			s.compiles.add(c)
		}
	}
	return sc.Err()
}

// print prints how many kernels were compiled and for how long, in all
// and for the programs that compiled longest.
func (t *compileTotals) print(w io.Writer) {
	if t.count == 0 {
		fmt.Fprintln(w, "kernels compiled: none (no NVRTC on this host, or every kernel came from the cache)")
		return
	}
	fmt.Fprintf(w, "kernels compiled: %s\n", t.compileTotal)
	programs := slices.SortedFunc(maps.Keys(t.byProgram), func(a, b string) int {
		return cmp.Or(cmp.Compare(t.byProgram[b].secs, t.byProgram[a].secs), cmp.Compare(a, b))
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range programs[:min(topCompilers, len(programs))] {
		fmt.Fprintf(tw, "  %s\t%s\n", p, t.byProgram[p])
	}
	tw.Flush()
}

// String is "N in S s", with the failed compiles when there were any.
func (t compileTotal) String() string {
	s := fmt.Sprintf("%d in %.2fs", t.count, t.secs)
	if t.failed > 0 {
		s += fmt.Sprintf(" (%d failed)", t.failed)
	}
	return s
}

// Counts returns how many tests (subtests included) passed, failed and
// skipped.
func (s *Summary) Counts() (passed, failed, skipped int) {
	return s.passed, s.failed, s.skippedTotal()
}

func (s *Summary) skippedTotal() int {
	total := 0
	for n := range maps.Values(s.skipped) {
		total += n
	}
	return total
}
