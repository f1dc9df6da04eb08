package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports; its Fatal
// ends the goroutine, as testing's does (run calls Check in its own).
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Name() string              { return "TestX" }
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, a...))
	runtime.Goexit()
}
func (r *recorder) Fatal(a ...any) {
	r.errors = append(r.errors, fmt.Sprint(a...))
	runtime.Goexit()
}

// run calls Check(r, path, got) and returns what it reported.
func run(t *testing.T, path string, got []byte) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got)
	}()
	<-done
	return r.errors
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path, got string
		want            string // in the one error reported; "" for none
	}{
		{"same", path, "a\nb\n", ""},
		{"differs", path, "a\nc\n", "-want +got"},
		{"missing", filepath.Join(dir, "none.golden"), "a\n", "-update writes it"},
	} {
		errs := run(t, tt.path, []byte(tt.got))
		switch {
		case tt.want == "" && len(errs) > 0:
			t.Errorf("%s: reported %q", tt.name, errs)
		case tt.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tt.want)):
			t.Errorf("%s: reported %q, want one error with %q", tt.name, errs, tt.want)
		}
	}
}

func TestCheckUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	*update = true
	defer func() { *update = false }()
	errs := run(t, path, []byte("new\n"))
	if b, err := os.ReadFile(path); err != nil || string(b) != "new\n" || len(errs) > 0 {
		t.Errorf("after -update: file %q (%v), reported %q", b, err, errs)
	}
}
