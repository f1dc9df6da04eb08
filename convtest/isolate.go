package convtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/convbench/convbench/internal/childproc"
)

// stickyError is what a device error whose context can no longer be used
// (an illegal address, a trap, a launch failure) implements; the CUDA
// bindings' errors do.
type stickyError interface {
	error
	Sticky() bool
}

// isSticky reports whether err is or wraps a sticky device error.
func isSticky(err error) bool {
	var s stickyError
	return errors.As(err, &s) && s.Sticky()
}

// caseChecker checks one case in a fresh process: nil when the property
// holds for it there, a *noVerdictError when the process gave no answer
// within limit.
type caseChecker func(c testCase, limit time.Duration) error

// noVerdictError is a child process that was killed at its time limit
// before it passed or failed its case: the case is undecided, not a
// failure (the limit may be what was left of the shrink time, or the
// device may not take new work while the faulted process holds it).
// Where the child's output could be kept, output names the file that
// holds it, goroutine stacks at the kill included where the platform has
// SIGQUIT, and last is its last line before them.
type noVerdictError struct {
	limit  time.Duration
	last   string
	output string
}

func (e *noVerdictError) Error() string {
	s := fmt.Sprintf("no verdict within %v in a child process", e.limit)
	switch {
	case e.last != "" && e.output != "":
		s += fmt.Sprintf(" (its last line %q; its output and stacks: %s)", e.last, e.output)
	case e.output != "":
		s += fmt.Sprintf(" (no output; its stacks: %s)", e.output)
	}
	return s
}

// childStackWait is how long a child killed at its time limit is given
// to print its goroutines' stacks and exit before it is killed outright.
const childStackWait = 3 * time.Second

// undecided is the *noVerdictError of a child killed at limit whose
// output was out: its last line before the runtime's report of the
// signal, and out kept in a file of the temporary directory (none when
// that cannot be written).
func undecided(limit time.Duration, out []byte) *noVerdictError {
	e := &noVerdictError{limit: limit}
	before := out
	if i := bytes.Index(out, []byte("\nSIGQUIT: quit")); i >= 0 {
		before = out[:i]
	}
	for _, l := range strings.Split(string(before), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			e.last = l
		}
	}
	if len(e.last) > 200 {
		e.last = e.last[:200] + "..."
	}
	f, err := os.CreateTemp("", "convtest-child-*.txt")
	if err != nil {
		return e
	}
	_, werr := f.Write(out)
	if cerr := f.Close(); werr == nil && cerr == nil {
		e.output = f.Name()
	}
	return e
}

// childChecker returns the caseChecker that runs the test binary again
// (os.Args[0], with its flags) on exactly the test named test and the one
// case, as -convtest.case reruns a printed case: used to go on shrinking
// once a sticky error has made this process's device unusable. The child
// passes when it exits 0; a child past limit is sent
// childproc.QuitSignal (a Go test binary then prints its goroutines'
// stacks) and killed childStackWait later if still alive, and the case is
// undecided (*noVerdictError, naming the file that keeps the child's
// output).
func childChecker(test string, o Options) caseChecker {
	return func(c testCase, limit time.Duration) error {
		if limit <= 0 {
			limit = 10 * time.Minute
		}
		args := append(append([]string(nil), os.Args[1:]...),
			"-test.run="+runPattern(test), "-test.count=1", "-test.bench=^$",
			fmt.Sprintf("-%s.case=%v", o.FlagPrefix, c))
		var out bytes.Buffer
		child := &childproc.Child{Limit: limit, Quit: true, Grace: childStackWait, Stdout: func(l []byte) { out.Write(l) }}
		err := child.Run(exec.Command(os.Args[0], args...))
		switch {
		case child.TimedOut():
			return undecided(limit, out.Bytes())
		case err == nil:
			return nil
		}
		return fmt.Errorf("in a child process: %v: %s", err, failureLine(out.String()))
	}
}

// failureLine is the most telling line of a failed child's output: the
// first that names a failed property, else the last that is not empty.
func failureLine(out string) string {
	last := ""
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.Contains(l, "FAILED") || strings.Contains(l, "failure: ") {
			return l
		}
		if l != "" && !strings.HasPrefix(l, "FAIL") && !strings.HasPrefix(l, "---") {
			last = l
		}
	}
	return last
}
