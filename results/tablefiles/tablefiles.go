// Package tablefiles reads the per-GPU JSON tables of results/tuning and
// results/crossover: the files embedded in a binary, overlaid by those at
// a path an environment variable names. Each caller parses the files into
// its own table type.
package tablefiles

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/convbench/convbench/convolve"
)

// File is the bytes of one table file and the name it is known by in
// errors and in the report (its source).
type File struct {
	Name string
	Data []byte
}

// ReadFS returns every *.json file at the top of fsys, in name order,
// each named prefix + its file name.
func ReadFS(fsys fs.FS, prefix string) ([]File, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	files := make([]File, 0, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: prefix + n, Data: data})
	}
	return files, nil
}

// Read returns the tables of embedded (named prefix + file name)
// followed by those at the path the environment variable env holds: a
// file, or a directory whose *.json files are read. A caller adds them in
// order, so that a table from the path replaces the embedded table of the
// same GPU. With the variable set to "off" Read returns no files; a path
// that cannot be read is an error naming the variable and the path.
func Read(embedded fs.FS, prefix, env string) ([]File, error) {
	path := os.Getenv(env)
	if path == "off" {
		return nil, nil
	}
	files, err := ReadFS(embedded, prefix)
	if err != nil || path == "" {
		return files, err
	}
	more, err := readPath(path)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", env, path, err)
	}
	return append(files, more...), nil
}

func readPath(path string) ([]File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return ReadFS(os.DirFS(path), filepath.Clean(path)+string(filepath.Separator))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return []File{{Name: path, Data: data}}, nil
}

// Set is a collection of tables by GPU name, each with the name of the
// file it was read from. The zero value is an empty set.
type Set[T any] struct {
	tables map[string]T
	from   map[string]string
}

// Put adds gpu's table t, read from source, replacing a table for the
// same GPU.
func (s *Set[T]) Put(gpu string, t T, source string) {
	if s.tables == nil {
		s.tables, s.from = map[string]T{}, map[string]string{}
	}
	s.tables[gpu] = t
	s.from[gpu] = source
}

// Get returns gpu's table and whether there is one.
func (s *Set[T]) Get(gpu string) (T, bool) {
	t, ok := s.tables[gpu]
	return t, ok
}

// GPUs lists the GPUs with a table, sorted.
func (s *Set[T]) GPUs() []string {
	g := make([]string, 0, len(s.tables))
	for n := range s.tables {
		g = append(g, n)
	}
	slices.Sort(g)
	return g
}

// Source is where gpu's table was read from, or "" when there is none.
func (s *Set[T]) Source(gpu string) string { return s.from[gpu] }

// Parse parses each of files with parse and puts the tables in a new set,
// in order, each under the GPU name gpu gives it (so that a later file
// replaces an earlier one of the same GPU). An error names the file.
func Parse[T any](files []File, parse func([]byte) (T, error), gpu func(T) string) (*Set[T], error) {
	s := &Set[T]{}
	for _, f := range files {
		t, err := parse(f.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		s.Put(gpu(t), t, f.Name)
	}
	return s, nil
}

// Nearest returns the index of the entry of entries that keep accepts
// nearest to problem p: the nearest K (an entry's k against the filter's
// larger side), then the nearest image size class (its size against
// p's), of two as near the larger K and then the smaller class; exact
// reports whether its K and class are p's own. It returns -1 when keep
// accepts none.
func Nearest[E any](entries []E, keep func(E) bool, k func(E) int, size func(E) convolve.SizeClass, p convolve.Problem) (index int, exact bool) {
	kw, kh := p.KernelSize()
	pk := max(kw, kh)
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

// SizeLess orders size classes from the smallest, for sorting entries.
func SizeLess(a, b convolve.SizeClass) bool { return sizeIndex(a) < sizeIndex(b) }

func sizeIndex(c convolve.SizeClass) int { return slices.Index(convolve.SizeClasses, c) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Loader reads the tables of one kind into sets: the files embedded in
// Embedded (named Prefix + file name), overlaid by those at the path the
// environment variable Env holds (Read), each parsed by Parse and kept
// under the GPU name GPU gives it. Name begins its errors.
type Loader[T any] struct {
	Embedded fs.FS
	Prefix   string
	Env      string
	Name     string
	Parse    func([]byte) (T, error)
	GPU      func(T) string

	once sync.Once
	set  *Set[T]
	err  error
}

// LoadFS reads every *.json file at the top of fsys as a table, naming
// each source prefix + its file name.
func (l *Loader[T]) LoadFS(fsys fs.FS, prefix string) (*Set[T], error) {
	files, err := ReadFS(fsys, prefix)
	if err != nil {
		return nil, err
	}
	return l.parse(files)
}

// Load reads the embedded tables, with those at the path in Env in
// place of the embedded tables of the same GPUs; with Env set to "off"
// the set is empty.
func (l *Loader[T]) Load() (*Set[T], error) {
	files, err := Read(l.Embedded, l.Prefix, l.Env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name, err)
	}
	return l.parse(files)
}

// Default is Load's set, read once per process.
func (l *Loader[T]) Default() (*Set[T], error) {
	l.once.Do(func() { l.set, l.err = l.Load() })
	return l.set, l.err
}

func (l *Loader[T]) parse(files []File) (*Set[T], error) {
	s, err := Parse(files, l.Parse, l.GPU)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name, err)
	}
	return s, nil
}
