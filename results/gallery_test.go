package results

import (
	"bytes"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
	_ "github.com/convbench/convbench/refimpl"
)

func TestGalleryCPU(t *testing.T) {
	old := GallerySize
	GallerySize = convolve.Geometry{Width: 64, Height: 48, Channels: 3, Type: convolve.Uint8}
	defer func() { GallerySize = old }()
	files, err := Gallery("cpu-fast")
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
	if _, err := Gallery("no-such-variant"); err == nil {
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
