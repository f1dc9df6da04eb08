package childproc

import (
	"slices"
	"testing"
)

// A child's writes are handed on as lines, however the writes cut them;
// the last may lack its newline.
func TestLineWriter(t *testing.T) {
	var got []string
	w := &lineWriter{c: &Child{}, each: func(line []byte) { got = append(got, string(line)) }}
	for _, b := range []string{"a", "b\nc\n", "", "d\ne\nf"} {
		w.Write([]byte(b))
	}
	w.flush()
	w.flush()
	if want := []string{"ab\n", "c\n", "d\n", "e\n", "f"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
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
