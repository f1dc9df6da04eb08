package main

import (
	"strconv"
	"strings"
	"testing"
)

// The counts benchstat needs are those it prints for too few lines: an
// interval from six, a significant difference from four.
func TestLeastCounts(t *testing.T) {
	if minIntervalCount != 6 {
		t.Errorf("minIntervalCount = %d, want 6 (benchstat: need >= 6 samples for confidence interval at level 0.95)", minIntervalCount)
	}
	if minSignificantCount != 4 {
		t.Errorf("minSignificantCount = %d, want 4 (the least p of a U-test of 3 and 3 is 0.1)", minSignificantCount)
	}
	if DefaultCount < minIntervalCount {
		t.Errorf("DefaultCount %d gives no interval: want %d or more", DefaultCount, minIntervalCount)
	}
}

func TestCountWarning(t *testing.T) {
	for _, tt := range []struct {
		count int
		want  []string // "" for no warning
	}{
		{1, []string{"-count 1 cannot show a significant difference", "needs 4 lines a case", "interval of a median 6"}},
		{3, []string{"-count 3 cannot show a significant difference", "needs 4 lines a case"}},
		{4, []string{"-count 4 gives benchstat no 95% interval", "needs 6 lines a case"}},
		{5, []string{"-count 5 gives benchstat no 95% interval"}},
		{6, nil},
		{10, nil},
	} {
		got := countWarning(tt.count)
		if (got == "") != (tt.want == nil) {
			t.Errorf("countWarning(%d) = %q, want a warning: %v", tt.count, got, tt.want != nil)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("countWarning(%d) = %q, lacks %q", tt.count, got, w)
			}
		}
	}
}

// The sweep warns of a -count too small before it samples, and a dry
// run at that count warns too.
func TestSweepWarnsOfCount(t *testing.T) {
	if _, err := gitOutput("rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout: " + err.Error())
	}
	for _, count := range []int{3, 6} {
		var stdout, stderr strings.Builder
		code := sweepMain([]string{"-dry-run", "-variants", "cpu-naive", "-sizes", "64x48", "-filters", "gauss3", "-count", strconv.Itoa(count), "-data", t.TempDir()}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("-count %d: exit %d\n%s", count, code, stderr.String())
		}
		warn := strings.Index(stderr.String(), "sweep: warning: -count ")
		est := strings.Index(stderr.String(), "estimated duration")
		switch {
		case count < minSignificantCount && (warn < 0 || est < 0 || warn > est):
			t.Errorf("-count %d: want the warning before the estimate:\n%s", count, stderr.String())
		case count >= minIntervalCount && warn >= 0:
			t.Errorf("-count %d: a warning:\n%s", count, stderr.String())
		}
	}
}
