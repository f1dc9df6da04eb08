package crossover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables"
)

func entry(size convolve.SizeClass, k int, kind convolve.FilterKind, ranking ...string) Entry {
	e := Entry{Size: size, K: k, Kind: kind, Type: "f32"}
	for i, v := range ranking {
		e.Ranking = append(e.Ranking, Timing{Variant: v, MedianNS: float64(1000 * (i + 1))})
	}
	return e
}

func problem(t *testing.T, side, k int, separable bool, typ convolve.ElemType) convolve.Problem {
	t.Helper()
	var f *convolve.Filter
	var err error
	if separable {
		f, err = convolve.Gaussian(k, 0)
	} else {
		f, err = convolve.Dense(k)
	}
	if err != nil {
		t.Fatal(err)
	}
	return convolve.Problem{Op: convolve.Filter2D, Filter: f, Input: convolve.Geometry{Width: side, Height: side, Channels: 1, Type: typ}}
}

func TestLookup(t *testing.T) {
	var s Set
	s.Add(&Table{GPU: "GPU A", Entries: []Entry{
		entry(convolve.SizeLarge, 3, convolve.DenseFilter, "gpu-regtile", "gpu-tiled"),
		entry(convolve.SizeLarge, 21, convolve.DenseFilter, "gpu-tc-3xtf32", "gpu-regtile"),
		entry(convolve.SizeLarge, 5, convolve.DenseFilter, "gpu-tiled"),
		entry(convolve.SizeHuge, 21, convolve.DenseFilter, "gpu-regtile", "gpu-tc-3xtf32"),
		entry(convolve.SizeMedium, 63, convolve.DenseFilter, "cudnn", "gpu-fft", "gpu-regtile"),
		entry(convolve.SizeLarge, 7, convolve.SeparableFilter, "gpu-sepfused", "gpu-separable"),
	}}, "a.json")
	all := func(string) bool { return true }
	ours := func(v string) bool { return strings.HasPrefix(v, "gpu-") }
	tests := []struct {
		name      string
		gpu       string
		side, k   int
		separable bool
		typ       convolve.ElemType
		admit     func(string) bool
		want      string // "" when no match
		exact     bool
	}{
		{"exact", "GPU A", 4096, 3, false, convolve.Float32, all, "gpu-regtile", true},
		{"exact huge", "GPU A", 8192, 21, false, convolve.Float32, all, "gpu-regtile", true},
		{"nearest K", "GPU A", 4096, 25, false, convolve.Float32, all, "gpu-tc-3xtf32", false},
		{"K tie takes the larger", "GPU A", 4096, 13, false, convolve.Float32, all, "gpu-tc-3xtf32", false},
		{"peer skipped by admit", "GPU A", 1024, 63, false, convolve.Float32, ours, "gpu-fft", true},
		{"peer admitted", "GPU A", 1024, 63, false, convolve.Float32, all, "cudnn", true},
		{"separable", "GPU A", 4096, 9, true, convolve.Float32, all, "gpu-sepfused", false},
		{"none admitted", "GPU A", 4096, 7, true, convolve.Float32, func(string) bool { return false }, "", false},
		{"other type", "GPU A", 4096, 3, false, convolve.Uint8, all, "", false},
		{"other GPU", "GPU B", 4096, 3, false, convolve.Float32, all, "", false},
	}
	for _, tt := range tests {
		m, ok := Lookup(&s, tt.gpu, problem(t, tt.side, tt.k, tt.separable, tt.typ), tt.admit)
		if tt.want == "" {
			if ok {
				t.Errorf("%s: found %s in %s, want none", tt.name, m.Chosen.Variant, m.Entry.Key())
			}
			continue
		}
		if !ok || m.Chosen.Variant != tt.want || m.Exact != tt.exact || m.Source != "a.json" {
			t.Errorf("%s: Lookup = %+v, %v; want %s exact=%v from a.json", tt.name, m, ok, tt.want, tt.exact)
		}
	}
	var none *Set
	if _, ok := Lookup(none, "GPU A", problem(t, 64, 3, false, convolve.Float32), all); ok {
		t.Error("Lookup on a nil set found an entry")
	}
}

func TestParse(t *testing.T) {
	good := &Table{GPU: "G", Entries: []Entry{entry(convolve.SizeLarge, 3, convolve.DenseFilter, "a", "b")}}
	data, err := good.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data)
	if err != nil || len(back.Entries) != 1 || back.Entries[0].Ranking[1].Variant != "b" {
		t.Fatalf("Parse(Marshal) = %+v, %v", back, err)
	}
	bad := []struct {
		name, json, want string
	}{
		{"no gpu", `{"entries":[]}`, "names no gpu"},
		{"bad size", `{"gpu":"G","entries":[{"size":"vast","k":3,"kind":"dense","type":"f32","ranking":[{"variant":"a","median_ns":1}]}]}`, `"vast"`},
		{"bad kind", `{"gpu":"G","entries":[{"size":"large","k":3,"kind":"round","type":"f32","ranking":[{"variant":"a","median_ns":1}]}]}`, `"round"`},
		{"bad type", `{"gpu":"G","entries":[{"size":"large","k":3,"kind":"dense","type":"f16","ranking":[{"variant":"a","median_ns":1}]}]}`, "f16"},
		{"no k", `{"gpu":"G","entries":[{"size":"large","kind":"dense","type":"f32","ranking":[{"variant":"a","median_ns":1}]}]}`, "k and type"},
		{"empty ranking", `{"gpu":"G","entries":[{"size":"large","k":3,"kind":"dense","type":"f32","ranking":[]}]}`, "no variant"},
		{"zero time", `{"gpu":"G","entries":[{"size":"large","k":3,"kind":"dense","type":"f32","ranking":[{"variant":"a","median_ns":0}]}]}`, "time 0"},
		{"twice", `{"gpu":"G","entries":[{"size":"large","k":3,"kind":"dense","type":"f32","ranking":[{"variant":"a","median_ns":1},{"variant":"a","median_ns":2}]}]}`, "given twice"},
		{"out of order", `{"gpu":"G","entries":[{"size":"large","k":3,"kind":"dense","type":"f32","ranking":[{"variant":"a","median_ns":2},{"variant":"b","median_ns":1}]}]}`, "ranked after"},
		{"entry twice", `{"gpu":"G","entries":[{"size":"large","k":3,"kind":"dense","type":"f32","ranking":[{"variant":"a","median_ns":1}]},{"size":"large","k":3,"kind":"dense","type":"f32","ranking":[{"variant":"a","median_ns":1}]}]}`, "given twice"},
		{"not json", `{`, "crossover:"},
	}
	for _, b := range bad {
		if _, err := Parse([]byte(b.json)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: Parse error %v, want one containing %q", b.name, err, b.want)
		}
	}
}

func TestLoadEnv(t *testing.T) {
	dir := t.TempDir()
	tab := &Table{GPU: "Test GPU", Entries: []Entry{entry(convolve.SizeLarge, 3, convolve.DenseFilter, "gpu-tiled")}}
	data, err := tab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	file := tables.Path(dir, tab.GPU)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{dir, file} {
		t.Setenv(EnvVar, env)
		s, err := Tables.Load()
		if err != nil {
			t.Fatalf("%s=%s: %v", EnvVar, env, err)
		}
		if s.Table("Test GPU") == nil || !strings.HasPrefix(s.Source("Test GPU"), dir) {
			t.Errorf("%s=%s: GPUs %v, source %q", EnvVar, env, s.GPUs(), s.Source("Test GPU"))
		}
	}
	t.Setenv(EnvVar, "off")
	if s, err := Tables.Load(); err != nil || len(s.GPUs()) != 0 {
		t.Errorf("%s=off: %v tables, %v", EnvVar, s.GPUs(), err)
	}
	t.Setenv(EnvVar, filepath.Join(dir, "missing"))
	if _, err := Tables.Load(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing path: error %v", err)
	}
	if err := os.WriteFile(file, []byte(`{"gpu":""}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, dir)
	if _, err := Tables.Load(); err == nil || !strings.Contains(err.Error(), "names no gpu") {
		t.Errorf("bad table: error %v", err)
	}
}

// TestEmbedded checks every committed table.
func TestEmbedded(t *testing.T) {
	t.Setenv(EnvVar, "")
	s, err := Tables.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.GPUs()) == 0 {
		t.Error("no table embedded")
	}
	for _, g := range s.GPUs() {
		if want := "tables/crossover/" + tables.Slug(g) + ".json"; s.Source(g) != want {
			t.Errorf("table of %s read from %s, want %s", g, s.Source(g), want)
		}
	}
}
