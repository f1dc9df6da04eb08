package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -data and -out put a report of any stored runs anywhere, naming where
// its runs came from, and leave the committed report alone.
func TestDataAndOutFlags(t *testing.T) {
	out := t.TempDir()
	data := filepath.Join("..", "..", "testdata")
	committed, err := os.ReadFile(filepath.Join("..", "..", "report", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-data", data, "-out", out, "-gallery=none"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "`nvidia-h200`") || !strings.Contains(string(md), "results/testdata") {
		t.Errorf("report of %s does not name its host and data:\n%.600s", data, md)
	}
	if _, err := os.Stat(filepath.Join(out, "gallery")); !os.IsNotExist(err) {
		t.Errorf("-gallery=none wrote a gallery: %v", err)
	}
	if plots, _ := filepath.Glob(filepath.Join(out, "plots", "*.svg")); len(plots) == 0 {
		t.Errorf("no plots under %s", out)
	}
	after, err := os.ReadFile(filepath.Join("..", "..", "report", "README.md"))
	if err != nil || !bytes.Equal(after, committed) {
		t.Errorf("the committed report changed: %v", err)
	}
	if err := run([]string{"-data", filepath.Join(t.TempDir(), "none"), "-out", t.TempDir(), "-gallery=none", "extra"}, &stdout, &stderr); err == nil {
		t.Errorf("run with an extra argument: no error")
	}
}
