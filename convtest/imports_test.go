package convtest

import (
	"bufio"
	"go/build"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forbidden reports whether the package at import path p, in module mod,
// is one convtest must not import: anything under cudabind, gpu,
// benchmarks or results. convtest needs only the variant contract
// (convolve), the CPU reference (refimpl) and the verifier (verify).
func forbidden(mod, p string) bool {
	for _, dir := range []string{"/cudabind", "/gpu", "/benchmarks", "/results"} {
		if p == mod+dir || strings.HasPrefix(p, mod+dir+"/") {
			return true
		}
	}
	return false
}

func TestForbidden(t *testing.T) {
	const mod = "example.org/m"
	for _, tt := range []struct {
		path string
		want bool
	}{
		{mod + "/cudabind", true},
		{mod + "/cudabind/cudaerr", true},
		{mod + "/gpu/variants", true},
		{mod + "/gpu/auto", true},
		{mod + "/benchmarks", true},
		{mod + "/benchmarks/benchname", true},
		{mod + "/results", true},
		{mod + "/results/tuning", true},
		{mod + "/convolve", false},
		{mod + "/convolve/testimage", false},
		{mod + "/refimpl", false},
		{mod + "/verify", false},
		{mod + "/gpus", false},
		{mod + "/resultsx", false},
		{"example.org/other/gpu", false},
	} {
		if got := forbidden(mod, tt.path); got != tt.want {
			t.Errorf("forbidden(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// moduleRoot returns the directory holding go.mod above the working
// directory and the module path it declares.
func moduleRoot(t *testing.T) (dir, mod string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(sc.Text(), "module "); ok {
					return dir, strings.TrimSpace(m)
				}
			}
			t.Fatalf("%s/go.mod names no module", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Package convtest is a leaf of the module: it imports, directly or not,
// no package under cudabind, gpu, benchmarks or results, so that any
// module proves a variant with it without the GPU bindings. What it needs
// of a GPU variant comes through its optional interfaces (Warmer,
// AllocationCounter, UnavailableError). Its tests may import more.
func TestImportsNoGPUPackage(t *testing.T) {
	root, mod := moduleRoot(t)
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	from := map[string]string{} // each package of mod imported, and the importer that brought it in
	var walk func(dir, path string)
	walk = func(dir, path string) {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			rest, ok := strings.CutPrefix(imp, mod+"/")
			if !ok {
				continue
			}
			if _, seen := from[imp]; seen {
				continue
			}
			from[imp] = path
			walk(filepath.Join(root, filepath.FromSlash(rest)), imp)
		}
	}
	walk(dir, mod+"/convtest")
	if _, ok := from[mod+"/convolve"]; !ok {
		t.Fatalf("convtest does not import %s/convolve: the walk found %v", mod, from)
	}
	for _, p := range slices.Sorted(maps.Keys(from)) {
		if forbidden(mod, p) {
			t.Errorf("convtest imports %s (through %s)", p, from[p])
		}
	}
}
