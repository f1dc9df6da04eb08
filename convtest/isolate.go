package convtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
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
type noVerdictError struct{ limit time.Duration }

func (e *noVerdictError) Error() string {
	return fmt.Sprintf("no verdict within %v in a child process", e.limit)
}

// childChecker returns the caseChecker that runs the test binary again
// (os.Args[0], with its flags) on exactly the test named test and the one
// case, as -convtest.case reruns a printed case: used to go on shrinking
// once a sticky error has made this process's device unusable. The child
// passes when it exits 0; a child past limit is killed, and the case is
// undecided (*noVerdictError).
func childChecker(test string, o Options) caseChecker {
	return func(c testCase, limit time.Duration) error {
		if limit <= 0 {
			limit = 10 * time.Minute
		}
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		args := append(append([]string(nil), os.Args[1:]...),
			"-test.run="+runPattern(test), "-test.count=1", "-test.bench=^$",
			fmt.Sprintf("-%s.case=%v", o.FlagPrefix, c))
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		switch {
		case ctx.Err() != nil:
			return &noVerdictError{limit}
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
