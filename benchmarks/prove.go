package benchmarks

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/internal/childproc"
)

// proveTest is the test of the benchmarks test binary that runs the
// property suite (convtest.TestVariant) on every user kernel, one subtest
// per variant name.
const proveTest = "TestUserKernels"

// DefaultProveTimeout is the default of the benchmarks' -prove-timeout
// (and the sweep's): how long the property suite may run on one user
// kernel before the kernel is taken to hang. The suite at its default
// depth proves examples/kernels/direct.cu in about 40 s on an H100;
// 10 minutes leaves room for a deeper suite (-convtest.n, -convtest.time)
// and a cold compile cache.
const DefaultProveTimeout = 10 * time.Minute

// proveShrinkTime bounds the shrinking of a failure in a run of the
// suite that ProveKernels starts, unless its extra arguments set
// -convtest.shrink-time: a refusal needs a failing case, not the
// smallest, and after a sticky CUDA error every candidate fails, so that
// shrinking would only spend the suite's default minute. The refusal's
// command reruns the suite on the kernel alone.
const proveShrinkTime = 20 * time.Second

// maxConcurrentProofs bounds the runs of the property suite, one per
// user kernel, that ProveKernels has going at once.
const maxConcurrentProofs = 8

// Kinds of fault a proof records (Proof.Fault).
const (
	// FaultCrash: the kernel left the device unusable in its process (a
	// sticky CUDA error, such as an illegal address or a trap), or the
	// run of the suite died while checking it.
	FaultCrash = "crash"
	// FaultHang: the run of the suite on the kernel was still going at
	// its time limit, and was killed.
	FaultHang = "hang"
)

// Proof is what the property suite said of one user kernel.
type Proof struct {
	Variant string
	// Verdict is "pass", "fail" or "skip", or "" when the suite ended
	// without one.
	Verdict string
	// Failed lists the properties (the suite's subtests) that failed.
	Failed []string
	// Detail is the suite's first line on a failure or the reason of a
	// skip, or what ended the run without a verdict.
	Detail string
	// Fault is FaultCrash or FaultHang when the kernel crashed or hung
	// the run of the suite, else "".
	Fault string
	// Command is the command that runs the suite on the kernel alone, as
	// ProveKernels ran it; "" for a proof read by parseProofs.
	Command string
}

// Proven reports whether the suite passed the kernel.
func (p Proof) Proven() bool { return p.Verdict == "pass" }

// Refusal says why the kernel's cases are not timed; "" when it is
// proven. A fault leads it ("crash: ", "hang: ") and ends it with the
// command that reruns the suite on the kernel alone.
func (p Proof) Refusal() string {
	var s string
	switch p.Verdict {
	case "pass":
		return ""
	case "fail":
		s = "failed the property suite"
		if len(p.Failed) > 0 {
			s += " (property " + strings.Join(p.Failed, ", ") + ")"
		}
		if p.Detail != "" {
			s += ": " + p.Detail
		}
	case "skip":
		s = "not proven: the property suite skipped it: " + p.Detail
	default:
		s = "not proven: " + p.Detail
		if p.Fault != "" {
			s = p.Detail
		}
	}
	if p.Fault != "" {
		s = p.Fault + ": " + s
		if p.Command != "" {
			s += "; reproduce alone: " + p.Command
		}
	}
	return s
}

// proveArgs are the arguments of a child run of the benchmarks test binary
// that proves the named user kernels: the suite's test, verbose, once,
// then extra (the -kernel flags that load them, and any -convtest.*
// flags).
func proveArgs(names []string, extra []string) []string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	args := []string{"-test.run=^" + proveTest + "$/^(?:" + strings.Join(quoted, "|") + ")$", "-test.v", "-test.count=1", "-test.timeout=0"}
	return append(args, extra...)
}

// ProveKernels runs the property suite on each of the named user kernels
// in a child run of bin, the benchmarks test binary, of its own (proveArgs
// with one name and extra, and -convtest.shrink-time=proveShrinkTime
// unless extra sets it), so that a kernel that faults or hangs fails
// alone: up to maxConcurrentProofs runs at once. A run stops at the
// kernel's first failed property, which is verdict enough, and is killed
// once it has run for timeout (when positive): the kernel is then taken
// to hang. A run whose output names a sticky CUDA error (the kernel left
// the device unusable, as an illegal address or a trap does), or that
// died while checking the kernel, marks a crash. Each run's output goes
// to log as it comes when there is one name, else as a block when the run
// ends. It returns the verdict on each name, in the order of names.
func ProveKernels(bin string, names []string, extra []string, timeout time.Duration, log io.Writer) []Proof {
	if !slices.ContainsFunc(extra, func(a string) bool {
		return strings.HasPrefix(a, "-convtest.shrink-time=") || strings.HasPrefix(a, "--convtest.shrink-time=")
	}) {
		extra = append(slices.Clone(extra), "-convtest.shrink-time="+proveShrinkTime.String())
	}
	proofs := make([]Proof, len(names))
	if len(names) == 1 {
		proofs[0] = proveOne(bin, names[0], extra, timeout, log)
		return proofs
	}
	var mu sync.Mutex // log
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxConcurrentProofs)
	for i, name := range names {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			var out bytes.Buffer
			proofs[i] = proveOne(bin, name, extra, timeout, &out)
			mu.Lock()
			defer mu.Unlock()
			log.Write(out.Bytes())
		}()
	}
	wg.Wait()
	return proofs
}

// proveOne runs the property suite on the user kernel called name in a
// child run of bin (ProveKernels), its output to log, and returns the
// verdict.
func proveOne(bin, name string, extra []string, timeout time.Duration, log io.Writer) Proof {
	args := proveArgs([]string{name}, extra)
	command := childproc.Quote(append([]string{bin}, args...))
	fmt.Fprintf(log, "[benchmarks] property suite on %s: %s\n", name, command)
	// The child is not put in a process group of its own: a sweep that
	// ends this binary's group ends it too.
	w := &proofWatch{name: name, log: log}
	w.child = childproc.Child{Limit: timeout, Stdout: w.line}
	err := w.child.Run(exec.Command(bin, args...))
	if w.grace != nil {
		w.grace.Stop()
	}
	p := parseProofs(w.out.String(), []string{name})[0]
	p.Command = command
	switch {
	case w.child.TimedOut() && !w.failed && p.Verdict == "":
		p.Fault = FaultHang
		p.Detail = fmt.Sprintf("the property suite was still running after %v (-prove-timeout)", timeout)
		if w.property != "" {
			p.Detail += " in property " + w.property
		}
		p.Detail += ": killed it"
	case w.failed:
		// Stopped at the first failed property: the verdict is in.
	case p.Verdict == "" && w.started && err != nil:
		p.Fault = FaultCrash
		p.Detail = fmt.Sprintf("the run of the property suite died (%v)", err)
		if w.property != "" {
			p.Detail += " in property " + w.property
		}
		if w.death != "" {
			p.Detail += ": " + clip(w.death, 300)
		}
	case p.Verdict == "":
		p.Detail = fmt.Sprintf("the run of the property suite (%s) ended without a verdict on it", command)
		if err != nil {
			p.Detail += ": " + err.Error()
		}
	}
	if p.Verdict == "fail" && w.sticky != "" {
		p.Fault = FaultCrash
		if !cudabind.MentionsSticky(p.Detail) {
			p.Detail += "; " + clip(w.sticky, 300)
		}
	}
	switch {
	case p.Fault == FaultHang:
		fmt.Fprintf(log, "[benchmarks] %s: killed the property suite after %v (-prove-timeout)\n", name, timeout)
	case w.failed && len(p.Failed) > 0:
		fmt.Fprintf(log, "[benchmarks] %s: stopped the property suite at its first failed property, %s\n", name, p.Failed[0])
	}
	return p
}

// proofWatch takes the output of one run of the suite on one kernel (its
// stdout and stderr as one): it copies it to log, keeps it, notes the
// property running, the first line naming a sticky CUDA error and the
// runtime's report of a death, and stops the run at the end of the report
// of the kernel's first failed property, dropping what follows.
type proofWatch struct {
	name  string
	log   io.Writer
	child childproc.Child

	out      bytes.Buffer
	started  bool   // the kernel's subtest started
	property string // the property running
	sticky   string // the first line naming a sticky CUDA error
	death    string // the first line of a Go runtime's or a signal's report of the process's end
	failed   bool   // a property failed: the run is stopped
	grace    *time.Timer
}

// line takes one line of output, its newline included but for a last
// line without one.
func (w *proofWatch) line(b []byte) {
	if !bytes.HasSuffix(b, []byte("\n")) {
		b = append(bytes.Clone(b), '\n')
	}
	l := strings.TrimSuffix(string(b), "\n")
	t := strings.TrimSpace(l)
	if w.failed && (strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ")) {
		// The report of the failure is complete: what follows is
		// dropped, the run stopped.
		w.child.Stop()
		return
	}
	w.log.Write(b)
	w.out.Write(b)
	if m := runLine.FindStringSubmatch(t); m != nil {
		if m[1] == w.name {
			w.started = true
			w.property = m[2]
		}
		return
	}
	if w.death == "" && w.started && childproc.IsDeath(t) {
		w.death = t
	}
	if w.sticky == "" && w.started && cudabind.MentionsSticky(t) {
		w.sticky = t
	}
	if !w.failed && w.started && logPrefix.MatchString(l) && isFailureLine(logPrefix.ReplaceAllString(l, ""), w.name, w.property) {
		// Stop at the next line of the test's, or in a moment: the
		// lines of the report may come in more than one write.
		w.failed = true
		w.grace = time.AfterFunc(failureGrace, w.child.Stop)
	}
}

// failureGrace is how long a run of the suite goes on after the first
// line of its first failure, for the rest of the report.
const failureGrace = 2 * time.Second

// clip shortens s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

var (
	resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): ` + proveTest + `/([^/\s]+)(?:/([^/\s]+))?\S* \(`)
	runLine    = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+` + proveTest + `/([^/\s]+)(?:/([^/\s]+))?`)
	logPrefix  = regexp.MustCompile(`^\s+\S+\.go:\d+: `)
)

// parseProofs reads the verbose output of the suite's test (go test -v
// format) and returns the verdict on each of names: the variant's
// subtest's result, the properties that failed, and, as the detail, the
// first line the suite logged under the first failing property (with the
// shrunk case and the "failure:" line below it, where the suite prints
// them), or the reason of a skip. A property fails by its subtest's
// "--- FAIL" line or by the suite's line on its failure ("variant=NAME
// property=PROP ...", streamed as it comes), so that the output of a run
// stopped at its first failed property, before the subtests' result
// lines, reads as a failure too.
func parseProofs(out string, names []string) []Proof {
	proofs := make([]Proof, len(names))
	for i, n := range names {
		proofs[i].Variant = n
	}
	type sub struct{ variant, property string }
	first := map[sub]string{} // the first log line of each subtest
	var last sub              // the subtest the latest RUN or CONT line names
	lastLog := map[string]string{}
	failed := func(p *Proof, property string) {
		p.Verdict = "fail"
		if !slices.Contains(p.Failed, property) {
			p.Failed = append(p.Failed, property)
		}
		if p.Detail == "" {
			p.Detail = first[sub{p.Variant, property}]
		}
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if m := runLine.FindStringSubmatch(t); m != nil {
			last = sub{m[1], m[2]}
			continue
		}
		if logPrefix.MatchString(l) && last.variant != "" {
			msg := logPrefix.ReplaceAllString(l, "")
			lastLog[last.variant] = msg
			if _, seen := first[last]; !seen {
				for _, next := range lines[i+1 : min(len(lines), i+8)] {
					next = strings.TrimSpace(next)
					if strings.HasPrefix(next, "shrunk case") {
						msg += "; " + strings.Join(strings.Fields(next), " ")
					}
					if strings.HasPrefix(next, "failure: ") {
						msg += "; " + next
						break
					}
				}
				first[last] = msg
			}
			if j := slices.Index(names, last.variant); j >= 0 && isFailureLine(logPrefix.ReplaceAllString(l, ""), last.variant, last.property) {
				failed(&proofs[j], last.property)
			}
			continue
		}
		m := resultLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		j := slices.Index(names, m[2])
		if j < 0 {
			continue
		}
		p := &proofs[j]
		switch {
		case m[3] == "" && m[1] == "PASS":
			p.Verdict = "pass"
		case m[3] == "" && m[1] == "FAIL":
			p.Verdict = "fail"
		case m[3] == "" && m[1] == "SKIP":
			p.Verdict = "skip"
			p.Detail = lastLog[m[2]]
		case m[1] == "FAIL":
			failed(p, m[3])
		}
	}
	for i := range proofs {
		if proofs[i].Verdict == "pass" {
			proofs[i].Detail = ""
		}
	}
	return proofs
}

// isFailureLine reports whether msg, a line the suite logged under the
// subtest of property of variant, is the suite's report of the
// property's failure (convtest: "variant=NAME property=PROP FAILED ..."
// or "variant=NAME property=PROP: ..."), a line it logs for nothing else.
func isFailureLine(msg, variant, property string) bool {
	if property == "" {
		return false
	}
	head := "variant=" + variant + " property=" + property
	return strings.HasPrefix(msg, head+" ") || strings.HasPrefix(msg, head+":")
}
