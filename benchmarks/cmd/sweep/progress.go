package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/benchmarks"
)

// progressFilter passes the benchmark binary's stderr through, line by
// line, with the time left on its progress lines (benchmarks.Progress)
// replaced by the ETA's and their case named by label, other lines
// wrapped at results.TerminalWidth, and keeps the last lines that are
// not progress, the reason of a failed run.
type progressFilter struct {
	w   io.Writer
	eta *benchmarks.ETA
	now func() time.Time
	// name and total, when total is set, replace the sweep's name and
	// case count in the binary's progress lines: a shard's (-shard) own,
	// where the binary counts every case of the preset, the other
	// shards' that it skips among them.
	name  string
	total int
	mu    sync.Mutex
	part  lineBuffer
	tail  []string
	// onCase, when set, is called with the case each progress line
	// starts, and "" at the final line.
	onCase func(name string)
	// label, when set, names the case of a progress line on the
	// terminal (benchmarks.CaseLabels: the keys that vary in the sweep).
	label func(name string) string
	// noGPU is whether the binary's line on running without a GPU
	// passed, with its reason.
	noGPU bool
}

// sawNoGPU reports whether the binary's line on running without a GPU,
// which gives the reason, passed through.
func (p *progressFilter) sawNoGPU() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.noGPU
}

// noGPUPrefix opens the benchmark binary's line on running without a
// GPU, which gives the reason.
const noGPUPrefix = "[benchmarks] no GPU ("

// tailLines is how many of the binary's last stderr lines Tail keeps.
const tailLines = 3

func (p *progressFilter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.part.write(b, p.line)
	return len(b), nil
}

// Flush passes on a last line without a newline.
func (p *progressFilter) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.part.flush(p.line)
}

// Tail is the last lines of the binary that were not progress.
func (p *progressFilter) Tail() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.tail...)
}

// A lineBuffer holds what a writer was given after its last newline.
type lineBuffer []byte

// write adds b to the buffer and passes each line it completes to line,
// without its newline.
func (lb *lineBuffer) write(b []byte, line func(string)) {
	*lb = append(*lb, b...)
	for {
		i := bytes.IndexByte(*lb, '\n')
		if i < 0 {
			return
		}
		line(string((*lb)[:i]))
		*lb = (*lb)[i+1:]
	}
}

// flush passes a last line without a newline, if any, to line.
func (lb *lineBuffer) flush(line func(string)) {
	if len(*lb) > 0 {
		line(string(*lb))
		*lb = nil
	}
}

func (p *progressFilter) line(s string) {
	l, ok := benchmarks.ParseProgressLine(s)
	if !ok {
		if strings.HasPrefix(s, noGPUPrefix) {
			p.noGPU = true
		}
		if t := strings.TrimSpace(s); t != "" && !strings.HasPrefix(s, "  ") {
			p.tail = append(p.tail, strings.TrimPrefix(t, "[benchmarks] "))
			if len(p.tail) > tailLines {
				p.tail = p.tail[1:]
			}
		}
		printWrapped(p.w, s)
		return
	}
	if p.onCase != nil {
		p.onCase(l.Case)
	}
	now := p.now()
	if p.total > 0 {
		l.Sweep, l.Total = p.name, p.total
		if l.Case == "" && l.Done >= p.total {
			l.Left = "finished"
		}
	}
	if l.Case == "" {
		p.eta.Finish(now)
	} else if p.eta.Start(l.Case, now) {
		if left, ok := p.eta.Left(now); ok {
			l.Left = fmt.Sprintf("about %v left (estimate)", round(left))
		}
	}
	if p.label != nil && l.Case != "" {
		l.Case = p.label(l.Case)
	}
	fmt.Fprintln(p.w, l.String())
}
