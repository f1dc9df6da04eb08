package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// small shrinks the scene for the length of a test.
func small(t *testing.T) {
	old := sceneSize
	sceneSize = convolve.Geometry{Width: 24, Height: 16, Channels: 3, Type: convolve.Uint8}
	t.Cleanup(func() { sceneSize = old })
}

// -variant and -out render a gallery anywhere, replacing what was there.
func TestVariantAndOutFlags(t *testing.T) {
	small(t)
	out := filepath.Join(t.TempDir(), "gallery")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(out, "stale.png")
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := run([]string{"-variant", "cpu-fast", "-out", out}, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a file of the old gallery is left: %v", err)
	}
	md, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| gauss5 | ![gauss5](gauss5.png) | cpu-fast | clamped |") {
		t.Errorf("README.md does not show gauss5 by cpu-fast:\n%s", md)
	}
	for _, name := range []string{"input.png", "gauss5.png", "sobel-mag.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	if want := "wrote " + out + ", by cpu-fast"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to say %q", stderr.String(), want)
	}
}

func TestBadArguments(t *testing.T) {
	small(t)
	for _, args := range [][]string{
		{"-variant", "cpu-fast,", "-out", t.TempDir()},
		{"-variant", "no-such-variant", "-out", t.TempDir()},
		{"-variant", "cpu-fast", "-out", t.TempDir(), "extra"},
	} {
		var stderr bytes.Buffer
		if err := run(args, &stderr); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
}

// Without -variant and without a GPU, a gallery a GPU rendered is kept
// and any other is rendered again by cpu-fast.
func TestNoGPUKeepsGPUGallery(t *testing.T) {
	if _, err := cudabind.Default(); err == nil {
		t.Skip("a GPU is here")
	}
	small(t)
	out := t.TempDir()
	readme := filepath.Join(out, "README.md")
	const md = "| gauss5 | ![gauss5](gauss5.png) | gpu-tiled | clamped |\n"
	if err := os.WriteFile(readme, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := run([]string{"-out", out, "-data", t.TempDir()}, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(readme); string(b) != md {
		t.Errorf("the GPU's gallery was replaced: README.md = %q", b)
	}
	if !strings.Contains(stderr.String(), "kept "+out) {
		t.Errorf("stderr = %q, want it to say the gallery was kept", stderr.String())
	}
	if err := os.WriteFile(readme, []byte(strings.ReplaceAll(md, "gpu-tiled", "cpu-naive")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-out", out, "-data", t.TempDir()}, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(readme); !strings.Contains(string(b), "| gauss5 | ![gauss5](gauss5.png) | cpu-fast | clamped |") {
		t.Errorf("a CPU's gallery was not rendered again by cpu-fast: README.md =\n%s", b)
	}
}

func TestRelName(t *testing.T) {
	root := t.TempDir()
	for _, tt := range []struct{ dir, want string }{
		{filepath.Join(root, "results", "data"), "results/data"},
		{filepath.Join(root, "..", "elsewhere"), filepath.Join(root, "..", "elsewhere")},
		{filepath.Join(root, "..x"), "..x"},
	} {
		if got := relName(root, tt.dir); got != tt.want {
			t.Errorf("relName(%s, %s) = %q, want %q", root, tt.dir, got, tt.want)
		}
	}
}
