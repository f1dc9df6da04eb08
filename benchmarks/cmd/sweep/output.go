package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Where runs go, relative to the repository root: a user's runs under
// LocalDataDir, which git ignores, and published runs, committed, under
// PublishedDataDir.
const (
	LocalDataDir     = "results/local/data"
	PublishedDataDir = "results/data"
)

// outputDir is the directory a run is written under: dataDir when set,
// else PublishedDataDir with publish, else LocalDataDir, under root.
func outputDir(root, dataDir string, publish bool) string {
	switch {
	case dataDir != "":
		return dataDir
	case publish:
		return filepath.Join(root, filepath.FromSlash(PublishedDataDir))
	}
	return filepath.Join(root, filepath.FromSlash(LocalDataDir))
}

// writeNew writes data to dir/name.txt, or, when that file exists, to
// the first of dir/name-2.txt, -3, ... that does not: an earlier run is
// never replaced. It returns the path written.
func writeNew(dir, name string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := 1; ; i++ {
		path := filepath.Join(dir, name+".txt")
		if i > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.txt", name, i))
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return "", err
		}
		return path, f.Close()
	}
}

// runName is the file name (without .txt) of a run of the sweep called
// name: the preset's name, or for a sweep that axis or -kernel flags set,
// "<name>-<digest>" with the first 8 hex digits of the SHA-256 of those
// arguments, so that runs of different axes keep different files
// (writeNew numbers the reruns of the same axes).
func runName(name string, axisArgs []string) string {
	if len(axisArgs) == 0 {
		return name
	}
	sum := sha256.Sum256([]byte(strings.Join(axisArgs, "\x00")))
	return fmt.Sprintf("%s-%x", name, sum[:4])
}

// absPaths makes the file paths of -image and -filters absolute, since
// the benchmark binary runs in the benchmarks directory.
func absPaths(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		switch name {
		case "image":
			value = absIfFile(value)
		case "filters":
			items := strings.Split(value, ",")
			for j, it := range items {
				items[j] = absIfFile(it)
			}
			value = strings.Join(items, ",")
		}
		out[i] = "-" + name + "=" + value
	}
	return out
}

func absIfFile(p string) string {
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return p
}

// configValue returns the value of the first "key: value" line.
func configValue(out []byte, key string) string {
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, key+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, "^$ *'\"|&;()<>\\?[]{}~`!#") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
