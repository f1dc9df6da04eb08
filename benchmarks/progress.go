package benchmarks

import (
	"fmt"
	"io"
	"strings"
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

// newProgress starts the clock of a sweep of total cases.
func newProgress(w io.Writer, sweep string, total int, now time.Time) *Progress {
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
		fmt.Fprintln(p.W, p.Line(now)+" "+name)
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
	return ProgressLine{Sweep: p.Sweep, Done: p.done, Total: p.Total, Elapsed: elapsed,
		Left: remaining(p.done, p.Total, elapsed)}.String()
}

// ProgressLine is one line Progress prints: the state of the sweep and,
// on the line of a case that starts, the case's name.
type ProgressLine struct {
	Sweep       string
	Done, Total int
	Elapsed     time.Duration
	Left        string // "about 3m6s left", "time left unknown" or "finished"
	Case        string // the case that starts; "" on the final line
}

// String formats the line as Progress prints it: "sweep default: 12/40
// done, 1m2s elapsed, about 3m6s left <case>".
func (l ProgressLine) String() string {
	s := fmt.Sprintf("sweep %s: %d/%d done, %s elapsed, %s", l.Sweep, l.Done, l.Total, roundDuration(l.Elapsed), l.Left)
	if l.Case != "" {
		s += " " + l.Case
	}
	return s
}

// ParseProgressLine parses a line String wrote; ok is false for any
// other line. Elapsed is as rounded as the line has it.
func ParseProgressLine(line string) (l ProgressLine, ok bool) {
	rest, ok := strings.CutPrefix(line, "sweep ")
	if !ok {
		return l, false
	}
	l.Sweep, rest, ok = strings.Cut(rest, ": ")
	if !ok {
		return l, false
	}
	var counts, elapsed string
	if counts, rest, ok = strings.Cut(rest, " done, "); !ok {
		return l, false
	}
	if _, err := fmt.Sscanf(counts, "%d/%d", &l.Done, &l.Total); err != nil {
		return l, false
	}
	if elapsed, rest, ok = strings.Cut(rest, " elapsed, "); !ok {
		return l, false
	}
	d, err := time.ParseDuration(elapsed)
	if err != nil {
		return l, false
	}
	l.Elapsed = d
	for _, left := range []string{"finished", "time left unknown"} {
		if c, ok := strings.CutPrefix(rest, left); ok {
			l.Left, l.Case = left, strings.TrimPrefix(c, " ")
			return l, true
		}
	}
	amount, c, ok := strings.Cut(rest, " left")
	if !ok || !strings.HasPrefix(amount, "about ") {
		return l, false
	}
	l.Left, l.Case = amount+" left", strings.TrimPrefix(c, " ")
	return l, true
}

// remaining estimates the time left when done of total cases took
// elapsed, assuming the rest take as long on average.
func remaining(done, total int, elapsed time.Duration) string {
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

// CaseLabels returns a function that names a case of a sweep by what
// tells it apart from the sweep's other cases, names (their Case.Name):
// its variant, then key=value for each other key whose value differs
// between the cases ("cpu-fast size=64x48 filter=gauss3"), leaving out k
// where each filter has one size (gauss5 is k=5). A name that is not one
// of names keeps its every key.
func CaseLabels(names []string) func(name string) string {
	parsed := make([][][2]string, len(names))
	values := map[string]map[string]bool{}
	var order []string
	for i, n := range names {
		parsed[i] = splitCaseName(n)
		for _, kv := range parsed[i] {
			if values[kv[0]] == nil {
				values[kv[0]] = map[string]bool{}
				order = append(order, kv[0])
			}
			values[kv[0]][kv[1]] = true
		}
	}
	// The filter's name says its size: k is left out where each filter
	// has one.
	kOf := map[string]string{}
	kFollows := true
	for _, p := range parsed {
		f, k := caseValue(p, "filter"), caseValue(p, "k")
		if prev, ok := kOf[f]; ok && prev != k {
			kFollows = false
		}
		kOf[f] = k
	}
	shown := map[string]bool{"variant": true}
	for _, k := range order {
		if len(values[k]) > 1 && !(k == "k" && kFollows) {
			shown[k] = true
		}
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	return func(name string) string {
		if !known[name] {
			return name
		}
		var parts []string
		for _, kv := range splitCaseName(name) {
			switch {
			case !shown[kv[0]]:
			case kv[0] == "variant":
				parts = append(parts, kv[1])
			default:
				parts = append(parts, kv[0]+"="+kv[1])
			}
		}
		return strings.Join(parts, " ")
	}
}

// splitCaseName splits "variant=a/size=64x48" into its key=value parts,
// in order.
func splitCaseName(name string) [][2]string {
	var kvs [][2]string
	for _, part := range strings.Split(name, "/") {
		k, v, _ := strings.Cut(part, "=")
		kvs = append(kvs, [2]string{k, v})
	}
	return kvs
}

// caseValue is the value of key among kvs, or "".
func caseValue(kvs [][2]string, key string) string {
	for _, kv := range kvs {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}
