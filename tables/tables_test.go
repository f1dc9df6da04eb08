package tables

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/convbench/convbench/convolve"
)

const env = "TABLEFILES_TEST_PATH"

func names(files []file) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.name+"="+string(f.data))
	}
	return out
}

func TestRead(t *testing.T) {
	embedded := fstest.MapFS{
		"b.json":    {Data: []byte("B")},
		"a.json":    {Data: []byte("A")},
		"notes.txt": {Data: []byte("not a table")},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte("X"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "x.json")
	tests := []struct {
		name, path string
		want       []string
	}{
		{"embedded only", "", []string{"e/a.json=A", "e/b.json=B"}},
		{"off", "off", nil},
		{"a directory after the embedded files", dir, []string{"e/a.json=A", "e/b.json=B", filepath.Clean(dir) + string(filepath.Separator) + "x.json=X"}},
		{"a file after the embedded files", file, []string{"e/a.json=A", "e/b.json=B", file + "=X"}},
	}
	for _, tt := range tests {
		t.Setenv(env, tt.path)
		files, err := read(embedded, "e/", env)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := names(files); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	t.Setenv(env, missing)
	if _, err := read(embedded, "e/", env); err == nil || !strings.Contains(err.Error(), env+"="+missing) {
		t.Errorf("missing path: error %v, want one naming %s=%s", err, env, missing)
	}
}

// table is a test table: "gpu:body".
type table struct{ gpu, body string }

func (t table) GPUName() string { return t.gpu }

func parseTable(b []byte) (table, error) {
	gpu, body, ok := strings.Cut(string(b), ":")
	if !ok {
		return table{}, errors.New("no colon")
	}
	return table{gpu, body}, nil
}

// parse adds each table under its GPU, a later file replacing an earlier
// one of the same GPU, and names the file of a table that does not parse.
func TestParse(t *testing.T) {
	s, err := parse([]file{{"a.json", []byte("G1:one")}, {"b.json", []byte("G2:two")}, {"c.json", []byte("G1:three")}}, parseTable)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.GPUs(); !slices.Equal(got, []string{"G1", "G2"}) {
		t.Errorf("GPUs %q", got)
	}
	if g1 := s.Table("G1"); g1.body != "three" || s.Source("G1") != "c.json" {
		t.Errorf("G1 = %+v from %q, want the later file's", g1, s.Source("G1"))
	}
	if g3 := s.Table("G3"); g3 != (table{}) || s.Source("G3") != "" {
		t.Errorf("G3 = %+v from %q, want no table", g3, s.Source("G3"))
	}
	if _, err := parse([]file{{"bad.json", []byte("nothing")}}, parseTable); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("error %v, want one naming bad.json", err)
	}
}

// A nil set is an empty one to its lookups.
func TestNilSet(t *testing.T) {
	var s *Set[table]
	if g := s.Table("G1"); g != (table{}) || s.Source("G1") != "" || len(s.GPUs()) != 0 {
		t.Errorf("nil set: table %+v, source %q, GPUs %q", g, s.Source("G1"), s.GPUs())
	}
}

// A Kind overlays its embedded tables, named tables/<Name>/, with those at
// its variable's path, prefixes its errors with its name, and reads its
// default set once.
func TestKind(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "g1.json"), []byte("G1:mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := &Kind[table]{Name: "kind", Env: env, Parse: parseTable,
		Files: fstest.MapFS{"g1.json": {Data: []byte("G1:embedded")}, "g2.json": {Data: []byte("G2:embedded")}}}
	t.Setenv(env, dir)
	s, err := k.Load()
	if err != nil {
		t.Fatal(err)
	}
	if g1 := s.Table("G1"); g1.body != "mine" || s.Source("G2") != "tables/kind/g2.json" {
		t.Errorf("G1 %+v, G2 from %q: want G1 from the path and G2 embedded", g1, s.Source("G2"))
	}
	d1, err1 := k.Default()
	t.Setenv(env, "off")
	d2, err2 := k.Default()
	if err1 != nil || err2 != nil || d1 != d2 || len(d1.GPUs()) != 2 {
		t.Errorf("Default: %p %v then %p %v, want one set of two GPUs read once", d1, err1, d2, err2)
	}
	if s, err := k.Load(); err != nil || len(s.GPUs()) != 0 {
		t.Errorf("Load with the variable off: %v GPUs, %v; want none", s.GPUs(), err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(env, bad)
	if _, err := k.Load(); err == nil || !strings.HasPrefix(err.Error(), "kind: "+bad) {
		t.Errorf("bad table: error %v, want one beginning kind: %s", err, bad)
	}
}

// ReadFile reads the file of a GPU's table and checks that it is the
// GPU's.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"nvidia-g1.json": "NVIDIA G1:one", "nvidia-g2.json": "NVIDIA G3:three", "nvidia-g4.json": "four"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := &Kind[table]{Name: "kind", Parse: parseTable}
	if g1, err := k.ReadFile(dir, "NVIDIA G1"); err != nil || g1.body != "one" {
		t.Errorf("ReadFile(G1) = %+v, %v; want the table of G1", g1, err)
	}
	tests := []struct {
		gpu, want string
	}{
		{"NVIDIA G2", `nvidia-g2.json holds the table of "NVIDIA G3", not "NVIDIA G2"`},
		{"NVIDIA G4", "nvidia-g4.json: no colon"},
	}
	for _, tt := range tests {
		if _, err := k.ReadFile(dir, tt.gpu); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadFile(%s): error %v, want one containing %q", tt.gpu, err, tt.want)
		}
	}
	if _, err := k.ReadFile(dir, "NVIDIA G5"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a GPU without a file: error %v, want fs.ErrNotExist", err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"NVIDIA H100 80GB HBM3": "nvidia-h100-80gb-hbm3", "NVIDIA H200": "nvidia-h200", " A--B ": "a-b"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := Path("dir", "NVIDIA H200"), filepath.Join("dir", "nvidia-h200.json"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
}

// Nearest takes the nearest K first, then the nearest size class, of two
// as near the larger K and then the smaller class.
func TestNearest(t *testing.T) {
	type entry struct {
		k    int
		size convolve.SizeClass
		skip bool
	}
	es := []entry{{3, convolve.SizeLarge, false}, {7, convolve.SizeSmall, false}, {7, convolve.SizeHuge, false},
		{11, convolve.SizeLarge, false}, {5, convolve.SizeLarge, true}}
	keep := func(e entry) bool { return !e.skip }
	k := func(e entry) int { return e.k }
	size := func(e entry) convolve.SizeClass { return e.size }
	prob := func(side, kk int) convolve.Problem {
		f, err := convolve.Box(kk)
		if err != nil {
			t.Fatal(err)
		}
		return convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: convolve.Geometry{Width: side, Height: side, Channels: 1}}
	}
	tests := []struct {
		name      string
		p         convolve.Problem
		want      int
		wantExact bool
	}{
		{"exact", prob(4096, 3), 0, true},
		{"K=5 as near 3 as 7: the nearer size class (3, large)", prob(4096, 5), 0, false},
		{"K=9 sits between 7 and 11: the larger K", prob(4096, 9), 3, false},
		{"K=7 at a large image: huge is nearer than small", prob(4096, 7), 2, false},
		{"K=7 at a medium image: small is nearer than huge", prob(1024, 7), 1, false},
	}
	for _, tt := range tests {
		i, exact := Nearest(es, keep, k, size, tt.p)
		if i != tt.want || exact != tt.wantExact {
			t.Errorf("%s: Nearest = %d, %v; want %d, %v", tt.name, i, exact, tt.want, tt.wantExact)
		}
	}
	if i, _ := Nearest(es, func(entry) bool { return false }, k, size, prob(64, 3)); i != -1 {
		t.Errorf("no entry kept: %d, want -1", i)
	}
}
