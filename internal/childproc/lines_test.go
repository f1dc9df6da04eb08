package childproc

import (
	"slices"
	"testing"
)

func TestLines(t *testing.T) {
	var l Lines
	var got []string
	take := func(line []byte) bool {
		got = append(got, string(line))
		return string(line) != "stop\n"
	}
	for _, w := range []string{"a", "b\nc\n", "", "d\nstop\ne\nf"} {
		l.Add([]byte(w), take)
	}
	if want := []string{"ab\n", "c\n", "d\n", "stop\n"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if r := string(l.Rest()); r != "e\nf" {
		t.Errorf("Rest() = %q, want the unread lines and the unended one", r)
	}
	if r := l.Rest(); len(r) != 0 {
		t.Errorf("Rest() twice = %q", r)
	}
}

func TestIsDeath(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"panic: runtime error: index out of range", true},
		{"fatal error: all goroutines are asleep - deadlock!", true},
		{"SIGSEGV: segmentation violation", true},
		{"unexpected fault address 0x0", true},
		{"    --- FAIL: TestX (panic: no)", false},
		{"ok", false},
	} {
		if got := IsDeath(tt.line); got != tt.want {
			t.Errorf("IsDeath(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
