package tablefiles

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

const env = "TABLEFILES_TEST_PATH"

func names(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name+"="+string(f.Data))
	}
	return out
}

func TestRead(t *testing.T) {
	embedded := fstest.MapFS{
		"b.json":    {Data: []byte("B")},
		"a.json":    {Data: []byte("A")},
		"notes.txt": {Data: []byte("not a table")},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte("X"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "x.json")
	tests := []struct {
		name, path string
		want       []string
	}{
		{"embedded only", "", []string{"e/a.json=A", "e/b.json=B"}},
		{"off", "off", nil},
		{"a directory after the embedded files", dir, []string{"e/a.json=A", "e/b.json=B", filepath.Clean(dir) + string(filepath.Separator) + "x.json=X"}},
		{"a file after the embedded files", file, []string{"e/a.json=A", "e/b.json=B", file + "=X"}},
	}
	for _, tt := range tests {
		t.Setenv(env, tt.path)
		files, err := Read(embedded, "e/", env)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := names(files); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	t.Setenv(env, missing)
	if _, err := Read(embedded, "e/", env); err == nil || !strings.Contains(err.Error(), env+"="+missing) {
		t.Errorf("missing path: error %v, want one naming %s=%s", err, env, missing)
	}
}
