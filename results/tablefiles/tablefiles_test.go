package tablefiles

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/convbench/convbench/convolve"
)

const env = "TABLEFILES_TEST_PATH"

func names(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name+"="+string(f.Data))
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
		files, err := Read(embedded, "e/", env)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := names(files); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	missing := filepath.Join(dir, "missing.json")
	t.Setenv(env, missing)
	if _, err := Read(embedded, "e/", env); err == nil || !strings.Contains(err.Error(), env+"="+missing) {
		t.Errorf("missing path: error %v, want one naming %s=%s", err, env, missing)
	}
}

// table is a test table: "gpu:body".
type table struct{ gpu, body string }

func parse(b []byte) (table, error) {
	gpu, body, ok := strings.Cut(string(b), ":")
	if !ok {
		return table{}, errors.New("no colon")
	}
	return table{gpu, body}, nil
}

// Parse puts each table under its GPU, a later file replacing an earlier
// one of the same GPU, and names the file of a table that does not parse.
func TestParse(t *testing.T) {
	gpu := func(t table) string { return t.gpu }
	s, err := Parse([]File{{"a.json", []byte("G1:one")}, {"b.json", []byte("G2:two")}, {"c.json", []byte("G1:three")}}, parse, gpu)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.GPUs(); !slices.Equal(got, []string{"G1", "G2"}) {
		t.Errorf("GPUs %q", got)
	}
	if g1, ok := s.Get("G1"); !ok || g1.body != "three" || s.Source("G1") != "c.json" {
		t.Errorf("G1 = %+v from %q, want the later file's", g1, s.Source("G1"))
	}
	if _, ok := s.Get("G3"); ok || s.Source("G3") != "" {
		t.Error("a GPU without a table has one")
	}
	if _, err := Parse([]File{{"bad.json", []byte("nothing")}}, parse, gpu); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("error %v, want one naming bad.json", err)
	}
}

// A Loader overlays the embedded tables with those at its variable's
// path, prefixes its errors with its name, and reads its default set once.
func TestLoader(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "g1.json"), []byte("G1:mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Loader[table]{Embedded: fstest.MapFS{"g1.json": {Data: []byte("G1:embedded")}, "g2.json": {Data: []byte("G2:embedded")}},
		Prefix: "e/", Env: env, Name: "kind", Parse: parse, GPU: func(t table) string { return t.gpu }}
	t.Setenv(env, dir)
	s, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	if g1, _ := s.Get("G1"); g1.body != "mine" || s.Source("G2") != "e/g2.json" {
		t.Errorf("G1 %+v, G2 from %q: want G1 from the path and G2 embedded", g1, s.Source("G2"))
	}
	d1, err1 := l.Default()
	t.Setenv(env, "off")
	d2, err2 := l.Default()
	if err1 != nil || err2 != nil || d1 != d2 || len(d1.GPUs()) != 2 {
		t.Errorf("Default: %p %v then %p %v, want one set of two GPUs read once", d1, err1, d2, err2)
	}
	if s, err := l.Load(); err != nil || len(s.GPUs()) != 0 {
		t.Errorf("Load with the variable off: %v GPUs, %v; want none", s.GPUs(), err)
	}
	if _, err := l.LoadFS(fstest.MapFS{"bad.json": {Data: []byte("x")}}, "p/"); err == nil || !strings.HasPrefix(err.Error(), "kind: p/bad.json") {
		t.Errorf("bad table: error %v, want one beginning kind: p/bad.json", err)
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
