package benchmarks

import (
	"fmt"
	"io"
	"time"
)

// Progress reports how far a sweep is, one line per started case, on a
// writer that is not the benchmark output (stderr).
type Progress struct {
	W     io.Writer
	Sweep string
	Total int
	start time.Time
	done  int
	last  string
}

// NewProgress starts the clock of a sweep of total cases.
func NewProgress(w io.Writer, sweep string, total int, now time.Time) *Progress {
	return &Progress{W: w, Sweep: sweep, Total: total, start: now}
}

// Start records that the case named name began at now; the case before it
// counts as done. Repeated calls for the same case (testing calls a
// benchmark function several times while it sizes b.N) are ignored.
func (p *Progress) Start(name string, now time.Time) {
	if p == nil || name == p.last {
		return
	}
	if p.last != "" {
		p.done++
	}
	p.last = name
	if p.W != nil {
		fmt.Fprintf(p.W, "%s %s\n", p.Line(now), name)
	}
}

// Finish counts the last case as done and prints the final line.
func (p *Progress) Finish(now time.Time) {
	if p == nil {
		return
	}
	if p.last != "" {
		p.done++
		p.last = ""
	}
	if p.W != nil {
		fmt.Fprintln(p.W, p.Line(now))
	}
}

// Note prints msg, indented under the line of the case it is about, for
// what a case is doing: its sample sets and what the clock guard did.
func (p *Progress) Note(msg string) {
	if p == nil || p.W == nil {
		return
	}
	fmt.Fprintf(p.W, "  %s\n", msg)
}

// Done is the number of finished cases.
func (p *Progress) Done() int { return p.done }

// Line formats the state: "sweep default: 12/40 done, 1m2s elapsed,
// about 3m6s left".
func (p *Progress) Line(now time.Time) string {
	elapsed := now.Sub(p.start)
	return fmt.Sprintf("sweep %s: %d/%d done, %s elapsed, %s", p.Sweep, p.done, p.Total,
		roundDuration(elapsed), Remaining(p.done, p.Total, elapsed))
}

// Remaining estimates the time left when done of total cases took
// elapsed, assuming the rest take as long on average.
func Remaining(done, total int, elapsed time.Duration) string {
	switch {
	case done >= total:
		return "finished"
	case done <= 0:
		return "time left unknown"
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	return "about " + roundDuration(left).String() + " left"
}

func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}
