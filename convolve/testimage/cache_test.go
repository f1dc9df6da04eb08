package testimage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
)

func TestCacheHitMiss(t *testing.T) {
	c, err := NewCache(filepath.Join(t.TempDir(), "images"))
	if err != nil {
		t.Fatal(err)
	}
	g := geom(31, 17, 3, convolve.Uint8)
	a, err := c.Noise(g, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if h, m := c.Stats(); h != 0 || m != 1 {
		t.Fatalf("after first Get: %d hits %d misses", h, m)
	}
	path := filepath.Join(c.Dir(), "noise_31x17x3_u8_seed12345.tiff")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("cache file: %v", err)
	}
	b, err := c.Noise(g, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if h, m := c.Stats(); h != 1 || m != 1 {
		t.Fatalf("after second Get: %d hits %d misses", h, m)
	}
	if x, y, ch, ok := samePixels(a, b); !ok {
		t.Fatalf("hit differs at (%d,%d,%d)", x, y, ch)
	}
	// The hit is a fresh image, in the layout and stride asked for.
	pg := g
	pg.Layout, pg.Stride = convolve.Planar, 40
	p, err := c.Noise(pg, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := c.Stats(); h != 2 || p.Geometry != pg {
		t.Fatalf("planar request: %d hits, geometry %v", h, p.Geometry)
	}
	if x, y, ch, ok := samePixels(a, p); !ok {
		t.Fatalf("planar hit differs at (%d,%d,%d)", x, y, ch)
	}
	// Another seed, type or generator is another file.
	c.Noise(g, 1)
	f := g
	f.Type = convolve.Float32
	c.Noise(f, DefaultSeed)
	c.Scene(g)
	if _, m := c.Stats(); m != 4 {
		t.Errorf("misses %d, want 4", m)
	}
	entries, _ := os.ReadDir(c.Dir())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "noise_31x17x3_f32_seed12345.tiff noise_31x17x3_u8_seed1.tiff noise_31x17x3_u8_seed12345.tiff scene_31x17x3_u8_seed0.tiff"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("cache holds %s, want %s (no temporary files)", got, want)
	}
}

func TestCacheRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	c, _ := NewCache(dir)
	g := geom(8, 8, 1, convolve.Float32)
	want, _ := Noise(g, 3)
	path := filepath.Join(dir, "noise_8x8x1_f32_seed3.tiff")
	other := filepath.Join(dir, "noise_8x8x1_f32_seed4.tiff")
	if _, err := c.Noise(g, 4); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(other)

	corrupt := map[string]func() []byte{
		"flipped pixel bit": func() []byte { b := append([]byte(nil), good...); b[len(b)-5] ^= 1; return b },
		"truncated":         func() []byte { return good[:len(good)/2] },
		"empty":             func() []byte { return nil },
		"not a tiff":        func() []byte { return []byte("hello") },
		"another key":       func() []byte { return good }, // seed 4's file under seed 3's name
	}
	misses := 1
	for name, bytes := range corrupt {
		if err := os.WriteFile(path, bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := c.Noise(g, 3)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		misses++
		if _, m := c.Stats(); m != misses {
			t.Errorf("%s: trusted the bad file", name)
		}
		if x, y, ch, ok := samePixels(want, got); !ok {
			t.Errorf("%s: wrong pixels at (%d,%d,%d)", name, x, y, ch)
		}
		// The file was replaced by a valid one: the next Get hits.
		h0, _ := c.Stats()
		c.Noise(g, 3)
		if h, _ := c.Stats(); h != h0+1 {
			t.Errorf("%s: the regenerated file is not used", name)
		}
	}
}

func TestCacheErrors(t *testing.T) {
	if _, err := NewCache(""); err == nil {
		t.Error("NewCache(\"\") succeeded")
	}
	c, _ := NewCache(t.TempDir())
	g := geom(4, 4, 1, convolve.Uint8)
	for _, name := range []string{"", "Noise", "a/b", "x y", "../up"} {
		if _, err := c.Get(name, g, 0, Gradient); err == nil || !strings.Contains(err.Error(), "name") {
			t.Errorf("name %q: %v", name, err)
		}
	}
	if _, err := c.Get("grad", geom(4, 0, 1, convolve.Uint8), 0, Gradient); err == nil || !strings.Contains(err.Error(), "height 0") {
		t.Errorf("bad geometry: %v", err)
	}
	boom := errors.New("boom")
	if _, err := c.Get("fail", g, 0, func(convolve.Geometry) (*convolve.Image, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("generator error: %v", err)
	}
	if _, err := c.Get("small", g, 0, func(convolve.Geometry) (*convolve.Image, error) {
		return Gradient(geom(2, 2, 1, convolve.Uint8))
	}); err == nil || !strings.Contains(err.Error(), "asked for") {
		t.Errorf("generator of the wrong size: %v", err)
	}
	if _, m := c.Stats(); m != 0 {
		t.Errorf("failed Gets counted as misses: %d", m)
	}
}
