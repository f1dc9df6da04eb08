package testimage

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/convbench/convbench/convolve"
)

// Cache keeps generated images on disk as uncompressed TIFF files, the
// way report 001 keeps its fixed-seed random images, so that large inputs
// are generated once. A file is named and keyed by generator name, size,
// channel count, element type and seed; layout and stride are not part of
// the key because generators define pixels by coordinates, and Get returns
// the image in the geometry asked for.
//
// Files are written to a temporary name and renamed into place, so a
// reader never sees a partial file. Each file records its key and a
// checksum of its pixels in the ImageDescription tag; a file that does not
// parse, belongs to another key or fails the checksum is regenerated and
// replaced, never trusted. A Cache is safe for concurrent use.
type Cache struct {
	dir string

	mu           sync.Mutex
	hits, misses int
}

// NewCache returns a cache in dir, creating the directory if needed.
func NewCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, fmt.Errorf("testimage: cache directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("testimage: cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Stats returns how many Get calls were served from disk and how many
// generated the image.
func (c *Cache) Stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Generator makes an image of a geometry; seeded generators close over
// their seed, which the key passed to Get must name.
type Generator func(g convolve.Geometry) (*convolve.Image, error)

// Get returns the image the generator called name makes for g and seed,
// from the cache when a valid file is there, else generating and storing
// it. name must be non-empty and use only a-z, 0-9 and '-'; seed is part
// of the key (pass 0 for unseeded generators).
func (c *Cache) Get(name string, g convolve.Geometry, seed int64, gen Generator) (*convolve.Image, error) {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return nil, fmt.Errorf("testimage: cache key name %q: use a-z, 0-9 and '-'", name)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("testimage: %w", err)
	}
	key := fmt.Sprintf("%s_%dx%dx%d_%v_seed%d", name, g.Width, g.Height, g.Channels, g.Type, seed)
	path := filepath.Join(c.dir, key+".tiff")
	if im := c.load(path, key, g); im != nil {
		c.count(true)
		return im, nil
	}
	im, err := gen(g)
	if err != nil {
		return nil, err
	}
	if err := im.Check(); err != nil {
		return nil, fmt.Errorf("testimage: generator %s: %w", name, err)
	}
	if !sameShape(im, g) {
		return nil, fmt.Errorf("testimage: generator %s made %v, asked for %v", name, im.Geometry, g)
	}
	if err := c.store(path, key, im); err != nil {
		return nil, err
	}
	c.count(false)
	return im, nil
}

// Noise is Get for Noise(g, seed).
func (c *Cache) Noise(g convolve.Geometry, seed int64) (*convolve.Image, error) {
	return c.Get("noise", g, seed, func(g convolve.Geometry) (*convolve.Image, error) { return Noise(g, seed) })
}

// Scene is Get for Scene(g).
func (c *Cache) Scene(g convolve.Geometry) (*convolve.Image, error) {
	return c.Get("scene", g, 0, Scene)
}

func (c *Cache) count(hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit {
		c.hits++
	} else {
		c.misses++
	}
}

// load returns the cached image in geometry g, or nil when the file is
// missing, unreadable, for another key or corrupt.
func (c *Cache) load(path, key string, g convolve.Geometry) *convolve.Image {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	// The file is read under the size asked for, which g.Validate
	// bounded, not under MaxPixels.
	im, desc, err := decodeTIFF(b, int64(g.Pixels()))
	if err != nil || desc != description(key, im) {
		return nil
	}
	if !sameShape(im, g) {
		return nil
	}
	out, err := convolve.NewImage(g)
	if err != nil {
		return nil
	}
	copyPixels(out, im)
	return out
}

func (c *Cache) store(path, key string, im *convolve.Image) error {
	var buf bytes.Buffer
	if err := writeTIFF(&buf, im, description(key, im)); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*.tiff")
	if err != nil {
		return fmt.Errorf("testimage: cache: %w", err)
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("testimage: cache: %w", err)
	}
	return nil
}

// description is the ImageDescription a cache file must carry: the key
// and an FNV-1a checksum of the pixel values.
func description(key string, im *convolve.Image) string {
	if im == nil {
		return ""
	}
	return fmt.Sprintf("convbench testimage %s fnv64a=%016x", key, checksum(im))
}

// checksum hashes the samples as WriteTIFF stores them, in (y, x, c)
// order, independent of layout.
func checksum(im *convolve.Image) uint64 {
	h := fnv.New64a()
	writeSamples(h, im) // a hash.Hash never fails to write
	return h.Sum64()
}

// sameShape reports whether im has the width, height, channels and
// element type of g.
func sameShape(im *convolve.Image, g convolve.Geometry) bool {
	return im.Width == g.Width && im.Height == g.Height && im.Channels == g.Channels && im.Type == g.Type
}

// copyPixels copies every pixel of src into dst, which has the same size,
// channels and type, whatever the layouts and strides.
func copyPixels(dst, src *convolve.Image) {
	for c := 0; c < src.Channels; c++ {
		for y := 0; y < src.Height; y++ {
			for x := 0; x < src.Width; x++ {
				i, j := dst.Offset(x, y, c), src.Offset(x, y, c)
				switch src.Type {
				case convolve.Uint8:
					dst.U8[i] = src.U8[j]
				case convolve.Int16:
					dst.I16[i] = src.I16[j]
				default:
					dst.F32[i] = src.F32[j]
				}
			}
		}
	}
}
