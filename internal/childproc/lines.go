package childproc

import (
	"bytes"
	"regexp"
)

// Lines splits what a child process writes into lines, however the
// writes cut them.
type Lines struct{ part []byte }

// Add appends b and hands each complete line, its newline included, to
// each, until each returns false; the lines after that stay unread.
func (l *Lines) Add(b []byte, each func(line []byte) bool) {
	l.part = append(l.part, b...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			return
		}
		line := l.part[:i+1]
		l.part = l.part[i+1:]
		if !each(line) {
			return
		}
	}
}

// Rest returns what was written after the last newline, and forgets it.
func (l *Lines) Rest() []byte {
	r := l.part
	l.part = nil
	return r
}

// deathLine matches the first line of what the Go runtime prints when a
// process ends abnormally: a panic, a fatal error, a signal.
var deathLine = regexp.MustCompile(`^(panic: |fatal error: |SIG[A-Z]+: |unexpected fault address )`)

// IsDeath reports whether line (trimmed) begins the Go runtime's report
// of a process's abnormal end.
func IsDeath(line string) bool { return deathLine.MatchString(line) }
