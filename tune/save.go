package tune

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/convbench/convbench/tables"
	"github.com/convbench/convbench/tables/tuning"
)

// Save merges entries into the table of gpu under dir,
// dir/<tables.Slug(gpu)>.json: each replaces the entry with the same key,
// the others stay. It returns the file's path.
func Save(dir, gpu string, entries []tuning.Entry) (string, error) {
	path := tables.Path(dir, gpu)
	t, err := tuning.Tables.ReadFile(dir, gpu)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t = &tuning.Table{GPU: gpu}
	case err != nil:
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
