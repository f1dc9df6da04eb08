package modroot

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// Above the test's modules, Find reaches whatever go.mod the host has
	// above its temporary directory, or none.
	above, err := nearestGoMod(tmp)
	root, _, err2 := Find(tmp)
	switch {
	case err != nil:
		t.Fatal(err)
	case above == "" && err2 == nil:
		t.Errorf("Find above every go.mod = %q, want an error", root)
	case above != "" && (err2 != nil || root != above):
		t.Errorf("Find(%s) = %q, %v; want the host's %s", tmp, root, err2, above)
	}
}

// nearestGoMod is the nearest directory at or above dir with a go.mod
// file, by stat alone, or "" where there is none.
func nearestGoMod(dir string) (string, error) {
	for {
		_, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir, nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
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

// Packages walks the module's tree as the go command does: it leaves out
// directories without Go files, those named .x, _x and testdata, and
// other modules.
func TestPackages(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{
		"go.mod":              "module example.org/m\n",
		"m.go":                "package m\n",
		"a/a.go":              "package a\n\nimport _ \"example.org/m/a/b\"\n",
		"a/a_test.go":         "package a\n\nimport _ \"testing\"\n",
		"a/b/b.go":            "package b\n",
		"a/b/doc.txt":         "not Go\n",
		"empty/x.txt":         "not Go\n",
		".hidden/h.go":        "package h\n",
		"_skip/s.go":          "package s\n",
		"a/testdata/t.go":     "package t\n",
		"other/go.mod":        "module example.org/other\n",
		"other/o.go":          "package o\n",
		"other/sub/sub.go":    "package sub\n",
		"cmd/tool/main.go":    "package main\n",
		"cmd/tool/notes.json": "{}\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Rel+" "+p.Name+" "+strings.Join(p.Imports, ","))
	}
	want := []string{". m ", "a a example.org/m/a/b", "a/b b ", "cmd/tool main "}
	if !slices.Equal(got, want) {
		t.Errorf("Packages = %q, want %q", got, want)
	}
}
