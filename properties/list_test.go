package properties

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestListSelected checks which registered variants a -props.variant
// pattern selects, in the registry's order.
func TestListSelected(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		want    []string
	}{
		{"^cpu-naive$", []string{"cpu-naive"}},
		{"^cpu-(naive|fast)$", []string{"cpu-fast", "cpu-naive"}},
		{"^auto-cpu$", []string{"auto-cpu"}},
		{"cpu-nai", []string{"cpu-naive"}},
		{"^cpu-naive.$", nil},
		{"^no-such-variant$", nil},
	} {
		vs, err := selected(tt.pattern)
		if err != nil {
			t.Errorf("selected(%q): %v", tt.pattern, err)
			continue
		}
		var got []string
		for _, v := range vs {
			got = append(got, v.Describe().Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("selected(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
	if _, err := selected("^(cpu-"); err == nil {
		t.Error(`selected("^(cpu-"): no error`)
	}
}

// TestListFlag runs this test binary with -props.list: it prints the
// selected names one a line and exits 0 without running a test, or
// exits 1 when the pattern selects none or does not compile.
func TestListFlag(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		want    string
		code    int
	}{
		{"^cpu-(naive|fft)$", "cpu-fft\ncpu-naive\n", 0},
		{"^no-such-variant$", "", 1},
		{"^(cpu-", "", 1},
	} {
		cmd := exec.Command(os.Args[0], "-props.list", "-props.variant="+tt.pattern)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if string(out) != tt.want || code != tt.code {
			t.Errorf("-props.list -props.variant=%q: exit status %d, output %q, want %d and %q (stderr %q)",
				tt.pattern, code, out, tt.code, tt.want, stderr.String())
		}
		if tt.code != 0 && !strings.Contains(stderr.String(), tt.pattern) {
			t.Errorf("-props.list -props.variant=%q: stderr %q does not name the pattern", tt.pattern, stderr.String())
		}
	}
}
