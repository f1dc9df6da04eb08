package childproc

import (
	"bytes"
	"regexp"
)

// lineWriter is one of a child's streams, cut into lines for a handler.
type lineWriter struct {
	c     *Child
	each  func(line []byte)
	drops bool   // the output: dropped once the child is stopped
	tells bool   // carries the standard error: read for Why
	part  []byte // what was written after the last newline
}

// Write hands on each line b completes, however the writes cut them.
func (w *lineWriter) Write(b []byte) (int, error) {
	w.c.lineMu.Lock()
	defer w.c.lineMu.Unlock()
	w.part = append(w.part, b...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := w.part[:i+1]
		w.part = w.part[i+1:]
		w.take(line)
	}
}

// flush hands on a last line without a newline.
func (w *lineWriter) flush() {
	w.c.lineMu.Lock()
	defer w.c.lineMu.Unlock()
	if len(w.part) > 0 {
		w.take(w.part)
		w.part = nil
	}
}

// take hands on one line, unless the child's output is dropped.
func (w *lineWriter) take(line []byte) {
	if w.drops && w.c.dropping() {
		return
	}
	if w.tells {
		w.c.tell(line)
	}
	w.each(line)
}

var deathLine = regexp.MustCompile(`^(panic: |fatal error: |SIG[A-Z]+: |unexpected fault address )`)

// IsDeath reports whether line (trimmed) begins the Go runtime's report
// of a process's abnormal end.
func IsDeath(line string) bool { return deathLine.MatchString(line) }
