// Package tables is the loader of the per-GPU tables that GPU code reads
// at run time.
//
// A kind of table (tables/tuning, tables/crossover) keeps one JSON file
// per GPU, tables/<kind>/<gpu slug>.json (Path), embedded in every
// binary. A Kind reads them into a Set by GPU, overlaid by the tables at
// the path an environment variable names; Nearest finds the entry of a
// table that is nearest to a problem.
package tables

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/runfile"
)

// Slug is the file name (without .json) of gpu's table: its name in
// lower case with runs of other characters turned into '-', as the
// results' host directories are named ("nvidia-h100-80gb-hbm3").
func Slug(gpu string) string { return runfile.Slug(gpu, "") }

// Path is the file of gpu's table in directory dir:
// dir/<Slug(gpu)>.json.
func Path(dir, gpu string) string { return filepath.Join(dir, Slug(gpu)+".json") }

// A Table is the table of one GPU.
type Table interface {
	// GPUName is the GPU's name, as CUDA reports it.
	GPUName() string
}

// Set is a collection of tables by GPU name, each with the name of the
// file it was read from. The zero value is an empty set, and so is a nil
// *Set to its lookups.
type Set[T Table] struct {
	tables map[string]T
	from   map[string]string
}

// Add adds t, read from source, replacing a table for the same GPU.
func (s *Set[T]) Add(t T, source string) {
	if s.tables == nil {
		s.tables, s.from = map[string]T{}, map[string]string{}
	}
	gpu := t.GPUName()
	s.tables[gpu] = t
	s.from[gpu] = source
}

// Table returns gpu's table, or the zero T (nil for a pointer) when
// there is none.
func (s *Set[T]) Table(gpu string) T {
	if s == nil {
		var zero T
		return zero
	}
	return s.tables[gpu]
}

// Source is where gpu's table was read from, or "" when there is none.
func (s *Set[T]) Source(gpu string) string {
	if s == nil {
		return ""
	}
	return s.from[gpu]
}

// GPUs lists the GPUs with a table, sorted.
func (s *Set[T]) GPUs() []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.tables))
}

// Kind is one kind of table: its files, embedded from tables/<Name>/ of
// the repository, overlaid by those at the path the environment variable
// Env holds, each parsed and checked by Parse. Name begins its errors and
// the sources of its embedded tables ("tables/<Name>/<gpu slug>.json").
type Kind[T Table] struct {
	Name  string
	Env   string
	Files fs.FS
	Parse func([]byte) (T, error)

	once sync.Once
	set  *Set[T]
	err  error
}

// Load reads the embedded tables, with those at the path in Env (a file,
// or a directory whose *.json files are read) in place of the embedded
// tables of the same GPUs; with Env set to "off" the set is empty. An
// error names the file, or the variable and its path.
func (k *Kind[T]) Load() (*Set[T], error) {
	files, err := read(k.Files, "tables/"+k.Name+"/", k.Env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	s, err := parse(files, k.Parse)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	return s, nil
}

// Default is Load's set, read once per process.
func (k *Kind[T]) Default() (*Set[T], error) {
	k.once.Do(func() { k.set, k.err = k.Load() })
	return k.set, k.err
}

// ReadFile reads gpu's table in directory dir, the file Path(dir, gpu),
// and checks that it is gpu's. Where there is no such file the error
// wraps fs.ErrNotExist; other errors name the file.
func (k *Kind[T]) ReadFile(dir, gpu string) (T, error) {
	var zero T
	path := Path(dir, gpu)
	data, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	t, err := k.Parse(data)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	if t.GPUName() != gpu {
		return zero, fmt.Errorf("%s holds the table of %q, not %q", path, t.GPUName(), gpu)
	}
	return t, nil
}

// file is one table file's bytes and its name in errors and sources.
type file struct {
	name string
	data []byte
}

// readFS returns every *.json file at the top of fsys, in name order,
// each named prefix + its file name.
func readFS(fsys fs.FS, prefix string) ([]file, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	files := make([]file, 0, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		files = append(files, file{name: prefix + n, data: data})
	}
	return files, nil
}

// read returns the *.json files of embedded, each named prefix + its
// name, followed by those at the path the environment variable env holds
// (a file or a directory), or none where it is "off". A path that cannot
// be read is an error naming the variable and the path.
func read(embedded fs.FS, prefix, env string) ([]file, error) {
	path := os.Getenv(env)
	if path == "off" {
		return nil, nil
	}
	files, err := readFS(embedded, prefix)
	if err != nil || path == "" {
		return files, err
	}
	more, err := readPath(path)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", env, path, err)
	}
	return append(files, more...), nil
}

// readPath reads the file at path, or the *.json files of the directory.
func readPath(path string) ([]file, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return readFS(os.DirFS(path), filepath.Clean(path)+string(filepath.Separator))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return []file{{name: path, data: data}}, nil
}

// parse parses each of files with parse into a new set, in order, a
// later file replacing an earlier one of the same GPU. An error names the
// file.
func parse[T Table](files []file, parse func([]byte) (T, error)) (*Set[T], error) {
	s := &Set[T]{}
	for _, f := range files {
		t, err := parse(f.data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		s.Add(t, f.name)
	}
	return s, nil
}

// Nearest returns the index of the entry of entries that keep accepts
// nearest to problem p: the nearest K (an entry's k against p.K, the
// filter's larger side), then the nearest image size class (its size
// against p's), of two as near the larger K and then the smaller class;
// exact reports whether its K and class are p's own. It returns -1 when
// keep accepts none.
func Nearest[E any](entries []E, keep func(E) bool, k func(E) int, size func(E) convolve.SizeClass, p convolve.Problem) (index int, exact bool) {
	pk := p.K()
	ps := sizeIndex(convolve.SizeClassOf(p.Input.Width, p.Input.Height))
	dist := func(e E) (int, int) { return abs(k(e) - pk), abs(sizeIndex(size(e)) - ps) }
	best := -1
	for i, e := range entries {
		if !keep(e) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := entries[best]
		dk, ds := dist(e)
		bk, bs := dist(b)
		if dk < bk || dk == bk && (ds < bs || ds == bs && (k(e) > k(b) || k(e) == k(b) && sizeIndex(size(e)) < sizeIndex(size(b)))) {
			best = i
		}
	}
	if best < 0 {
		return -1, false
	}
	dk, ds := dist(entries[best])
	return best, dk == 0 && ds == 0
}

// SizeCompare orders size classes from the smallest, as cmp.Compare does.
func SizeCompare(a, b convolve.SizeClass) int { return sizeIndex(a) - sizeIndex(b) }

func sizeIndex(c convolve.SizeClass) int { return slices.Index(convolve.SizeClasses, c) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
