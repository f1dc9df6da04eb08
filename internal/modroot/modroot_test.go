package modroot

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	tmp := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("m/go.mod", "// a module\n\nmodule example.org/m // its path\n\ngo 1.24\n")
	write("m/a/b/x.go", "package b\n")
	write("m/task/go.mod", "module \"fleettask\"\n")
	write("m/task/sub/x.go", "package sub\n")
	write("m/nomod/go.mod", "go 1.24\n")
	for _, tt := range []struct {
		dir, root, module string
	}{
		{"m", "m", "example.org/m"},
		{"m/a/b", "m", "example.org/m"},
		{"m/task/sub", "m/task", "fleettask"},
		{"m/nomod", "m/nomod", ""},
	} {
		root, module, err := Find(filepath.Join(tmp, tt.dir))
		if err != nil || root != filepath.Join(tmp, tt.root) || module != tt.module {
			t.Errorf("Find(%s) = %q, %q, %v; want %q, %q", tt.dir, root, module, err, filepath.Join(tmp, tt.root), tt.module)
		}
	}
	if root, _, err := Find(tmp); err == nil {
		t.Errorf("Find above every go.mod = %q, want an error", root)
	}
}

// From the working directory, a package's directory in the module, Find
// gives this module's root.
func TestFindWorkingDirectory(t *testing.T) {
	root, module, err := Find("")
	if err != nil {
		t.Fatal(err)
	}
	if module != "github.com/convbench/convbench" {
		t.Errorf("module %q", module)
	}
	wd, _ := os.Getwd()
	if rel, err := filepath.Rel(root, wd); err != nil || filepath.ToSlash(rel) != "internal/modroot" {
		t.Errorf("root %s is not two levels above the working directory %s", root, wd)
	}
}
