package tune

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/convbench/convbench/results/tuning"
)

// Save merges entries into the table of gpu under dir,
// dir/<tuning.Slug(gpu)>.json: each replaces the entry with the same key,
// the others stay. It returns the file's path.
func Save(dir, gpu string, entries []tuning.Entry) (string, error) {
	path := filepath.Join(dir, tuning.Slug(gpu)+".json")
	t := &tuning.Table{GPU: gpu}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if t, err = tuning.Parse(data); err != nil {
			return "", fmt.Errorf("tune: %s: %w", path, err)
		}
		if t.GPU != gpu {
			return "", fmt.Errorf("tune: %s holds the table of %q, not %q", path, t.GPU, gpu)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("tune: %w", err)
	}
	for _, e := range entries {
		if err := e.Check(); err != nil {
			return "", err
		}
		t.Put(e)
	}
	out, err := t.Marshal()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("tune: %w", err)
	}
	return path, os.WriteFile(path, out, 0o644)
}
