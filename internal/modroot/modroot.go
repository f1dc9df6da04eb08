// Package modroot finds the repository root, the directory of go.mod, and the packages under it.
package modroot

import (
	"bufio"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Find returns the nearest directory at or above dir (the working
// directory when dir is "") that holds a go.mod file, as an absolute
// path, and the module path that file names ("" when it names none).
func Find(dir string) (root, module string, err error) {
	if dir == "" {
		dir = "."
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", "", err
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			return dir, modulePath(f), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		dir = parent
	}
}

// modulePath reads the module directive of a go.mod file.
func modulePath(f *os.File) string {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		p := strings.TrimSpace(rest)
		if u, err := strconv.Unquote(p); err == nil {
			p = u
		}
		return p
	}
	return ""
}

// A Package is a package of the module: its directory relative to the
// root, with slashes ("." for the root), and what go/build reads of it.
type Package struct {
	Rel string
	*build.Package
}

// Packages returns the packages of the module rooted at root in walk
// order, leaving out directories whose name begins with "." or "_",
// testdata and other modules.
func Packages(root string) ([]Package, error) {
	var ps []Package
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != root {
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		bp, err := build.Default.ImportDir(dir, 0)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		ps = append(ps, Package{Rel: filepath.ToSlash(rel), Package: bp})
		return nil
	})
	return ps, err
}
