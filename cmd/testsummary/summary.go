package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// Skip reasons, by what a skipped test lacked.
const (
	needGPU   = "GPU"
	needNVRTC = "NVRTC"
	needOther = "other"
)

// summary counts test outcomes from go test -json events. Package result
// lines and the output of failing tests are echoed as go test prints them.
type summary struct {
	w              io.Writer
	passed, failed int
	skipped        map[string]int // by reason
	out            map[string][]string
	failedTests    []string
	badLines       int
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, skipped: map[string]int{}, out: map[string][]string{}}
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Build failures and other non-JSON output pass through.
			fmt.Fprintln(s.w, string(line))
			s.badLines++
			continue
		}
		s.add(e)
	}
	return sc.Err()
}

func (s *summary) add(e event) {
	key := e.Package + " " + e.Test
	switch e.Action {
	case "output":
		if e.Test == "" {
			// Package-level output: the ok/FAIL/? lines and anything a
			// package printed outside a test.
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				fmt.Fprint(s.w, e.Output)
			}
			return
		}
		s.out[key] = append(s.out[key], e.Output)
	case "pass":
		if e.Test != "" {
			s.passed++
			delete(s.out, key)
		}
	case "fail":
		if e.Test != "" {
			s.failed++
			s.failedTests = append(s.failedTests, e.Package+"."+e.Test)
			fmt.Fprint(s.w, strings.Join(s.out[key], ""))
			delete(s.out, key)
		}
	case "skip":
		if e.Test != "" {
			s.skipped[skipReason(s.out[key])]++
			delete(s.out, key)
		}
	}
}

// skipReason classifies a skipped test by the message it skipped with.
func skipReason(output []string) string {
	text := strings.Join(output, "")
	switch {
	case strings.Contains(text, "libnvrtc") || strings.Contains(text, "no NVRTC"):
		return needNVRTC
	case strings.Contains(text, "libcuda") || strings.Contains(text, "needs a GPU") ||
		strings.Contains(text, "no CUDA device") || strings.Contains(text, "CUDA device"):
		return needGPU
	}
	return needOther
}

func (s *summary) print(w io.Writer) {
	total := 0
	for _, n := range s.skipped {
		total += n
	}
	fmt.Fprintf(w, "\ntests: %d passed, %d failed, %d skipped", s.passed, s.failed, total)
	if total > 0 {
		var parts []string
		for _, r := range []string{needGPU, needNVRTC, needOther} {
			if n := s.skipped[r]; n > 0 {
				what := map[string]string{needGPU: "for want of a GPU", needNVRTC: "for want of NVRTC", needOther: "for other reasons"}[r]
				parts = append(parts, fmt.Sprintf("%d %s", n, what))
			}
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	// The tests that need NVRTC but no driver (the kernel compile checks)
	// skip with an NVRTC reason when it is missing.
	if n := s.skipped[needNVRTC]; n > 0 {
		fmt.Fprintf(w, "NVRTC kernel compile checks: skipped (%d tests need NVRTC, which this machine lacks)\n", n)
	} else {
		fmt.Fprintln(w, "NVRTC kernel compile checks: ran (no test skipped for want of NVRTC)")
	}
	if len(s.failedTests) > 0 {
		sort.Strings(s.failedTests)
		fmt.Fprintf(w, "failed: %s\n", strings.Join(s.failedTests, ", "))
	}
}
