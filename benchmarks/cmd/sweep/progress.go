package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/convbench/convbench/benchmarks"
	"github.com/convbench/convbench/results"
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
	part  []byte
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
	p.part = append(p.part, b...)
	for {
		i := bytes.IndexByte(p.part, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.line(string(p.part[:i]))
		p.part = p.part[i+1:]
	}
}

// Flush passes on a last line without a newline.
func (p *progressFilter) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.part) > 0 {
		p.line(string(p.part))
		p.part = nil
	}
}

// Tail is the last lines of the binary that were not progress.
func (p *progressFilter) Tail() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.tail...)
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
		indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
		for _, l := range results.Wrap(s, results.TerminalWidth-len(indent), "  ") {
			fmt.Fprintln(p.w, indent+l)
		}
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
