package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/childproc"
)

// Isolation by process. A kernel that faults with a sticky CUDA error
// leaves the device unusable in the process: every later case of the
// binary would fail with the same error. A kernel that never ends hangs
// the binary for good (a data-centre GPU has no display watchdog). So
// the sweep watches the binary: a binary that exits without finishing
// the sweep, prints a sticky error on a failed case or runs one case
// past its time limit is killed (its whole process group), the case it
// was running is recorded as failed, and the binary is started again,
// skipping (-test.skip) every case that already started, so that a case
// is never run twice and the rest of the sweep still runs.

// DefaultCaseTimeout is the default of -case-timeout. The largest case a
// preset runs on the CPU is capped at benchmarks.DefaultCPUCap (2^33)
// multiply-adds, about 10s a run for cpu-naive on one core; its gate run
// and 6 samples a line over the default 6 lines take about 7 minutes. A
// GPU case, even the largest image, takes seconds. 10 minutes leaves room
// over both; a sweep of longer cases (a higher -count or -cpu-cap) sets
// a longer -case-timeout.
const DefaultCaseTimeout = 10 * time.Minute

// Kinds of fault.
const (
	faultCrash = "crash"
	faultHang  = "hang"
)

// fault is a case that ended its run of the benchmark binary.
type fault struct {
	Case  string // the case's name, without "BenchmarkConv/"
	Kind  string // faultCrash or faultHang
	Err   string // what happened
	Repro string // the command that runs the case alone
}

// variant is the variant the case's name holds.
func (f fault) variant() string {
	v, _, _ := strings.Cut(f.Case, "/")
	return strings.TrimPrefix(v, "variant=")
}

// String is how the sweep reports f: the variant, the case, what happened
// and the command that reproduces it.
func (f fault) String() string {
	return fmt.Sprintf("%s of %s, case %s: %s; reproduce alone: %s", f.Kind, f.variant(), f.Case, f.Err, f.Repro)
}

// lines are the lines the sweep adds to the run's output for f: a
// "--- FAIL" line for the case (results.Run.Failures) unless out already
// holds one, with the details indented under it, and a comment line.
func (f fault) lines(out []byte) string {
	var b strings.Builder
	fail := "--- FAIL: BenchmarkConv/" + f.Case
	if !hasLine(out, fail) {
		fmt.Fprintf(&b, "%s\n    sweep: %s: %s\n    sweep: reproduce alone: %s\n", fail, f.Kind, f.Err, f.Repro)
	}
	fmt.Fprintf(&b, "# fault %s\n", f)
	return b.String()
}

// hasLine reports whether out holds a line that is s, or s followed by
// a space.
func hasLine(out []byte, s string) bool {
	for _, l := range strings.Split(string(out), "\n") {
		if l == s || strings.HasPrefix(l, s+" ") {
			return true
		}
	}
	return false
}

const failPrefix = "--- FAIL: BenchmarkConv/"

// failedCase is the case a "--- FAIL" line (anywhere in line: testing
// writes it after the case's name on a result line) names.
func failedCase(line string) (string, bool) {
	i := strings.Index(line, failPrefix)
	if i < 0 {
		return "", false
	}
	name, _, _ := strings.Cut(line[i+len(failPrefix):], " ")
	name = trimRepeat(name)
	return name, name != ""
}

// trimRepeat drops testing's suffix of a repeated case name, "#01".
func trimRepeat(name string) string {
	if j := strings.LastIndexByte(name, '#'); j > 0 {
		return name[:j]
	}
	return name
}

// casePattern is the -test.bench or -test.skip pattern of the case called
// name alone: each element of its name anchored, as testing matches them.
func casePattern(name string) string {
	elems := strings.Split("BenchmarkConv/"+name, "/")
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return strings.Join(elems, "/")
}

// skipPattern is the -test.skip pattern of the cases done: a variant all
// of whose cases (all, the sweep's cases in order) are done by the
// variant alone, other cases one by one.
func skipPattern(all []string, done map[string]bool) string {
	complete := map[string]bool{}
	for _, c := range all {
		v, _, _ := strings.Cut(c, "/")
		if _, seen := complete[v]; !seen {
			complete[v] = true
		}
		complete[v] = complete[v] && done[c]
	}
	var alts []string
	seen := map[string]bool{}
	for _, c := range slices.Sorted(maps.Keys(done)) { // stable, for the header
		v, _, _ := strings.Cut(c, "/")
		if complete[v] {
			if !seen[v] {
				alts = append(alts, casePattern(v))
				seen[v] = true
			}
			continue
		}
		alts = append(alts, casePattern(c))
	}
	return strings.Join(alts, "|")
}

// attempt is one run of the benchmark binary.
type attempt struct {
	out      []byte   // its stdout, up to a sticky error
	err      error    // how it exited
	started  []string // the cases it started, in order
	finished bool     // it printed the sweep's final progress line
	fault    *fault   // the case that ended it, if one did
}

// watch follows one run of the binary: the case running, its time
// limit, and the stdout lines that say a case left the device unusable.
type watch struct {
	limit time.Duration
	repro func(name string) string

	child    childproc.Child
	cur      string
	started  []string
	finished bool
	fault    *fault

	out      bytes.Buffer
	partial  []byte // a last line without a newline
	lastFail string
}

// caseStarted is the progress filter's hook: name started ("" after
// the last case), with a time limit of its own. Once the binary is
// ended, what it still prints does not count.
func (w *watch) caseStarted(name string) {
	limit := w.limit
	if name == "" {
		limit = 0
	}
	if !w.child.Arm(limit) {
		return
	}
	w.cur = name
	if name == "" {
		w.finished = true
		return
	}
	w.started = append(w.started, name)
}

// line takes a line of the binary's stdout, and ends the binary at a
// line of a failed case that names a sticky CUDA error; what follows is
// dropped, since every later case would fail with the same error.
func (w *watch) line(l []byte) {
	line, ended := strings.CutSuffix(string(l), "\n")
	if !ended {
		w.partial = bytes.Clone(l)
		return
	}
	w.out.Write(l)
	if c, ok := failedCase(line); ok {
		w.lastFail = c
	}
	if w.fault == nil && w.lastFail != "" && (strings.HasPrefix(line, " ") || strings.Contains(line, failPrefix)) &&
		!strings.Contains(line, ": not timed: ") && cudabind.MentionsSticky(line) {
		w.fault = &fault{Case: w.lastFail, Kind: faultCrash, Repro: w.repro(w.lastFail),
			Err: "sticky CUDA error, the device cannot be used again in the process: " + strings.TrimSpace(line)}
		w.child.Stop()
	}
}

// runBinary runs cmd, whose stderr goes through progress, under w.
func runBinary(cmd *exec.Cmd, progress *progressFilter, w *watch) attempt {
	progress.onCase = w.caseStarted
	w.child.Group = true
	w.child.Stdout = w.line
	w.child.Stderr = func(l []byte) { progress.Write(l) }
	err := w.child.Run(cmd)
	progress.Flush()
	progress.onCase = nil
	a := attempt{err: err, finished: w.finished, fault: w.fault}
	if w.child.TimedOut() {
		a.fault = &fault{Case: w.cur, Kind: faultHang, Repro: w.repro(w.cur),
			Err: fmt.Sprintf("still running after %v (-case-timeout): killed the benchmark binary", w.limit)}
	}
	// A crashed binary's last line may be a result line it never ended:
	// it is dropped.
	if a.fault == nil && len(w.partial) > 0 && err == nil {
		w.out.Write(append(w.partial, '\n'))
	}
	a.out = w.out.Bytes()
	a.started = startedCases(w.started, a.out, w.fault)
	if a.fault == nil && err != nil && !w.finished && w.cur != "" {
		why := err.Error()
		if tail := progress.Tail(); len(tail) > 0 {
			why += ": " + strings.Join(tail, "; ")
		}
		a.fault = &fault{Case: w.cur, Kind: faultCrash, Repro: w.repro(w.cur), Err: "the benchmark binary died (" + why + ")"}
	}
	return a
}

// startedCases are the cases a run of the binary started: those its
// progress lines named (fromProgress, in order), then any other that its
// stdout out names on a result or "--- FAIL" line, and the case of a
// sticky fault (f, when not nil). The progress lines come on stderr and
// the sticky error on stdout, two pipes read apart: the binary may be
// stopped at the error before the progress lines of the cases it had
// run are read, and a case must not run again for that.
func startedCases(fromProgress []string, out []byte, f *fault) []string {
	started := slices.Clone(fromProgress)
	add := func(name string) {
		if name != "" && !slices.Contains(started, name) {
			started = append(started, name)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := failedCase(line); ok {
			add(name)
		} else if rest, ok := strings.CutPrefix(line, "BenchmarkConv/"); ok {
			name := rest
			if f := strings.Fields(rest); len(f) > 0 {
				name = f[0]
			}
			add(trimRepeat(name))
		}
	}
	if f != nil {
		add(f.Case)
	}
	return started
}

// errNoProgress is the error of a restart that ran no case.
var errNoProgress = errors.New("the restarted benchmark binary ran no case")

// reproCommand is the command, run in the repository root, that runs the
// case called name alone: the binary with args, -test.bench selecting
// that case and no -test.skip (another shard's cases).
func reproCommand(binName string, args []string, name string) string {
	var a []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-test.bench" && i+1 < len(args):
			a = append(a, args[i], casePattern(name))
			i++
		case args[i] == "-test.skip" && i+1 < len(args):
			// Another shard's cases: the pattern names one case.
			i++
		default:
			a = append(a, args[i])
		}
	}
	return "cd benchmarks && " + binName + " " + childproc.Quote(a)
}

// binDisplayName is how the header and reproduce commands name the
// binary: bin as given with -bin, else the one the build step writes in
// the repository root.
func binDisplayName(bin string, given bool) string {
	if given {
		return bin
	}
	return "../" + filepath.Base(bin)
}
