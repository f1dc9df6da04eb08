package testsum

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ReadVerbose adds what one test binary of package pkg printed with
// -test.v, run alone in secs seconds; failed says the binary exited with
// an error. Indented lines are the output of the test named by the last
// "=== RUN", "=== CONT" or "=== NAME" line or result line. A binary that
// failed with no test failing counts one failure.
func (s *Summary) ReadVerbose(pkg string, r io.Reader, secs float64, failed bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	current := ""
	failures := s.failed
	// A result is added once its log, which may follow it, is in.
	var pending *Event
	flush := func() {
		if pending != nil {
			s.Add(*pending)
			pending = nil
		}
	}
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if name, ok := verboseMarker(line); ok {
			flush()
			current = name
			continue
		}
		if action, name, elapsed, ok := verboseResult(line); ok {
			flush()
			pending = &Event{Action: action, Package: pkg, Test: name, Elapsed: elapsed}
			current = name
			continue
		}
		if current != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			s.Add(Event{Action: "output", Package: pkg, Test: current, Output: line + "\n"})
		}
	}
	flush()
	if failed && s.failed == failures {
		s.failed++
		s.failedTests = append(s.failedTests, pkg+" (the test binary failed outside any test)")
	}
	action := "pass"
	if failed || s.failed > failures {
		action = "fail"
	}
	s.Add(Event{Action: action, Package: pkg, Elapsed: secs})
	return sc.Err()
}

// verboseMarker reads a line "=== RUN   Name", "=== CONT  Name" or
// "=== NAME  Name": the test whose output follows.
func verboseMarker(line string) (name string, ok bool) {
	rest, ok := strings.CutPrefix(line, "=== ")
	f := strings.Fields(rest)
	if !ok || len(f) != 2 || !slices.Contains([]string{"RUN", "CONT", "NAME"}, f[0]) {
		return "", false
	}
	return f[1], true
}

// verboseResult reads a result line, "--- PASS: Name (1.23s)" (or FAIL,
// SKIP), indented by its depth; a benchmark's result has no time.
func verboseResult(line string) (action, name string, secs float64, ok bool) {
	rest := strings.TrimLeft(line, " \t")
	for _, a := range []string{"pass", "fail", "skip"} {
		if r, found := strings.CutPrefix(rest, "--- "+strings.ToUpper(a)+": "); found {
			action, rest = a, r
			break
		}
	}
	if action == "" {
		return "", "", 0, false
	}
	name = strings.TrimSpace(rest)
	if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, "s)") {
		if v, err := strconv.ParseFloat(name[i+2:len(name)-2], 64); err == nil {
			name, secs = name[:i], v
		}
	}
	if name == "" || strings.ContainsAny(name, " \t") {
		return "", "", 0, false
	}
	return action, name, secs, true
}
