// Package childproc runs the child processes that keep a fault from ending a run.
//
// A fault is a crash, a sticky CUDA error or a hang; the children are the
// sweep's test binary, the proofs of user kernels, the tuner's jobs.
package childproc

import "strings"

// Quote joins args into a command line for a POSIX shell, quoting the
// arguments that need it, so that a reproduce command can be pasted.
func Quote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:+@%") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
