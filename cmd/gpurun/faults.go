package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/convbench/convbench/results"
)

// faultKernels are the faults stage's kernels: the correct example first,
// then every deliberately broken kernel.
func (r *runner) faultKernels() ([]string, error) {
	dir := filepath.Join(r.root, "gpu", "userkernel", "testdata", "broken")
	broken, err := filepath.Glob(filepath.Join(dir, "*.cu"))
	if err != nil {
		return nil, err
	}
	if len(broken) == 0 {
		return nil, fmt.Errorf("no broken kernels in %s", dir)
	}
	sort.Strings(broken)
	return append([]string{filepath.Join(r.root, "examples", "kernels", "direct.cu")}, broken...), nil
}

// faults is the faults stage (runFaults).
func (r *runner) faults() string {
	_, note := r.runFaults()
	return note
}

// runFaults runs one sweep that proves and times every kernel of
// faultKernels, writes and notes OUTDIR/faults-summary.txt (faultSummary)
// and returns whether it is ok and its last line.
func (r *runner) runFaults() (ok bool, note string) {
	kernels, err := r.faultKernels()
	if err != nil {
		return false, r.refuse("faults", err.Error())
	}
	count, err := strconv.Atoi(r.setting("FAULTS_COUNT", "2"))
	if err != nil || count < 1 {
		return false, r.refuse("faults", fmt.Sprintf("FAULTS_COUNT=%s: want a count of result lines, 1 or more", r.getenv("FAULTS_COUNT")))
	}
	args := r.sweep("-data", r.outPath("faults"),
		"-variants", "user-.*", "-sizes", r.setting("FAULTS_SIZES", "512x512"), "-filters", "gauss3,gauss5", "-types", "f32",
		"-count", strconv.Itoa(count), "-max-time", "0.5s", "-case-timeout", r.setting("FAULTS_CASE_TIMEOUT", "20s"),
		"-prove-timeout", r.setting("FAULTS_PROVE_TIMEOUT", "2m"))
	for _, k := range kernels {
		args = append(args, "-kernel", k)
	}
	// Temporary files, such as a killed child's convtest-child-*.txt, stay
	// with the logs.
	tmp := r.outPath("faults-tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return false, r.refuse("faults", err.Error())
	}
	o := r.run(step{name: "faults", args: args, env: []string{"TMPDIR=" + tmp}, mayFail: true})
	file := runFile(o.log, r.outPath("faults"))
	lines, ok := faultSummary(file, kernels, count)
	head := r.header() + "; faults: the sweep's verdict on each user kernel, from " + cmp.Or(file, "no run file")
	r.summarize("faults-summary.txt", append([]string{head}, lines...), lines, !ok)
	return ok, lines[len(lines)-1]
}

// wrotePrefix begins the line in which the sweep names the file it wrote.
const wrotePrefix = "sweep: wrote "

// runFile returns the run file a sweep wrote: the one its log's last
// "sweep: wrote " line names, or else the only one under data/<host>/;
// "" where there is none.
func runFile(log, data string) string {
	b, _ := os.ReadFile(log)
	path := ""
	for l := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(l, wrotePrefix); ok {
			path = strings.TrimSpace(p)
		}
	}
	if _, err := os.Stat(path); path != "" && err == nil {
		return path
	}
	files, _ := filepath.Glob(filepath.Join(data, "*", "*.txt"))
	if len(files) == 1 {
		return files[0]
	}
	return ""
}

// readRun reads a run file: its text, and the run it records or why not.
func readRun(file string) ([]byte, *results.Run, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	run, err := results.ReadRun(bytes.NewReader(text), file)
	return text, run, err
}

// A userKernel is a kernel of the faults stage as its source describes it.
type userKernel struct {
	name    string   // its "// name: " line, else user-<file name>
	expects []string // the texts of its "// expect refusal: " lines; none for a correct kernel
}

// readUserKernel reads a kernel source's name and expected refusals.
func readUserKernel(path string) (userKernel, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return userKernel{}, err
	}
	var k userKernel
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, "\r")
		if n, ok := strings.CutPrefix(l, "// name:"); ok && k.name == "" {
			k.name = strings.TrimSpace(n)
		}
		if e, ok := strings.CutPrefix(l, "// expect refusal: "); ok {
			k.expects = append(k.expects, strings.TrimLeft(e, " "))
		}
	}
	if k.name == "" {
		k.name = "user-" + strings.TrimSuffix(filepath.Base(path), ".cu")
	}
	return k, nil
}

// faultSummary judges the faults sweep's run file (judgeKernel): a line a
// kernel, the run's "# fault" lines, then "faults ok: ..." or "faults NOT
// OK: ...", and whether every kernel is as expected.
func faultSummary(file string, kernels []string, count int) (lines []string, ok bool) {
	var text []byte
	var run *results.Run
	var readErr error
	if file != "" {
		text, run, readErr = readRun(file)
	}
	fileLines := strings.Split(string(text), "\n")
	bad := 0
	for _, path := range kernels {
		k, err := readUserKernel(path)
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s WRONG: %v", path, err))
			bad++
			continue
		}
		why, line := judgeKernel(k, kernelVerdict(fileLines, k.name), run, count)
		if why != "" {
			lines = append(lines, k.name+" WRONG: "+clip(why, 600))
			bad++
			continue
		}
		lines = append(lines, line)
	}
	for _, l := range fileLines {
		if strings.HasPrefix(l, "# fault ") {
			lines = append(lines, l)
		}
	}
	switch {
	case file == "":
		lines = append(lines, "faults NOT OK: the sweep wrote no run file (see faults.log)")
	case readErr != nil:
		lines = append(lines, fmt.Sprintf("faults NOT OK: reading the run file: %v", readErr))
	case bad == 0:
		lines = append(lines, fmt.Sprintf("faults ok: %d kernels as expected", len(kernels)))
		return lines, true
	default:
		lines = append(lines, fmt.Sprintf("faults NOT OK: %d of %d kernels not as expected", bad, len(kernels)))
	}
	return lines, false
}

// kernelVerdict is the text after "# user kernel NAME: " of the run's
// first line that gives the kernel's verdict (proven or refused), not
// the line naming its file; "" where there is none.
func kernelVerdict(lines []string, name string) string {
	for _, l := range lines {
		v, ok := strings.CutPrefix(l, "# user kernel "+name+": ")
		if ok && (strings.HasPrefix(v, "passed the property suite") || strings.HasPrefix(v, "refused: ")) {
			return v
		}
	}
	return ""
}

// judgeKernel says why a kernel's verdict and result lines are not what
// its source expects, or else gives its "ok" line: a correct kernel (no
// expected refusal) proven, with no failed case and count result lines a
// case; a broken one refused with every expected text, and not timed.
func judgeKernel(k userKernel, verdict string, run *results.Run, count int) (why, line string) {
	shown := cmp.Or(verdict, "no verdict line")
	cases, full, timed, failed := 0, 0, 0, 0
	if run != nil {
		for _, s := range run.Samples {
			if s.Keys["variant"] != k.name {
				continue
			}
			n := len(s.Values["ns/op"])
			cases, timed = cases+1, timed+n
			if n == count {
				full++
			}
		}
		for _, f := range run.Failures {
			if strings.HasPrefix(f, "--- FAIL: BenchmarkConv/variant="+k.name+"/") {
				failed++
			}
		}
	}
	if len(k.expects) == 0 {
		if !strings.HasPrefix(verdict, "passed the property suite") {
			return "want it proven, got: " + shown, ""
		}
		if failed != 0 || cases == 0 || cases != full {
			return fmt.Sprintf("want %d result lines for each case and no failed case: %d failed, %d cases, %d of them with %d lines", count, failed, cases, full, count), ""
		}
		return "", fmt.Sprintf("%s ok: proven; %d cases, %d result lines each", k.name, cases, count)
	}
	if !strings.HasPrefix(verdict, "refused:") {
		return "want it refused, got: " + shown, ""
	}
	for _, e := range k.expects {
		if !strings.Contains(verdict, e) {
			return "want a refusal that says \"" + e + "\", got: " + verdict, ""
		}
	}
	if timed != 0 {
		return fmt.Sprintf("refused, but %d result lines were timed", timed), ""
	}
	return "", k.name + " ok: " + clip(verdict, 600)
}

// clip returns s cut to at most n bytes, at a character's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
