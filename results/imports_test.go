package results

import (
	"bufio"
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gpuPackage reports whether the package at import path p, in module
// mod, may need a GPU: anything under cudabind or gpu, and anything
// under benchmarks except the GPU-free benchmarks/benchname.
func gpuPackage(mod, p string) bool {
	if p == mod+"/benchmarks/benchname" {
		return false
	}
	for _, dir := range []string{"/cudabind", "/gpu", "/benchmarks"} {
		if p == mod+dir || strings.HasPrefix(p, mod+dir+"/") {
			return true
		}
	}
	return false
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

// moduleDeps returns every package of module mod (rooted at root) that
// the package in dir imports, directly or not, leaving out tests, with
// the import that brought each in.
func moduleDeps(t *testing.T, root, mod, dir string) map[string]string {
	t.Helper()
	from := map[string]string{}
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
	walk(dir, mod+"/"+filepath.ToSlash(rel(root, dir)))
	return from
}

// rel is dir relative to root.
func rel(root, dir string) string {
	r, err := filepath.Rel(root, dir)
	if err != nil {
		return dir
	}
	return r
}

// Package results and the report command read stored files and import
// no GPU package, nor refimpl whose variants render the gallery (its own
// command, cmd/gallery), so that a report builds on any machine from the
// data alone.
func TestImportsNoGPUPackage(t *testing.T) {
	root, mod := moduleRoot(t)
	for _, dir := range []string{".", filepath.Join("cmd", "report")} {
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		deps := moduleDeps(t, root, mod, abs)
		if len(deps) == 0 {
			t.Fatalf("%s imports no package of %s: the walk found nothing", dir, mod)
		}
		for p, by := range deps {
			if gpuPackage(mod, p) || p == mod+"/refimpl" || strings.HasPrefix(p, mod+"/refimpl/") {
				t.Errorf("%s imports %s (through %s): a GPU package or the CPU variants", rel(root, abs), p, by)
			}
		}
	}
}

// The GPU code reads its run-time tables from package tables, never from
// results: no package under gpu or cudabind imports anything under
// results, directly or not (leaving out tests, as go list -deps does), so
// that the report tree can change without the GPU code.
func TestGPUPackagesImportNoResults(t *testing.T) {
	root, mod := moduleRoot(t)
	var dirs []string
	for _, top := range []string{"cudabind", "gpu"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			var noGo *build.NoGoError
			if _, err := build.ImportDir(path, 0); errors.As(err, &noGo) {
				return nil
			}
			dirs = append(dirs, path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(dirs) < 2 {
		t.Fatalf("found %d packages under cudabind and gpu: the walk missed them", len(dirs))
	}
	for _, dir := range dirs {
		for p, by := range moduleDeps(t, root, mod, dir) {
			if resultsPackage(mod, p) {
				t.Errorf("%s imports %s (through %s): GPU code reads nothing of results", rel(root, dir), p, by)
			}
		}
	}
}

// resultsPackage reports whether the package at import path p, in module
// mod, is results or one under it.
func resultsPackage(mod, p string) bool {
	return p == mod+"/results" || strings.HasPrefix(p, mod+"/results/")
}

func TestResultsPackage(t *testing.T) {
	const mod = "example.org/m"
	for _, tt := range []struct {
		path string
		want bool
	}{
		{mod + "/results", true},
		{mod + "/results/cmd/report", true},
		{mod + "/tables/tuning", false},
		{mod + "/resultsets", false},
		{"example.org/other/results", false},
	} {
		if got := resultsPackage(mod, tt.path); got != tt.want {
			t.Errorf("resultsPackage(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestGPUPackage(t *testing.T) {
	const mod = "example.org/m"
	for _, tt := range []struct {
		path string
		want bool
	}{
		{mod + "/cudabind", true},
		{mod + "/gpu/variants", true},
		{mod + "/benchmarks", true},
		{mod + "/benchmarks/cmd/sweep", true},
		{mod + "/benchmarks/benchname", false},
		{mod + "/convolve", false},
		{mod + "/convolve/tiling", false},
		{mod + "/cudabindings", false},
		{mod + "/gpus", false},
	} {
		if got := gpuPackage(mod, tt.path); got != tt.want {
			t.Errorf("gpuPackage(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
