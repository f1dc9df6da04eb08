// Package modroot finds the repository root: the directory of go.mod.
//
// The root is the nearest directory at or above a starting one that holds
// a go.mod file, so that it is found the same way in a git checkout, in a
// copy of the tree without git (a GPU host's) and in a fleet task's tree,
// which has a go.mod of its own.
package modroot

import (
	"bufio"
	"fmt"
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
