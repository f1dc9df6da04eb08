package fleet

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"a\n", []string{"a"}},
		{"a\nb", []string{"a", "b"}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\n\nb\n", []string{"a", "", "b"}},
	} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readLines(p)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("readLines(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
		}
	}
	if _, err := readLines(filepath.Join(dir, "missing")); err == nil {
		t.Error("readLines of a missing file: no error")
	}
}
