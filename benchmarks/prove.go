package benchmarks

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// ProveTest is the test of the benchmarks test binary that runs the
// property suite (convtest.TestVariant) on every user kernel, one subtest
// per variant name.
const ProveTest = "TestUserKernels"

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
}

// Proven reports whether the suite passed the kernel.
func (p Proof) Proven() bool { return p.Verdict == "pass" }

// Refusal says why the kernel's cases are not timed; "" when it is
// proven.
func (p Proof) Refusal() string {
	switch p.Verdict {
	case "pass":
		return ""
	case "fail":
		s := "failed the property suite"
		if len(p.Failed) > 0 {
			s += " (property " + strings.Join(p.Failed, ", ") + ")"
		}
		if p.Detail != "" {
			s += ": " + p.Detail
		}
		return s
	case "skip":
		return "not proven: the property suite skipped it: " + p.Detail
	}
	return "not proven: " + p.Detail
}

// ProveArgs are the arguments of a child run of the benchmarks test binary
// that proves the named user kernels: the suite's test, verbose, once,
// then extra (the -kernel flags that load them, and any -convtest.*
// flags).
func ProveArgs(names []string, extra []string) []string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	args := []string{"-test.run=^" + ProveTest + "$/^(?:" + strings.Join(quoted, "|") + ")$", "-test.v", "-test.count=1", "-test.timeout=0"}
	return append(args, extra...)
}

// ProveKernels runs the property suite on the named user kernels in a
// child run of bin, the benchmarks test binary, with ProveArgs, copying
// its output to log as it comes, and returns the verdict on each name, in
// the order of names.
func ProveKernels(bin string, names []string, extra []string, log io.Writer) []Proof {
	var out bytes.Buffer
	cmd := exec.Command(bin, ProveArgs(names, extra)...)
	cmd.Stdout = io.MultiWriter(&out, log)
	cmd.Stderr = cmd.Stdout
	err := cmd.Run()
	proofs := ParseProofs(out.String(), names)
	for i := range proofs {
		if proofs[i].Verdict == "" {
			proofs[i].Detail = fmt.Sprintf("the run of the property suite (%s %s) ended without a verdict on it", bin, strings.Join(ProveArgs(names, extra), " "))
			if err != nil {
				proofs[i].Detail += ": " + err.Error()
			}
		}
	}
	return proofs
}

var (
	resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): ` + ProveTest + `/([^/\s]+)(?:/([^/\s]+))?\S* \(`)
	runLine    = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+` + ProveTest + `/([^/\s]+)(?:/([^/\s]+))?`)
	logPrefix  = regexp.MustCompile(`^\s+\S+\.go:\d+: `)
)

// ParseProofs reads the verbose output of the suite's test (go test -v
// format) and returns the verdict on each of names: the variant's
// subtest's result, the properties whose subtests failed, and, as the
// detail, the first line the suite logged under the first failing
// property (with the shrunk case and the "failure:" line below it, where
// the suite prints them), or the reason of a skip.
func ParseProofs(out string, names []string) []Proof {
	proofs := make([]Proof, len(names))
	for i, n := range names {
		proofs[i].Variant = n
	}
	type sub struct{ variant, property string }
	first := map[sub]string{} // the first log line of each subtest
	var last sub              // the subtest the latest RUN or CONT line names
	lastLog := map[string]string{}
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
		case m[1] == "FAIL" && !slices.Contains(p.Failed, m[3]):
			p.Failed = append(p.Failed, m[3])
			if p.Detail == "" {
				p.Detail = first[sub{m[2], m[3]}]
			}
		}
	}
	for i := range proofs {
		if proofs[i].Verdict == "pass" {
			proofs[i].Detail = ""
		}
	}
	return proofs
}
