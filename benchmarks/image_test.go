package benchmarks

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
)

// loadImage reads every format testimage writes, named by the file's base
// name, and refuses a damaged file with an error naming the file and what
// was wrong.
func TestLoadImageFormats(t *testing.T) {
	gray, err := testimage.Gradient(convolve.Geometry{Width: 5, Height: 3, Channels: 1, Type: convolve.Uint8})
	if err != nil {
		t.Fatal(err)
	}
	rgb, err := testimage.Gradient(convolve.Geometry{Width: 5, Height: 3, Channels: 3, Type: convolve.Uint8})
	if err != nil {
		t.Fatal(err)
	}
	truncate := func(write func(io.Writer, *convolve.Image) error) func(io.Writer, *convolve.Image) error {
		return func(w io.Writer, im *convolve.Image) error {
			var b bytes.Buffer
			if err := write(&b, im); err != nil {
				return err
			}
			_, err := w.Write(b.Bytes()[:b.Len()-4])
			return err
		}
	}
	for _, tc := range []struct {
		file    string
		im      *convolve.Image
		write   func(io.Writer, *convolve.Image) error
		wantErr string // "" when the file loads
	}{
		{"g.png", gray, testimage.WritePNG, ""},
		{"c.png", rgb, testimage.WritePNG, ""},
		{"c.tiff", rgb, testimage.WriteTIFF, ""},
		{"g.pgm", gray, testimage.WritePGM, ""},
		{"c.ppm", rgb, testimage.WritePPM, ""},
		{"short.pgm", gray, truncate(testimage.WritePGM), "P5 truncated: 11 of 15 data bytes for 5x3"},
	} {
		path := filepath.Join(t.TempDir(), tc.file)
		var b bytes.Buffer
		if err := tc.write(&b, tc.im); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := loadImage(path)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one naming the file and %q", tc.file, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if in.Name != nameValue(tc.file) || in.Image.Geometry != tc.im.Geometry || !bytes.Equal(in.Image.U8, tc.im.U8) {
			t.Errorf("%s: got %q %v %v, want %q %v %v", tc.file, in.Name, in.Image.Geometry, in.Image.U8, nameValue(tc.file), tc.im.Geometry, tc.im.U8)
		}
	}
}
