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
	if err := run([]string{"-data", data, "-out", out}, &stdout, &stderr); err != nil {
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
		t.Errorf("the report rendered a gallery: %v", err)
	}
	if plots, _ := filepath.Glob(filepath.Join(out, "plots", "*.svg")); len(plots) == 0 {
		t.Errorf("no plots under %s", out)
	}
	for _, name := range []string{"index.html", "report.css", "report.js"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the web page: %v", err)
		}
	}
	after, err := os.ReadFile(filepath.Join("..", "..", "report", "README.md"))
	if err != nil || !bytes.Equal(after, committed) {
		t.Errorf("the committed report changed: %v", err)
	}
	if err := run([]string{"-data", filepath.Join(t.TempDir(), "none"), "-out", t.TempDir(), "extra"}, &stdout, &stderr); err == nil {
		t.Errorf("run with an extra argument: no error")
	}
}

// The report leaves the gallery it links as it finds it.
func TestGalleryLeftAlone(t *testing.T) {
	out := t.TempDir()
	readme := filepath.Join(out, "gallery", "README.md")
	if err := os.MkdirAll(filepath.Dir(readme), 0o755); err != nil {
		t.Fatal(err)
	}
	const md = "# Filter gallery\n"
	if err := os.WriteFile(readme, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-data", filepath.Join("..", "..", "testdata"), "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if b, err := os.ReadFile(readme); err != nil || string(b) != md {
		t.Errorf("gallery/README.md after the report = %q, %v; want %q", b, err, md)
	}
	report, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "(gallery/README.md)") {
		t.Errorf("the report does not link gallery/README.md:\n%.600s", report)
	}
}

// -baseline names the variant the runs' speed-ups compare with; a
// variant no run has is refused with the closest names.
func TestBaselineFlag(t *testing.T) {
	data := filepath.Join("..", "..", "testdata", "local")
	for _, tt := range []struct {
		baseline, want string
	}{
		{"", "| speed-up vs cpu-naive |"},
		{"cpu-fast", "| speed-up vs cpu-fast |"},
	} {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		if err := run([]string{"-data", data, "-out", out, "-baseline", tt.baseline}, &stdout, &stderr); err != nil {
			t.Fatalf("-baseline %q: %v\n%s", tt.baseline, err, stderr.String())
		}
		md, err := os.ReadFile(filepath.Join(out, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(md), tt.want) {
			t.Errorf("-baseline %q: the run's table has no column %q", tt.baseline, tt.want)
		}
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"-data", data, "-out", t.TempDir(), "-baseline", "cpu-nave"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "-baseline cpu-nave") || !strings.Contains(err.Error(), "did you mean cpu-naive") {
		t.Errorf("-baseline cpu-nave: %v, want an error naming cpu-naive", err)
	}
}
