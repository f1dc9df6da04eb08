package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
)

// filterOnly is cpu-fast restricted to Filter2D, to check that the
// gallery takes each image from the first variant that supports it.
type filterOnly struct{ convolve.Variant }

func (v filterOnly) Describe() convolve.Description {
	d := v.Variant.Describe()
	d.Name = "test-filter2d-only"
	d.Caps.Ops = []convolve.Operation{convolve.Filter2D}
	return d
}

func init() {
	v, err := convolve.Lookup("cpu-fast")
	if err != nil {
		panic(err)
	}
	convolve.Register(filterOnly{v})
}

func TestRenderFallsThrough(t *testing.T) {
	old := sceneSize
	sceneSize = convolve.Geometry{Width: 24, Height: 16, Channels: 3, Type: convolve.Uint8}
	defer func() { sceneSize = old }()
	files, err := render("A note.", "test-filter2d-only", "cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	md := string(files["README.md"])
	for _, want := range []string{
		"by the first of `test-filter2d-only` and `cpu-naive` that supports it",
		"A note.",
		"| gauss5 | ![gauss5](gauss5.png) | test-filter2d-only | clamped |",
		"| sobel-mag | ![sobel-mag](sobel-mag.png) | cpu-naive | magnitude, normalised |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("README lacks %q:\n%s", want, md)
		}
	}
	// Sobel magnitude is the only problem the first variant refuses.
	if _, err := render("", "test-filter2d-only"); err == nil || !strings.Contains(err.Error(), "sobel-mag") {
		t.Errorf("Gallery with no variant for sobel-mag: err = %v, want one naming sobel-mag", err)
	}
	if _, err := render(""); err == nil {
		t.Errorf("Gallery of no variant: no error")
	}
}

func TestRenderedByGPU(t *testing.T) {
	dir := t.TempDir()
	if renderedByGPU(dir) {
		t.Errorf("renderedByGPU of an empty directory = true")
	}
	for _, tt := range []struct {
		row  string
		want bool
	}{
		{"| gauss5 | ![gauss5](gauss5.png) | cpu-fast | clamped |", false},
		{"| gauss5 | ![gauss5](gauss5.png) | gpu-tiled | clamped |", true},
		{"| sobel-mag | ![sobel-mag](sobel-mag.png) | gpu-sobel | magnitude, normalised |", true},
		{"| input | ![input](input.png) | | as generated |", false},
	} {
		md := "# Filter gallery\n\n| filter | output | variant | shown as |\n|---|---|---|---|\n" + tt.row + "\n"
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := renderedByGPU(dir); got != tt.want {
			t.Errorf("renderedByGPU(%s) = %v, want %v", tt.row, got, tt.want)
		}
	}
}

func TestRenderCPU(t *testing.T) {
	old := sceneSize
	sceneSize = convolve.Geometry{Width: 64, Height: 48, Channels: 3, Type: convolve.Uint8}
	defer func() { sceneSize = old }()
	files, err := render("", "cpu-fast")
	if err != nil {
		t.Fatal(err)
	}
	want := len(convolve.Library()) + 3 // input, sobel-mag, README
	if len(files) != want {
		t.Errorf("%d files, want %d", len(files), want)
	}
	for name, b := range files {
		if name == "README.md" {
			continue
		}
		im, err := testimage.ReadPNG(bytes.NewReader(b))
		if err != nil || im.Width != 64 || im.Height != 48 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := render("", "no-such-variant"); err == nil {
		t.Errorf("Gallery of an unknown variant: no error")
	}
}

func TestSigned(t *testing.T) {
	for _, tt := range []struct {
		spec string
		want bool
	}{{"gauss5", false}, {"sharpen", false}, {"emboss", false}, {"sobel-x", true}, {"log5", true}, {"edge8", true}, {"box3", false}} {
		f, err := convolve.ParseFilter(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := signed(f); got != tt.want {
			t.Errorf("signed(%s) = %v, want %v", tt.spec, got, tt.want)
		}
	}
}
