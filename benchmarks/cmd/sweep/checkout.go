package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A testBin is the benchmarks test binary a sweep runs: its path, the
// steps that built it for the run's header, and cleanup, which removes
// it where the sweep built it.
type testBin struct {
	path    string
	steps   []string
	cleanup func()
}

// testBinary returns the test binary o's run takes: the one a -devices
// run built for its shards (o.built), which its cleanup leaves, or the
// one buildTestBinary returns.
func testBinary(o *options, root string, stderr io.Writer) (*testBin, error) {
	if o.built != nil {
		tb := *o.built
		tb.cleanup = func() {}
		return &tb, nil
	}
	return buildTestBinary(root, o.bin, stderr)
}

// buildTestBinary returns the benchmarks test binary to run: bin, made
// absolute, or one built into a temporary directory that its cleanup
// removes, with the build step for the header.
func buildTestBinary(root, bin string, stderr io.Writer) (*testBin, error) {
	if bin != "" {
		abs, err := filepath.Abs(bin)
		return &testBin{path: abs, cleanup: func() {}}, err
	}
	tmp, err := os.MkdirTemp("", "convbench-sweep")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	path := filepath.Join(tmp, "benchmarks.test")
	build := exec.Command("go", "test", "-c", "-o", path, "./benchmarks")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		cleanup()
		return nil, fmt.Errorf("building the benchmarks test binary: %w", err)
	}
	return &testBin{path: path, steps: []string{"CGO_ENABLED=0 go test -c -o benchmarks.test ./benchmarks"}, cleanup: cleanup}, nil
}

// checkout returns the repository root and the commit the run is of. In a
// git checkout they come from git; in a copy of the tree without git (a
// GPU host given the tree and a prebuilt binary) the root is the nearest
// directory up from the working directory that holds go.mod, and the
// commit is unknown.
func checkout() (root, commit string, err error) {
	if root, err = gitOutput("rev-parse", "--show-toplevel"); err == nil {
		if commit, err = gitOutput("rev-parse", "HEAD"); err != nil {
			return "", "", fmt.Errorf("reading the commit: %w", err)
		}
		if st, _ := gitOutput("status", "--porcelain", "--untracked-files=no"); st != "" {
			commit += " (with uncommitted changes)"
		}
		return root, commit, nil
	}
	dir, werr := os.Getwd()
	if werr != nil {
		return "", "", fmt.Errorf("finding the repository root: %v, %w", err, werr)
	}
	for {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil {
			return dir, "unknown (not a git checkout)", nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("finding the repository root: not a git checkout (%v) and no go.mod above the working directory", err)
		}
		dir = parent
	}
}

// binaryCommit reads the COMMIT file that make gpu-bins writes beside the
// binaries it builds. A prebuilt binary holds that commit's code whatever
// the checkout it runs in, so its commit is the one a run's header names.
func binaryCommit(bin string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(bin), "COMMIT"))
	c := strings.TrimSpace(string(b))
	if err != nil || c == "" {
		return "", false
	}
	return c + " (prebuilt " + filepath.Base(bin) + ")", true
}

func gitOutput(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	return strings.TrimSpace(string(out)), err
}
