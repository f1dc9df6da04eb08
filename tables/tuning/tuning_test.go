package tuning

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/tables"
)

func entry(k int, size convolve.SizeClass, ry int) Entry {
	return Entry{Variant: "gpu-tiled", Type: "f32", K: k, Size: size,
		Chosen: Candidate{Block: "32x8", Tunables: map[string]int{"ry": ry}, Status: OK, MedianNS: 1000}}
}

func problem(t *testing.T, w, h, k int, typ convolve.ElemType) convolve.Problem {
	t.Helper()
	f, err := convolve.NewFilter("box", k, k, make([]float32, k*k))
	if err != nil {
		t.Fatal(err)
	}
	return convolve.Problem{Op: convolve.Filter2D, Input: convolve.Geometry{Width: w, Height: h, Channels: 1, Type: typ}, Filter: f}
}

func TestLookupNearest(t *testing.T) {
	var s Set
	s.Add(&Table{GPU: "GPU A", Entries: []Entry{
		entry(3, convolve.SizeLarge, 8), entry(3, convolve.SizeSmall, 2),
		entry(7, convolve.SizeLarge, 4), entry(21, convolve.SizeLarge, 1),
	}}, "a.json")
	tests := []struct {
		gpu, variant string
		w, h, k      int
		typ          convolve.ElemType
		wantRY       int // 0: no entry
		exact        bool
	}{
		{"GPU A", "gpu-tiled", 4096, 4096, 3, convolve.Float32, 8, true},
		{"GPU A", "gpu-tiled", 300, 200, 3, convolve.Float32, 2, true},
		{"GPU A", "gpu-tiled", 1024, 1024, 3, convolve.Float32, 2, false}, // medium: small and large tie, the smaller wins
		{"GPU A", "gpu-tiled", 4096, 4096, 5, convolve.Float32, 4, false}, // 3 and 7 tie: the larger K
		{"GPU A", "gpu-tiled", 4096, 4096, 31, convolve.Float32, 1, false},
		{"GPU A", "gpu-tiled", 8192, 8192, 7, convolve.Float32, 4, false},
		{"GPU A", "gpu-tiled", 4096, 4096, 3, convolve.Uint8, 0, false},
		{"GPU A", "gpu-regtile", 4096, 4096, 3, convolve.Float32, 0, false},
		{"GPU B", "gpu-tiled", 4096, 4096, 3, convolve.Float32, 0, false},
	}
	for _, tt := range tests {
		m, ok := Lookup(&s, tt.gpu, tt.variant, problem(t, tt.w, tt.h, tt.k, tt.typ))
		if tt.wantRY == 0 {
			if ok {
				t.Errorf("Lookup(%s, %s, %dx%d K=%d %v) found %s, want none", tt.gpu, tt.variant, tt.w, tt.h, tt.k, tt.typ, m.Entry.Key())
			}
			continue
		}
		if !ok || m.Entry.Chosen.Tunables["ry"] != tt.wantRY || m.Exact != tt.exact || m.Source != "a.json" {
			t.Errorf("Lookup(%s, %s, %dx%d K=%d %v) = %+v, %v; want ry=%d exact=%v", tt.gpu, tt.variant, tt.w, tt.h, tt.k, tt.typ, m, ok, tt.wantRY, tt.exact)
		}
	}
}

func TestParseRoundTrip(t *testing.T) {
	tab := &Table{GPU: "GPU A", Entries: []Entry{entry(7, convolve.SizeLarge, 4), entry(3, convolve.SizeLarge, 8)}}
	tab.Put(entry(7, convolve.SizeLarge, 2)) // replaces
	data, err := tab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 2 || got.Entries[0].K != 3 || got.Entries[1].Chosen.Tunables["ry"] != 2 {
		t.Errorf("round trip: %+v", got.Entries)
	}
}

func TestParseRejects(t *testing.T) {
	bad := map[string]string{
		"not json":     `{`,
		"no gpu":       `{"entries": []}`,
		"wrong chosen": `{"gpu": "A", "entries": [{"variant": "v", "type": "f32", "k": 3, "size": "large", "chosen": {"status": "wrong"}}]}`,
		"bad type":     `{"gpu": "A", "entries": [{"variant": "v", "type": "f64", "k": 3, "size": "large", "chosen": {"status": "ok"}}]}`,
		"bad size":     `{"gpu": "A", "entries": [{"variant": "v", "type": "f32", "k": 3, "size": "tiny", "chosen": {"status": "ok"}}]}`,
		"bad block":    `{"gpu": "A", "entries": [{"variant": "v", "type": "f32", "k": 3, "size": "large", "chosen": {"status": "ok", "block": "32"}}]}`,
	}
	for name, data := range bad {
		if _, err := Parse([]byte(data)); err == nil {
			t.Errorf("%s: Parse = nil error", name)
		}
	}
}

func TestEmbeddedTablesParse(t *testing.T) {
	t.Setenv(EnvVar, "")
	s, err := Tables.Load()
	if err != nil {
		t.Fatalf("embedded tables: %v", err)
	}
	if len(s.GPUs()) == 0 {
		t.Error("no table embedded")
	}
	for _, g := range s.GPUs() {
		if want := "tables/tuning/" + tables.Slug(g) + ".json"; s.Source(g) != want {
			t.Errorf("table of %q is in %s, want %s", g, s.Source(g), want)
		}
	}
}

func TestLoadEnv(t *testing.T) {
	dir := t.TempDir()
	tab := &Table{GPU: "Test GPU", Entries: []Entry{entry(3, convolve.SizeLarge, 8)}}
	data, err := tab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "test-gpu.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := problem(t, 4096, 4096, 3, convolve.Float32)
	for _, env := range []string{file, dir} {
		t.Setenv(EnvVar, env)
		s, err := Tables.Load()
		if err != nil {
			t.Fatalf("%s=%s: %v", EnvVar, env, err)
		}
		m, ok := Lookup(s, "Test GPU", "gpu-tiled", p)
		if !ok || !strings.HasPrefix(m.Source, dir) {
			t.Errorf("%s=%s: Lookup = %+v, %v", EnvVar, env, m, ok)
		}
	}
	t.Setenv(EnvVar, "off")
	if s, err := Tables.Load(); err != nil || len(s.GPUs()) != 0 {
		t.Errorf("%s=off: %v tables, %v", EnvVar, s.GPUs(), err)
	}
	t.Setenv(EnvVar, filepath.Join(dir, "missing.json"))
	if _, err := Tables.Load(); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}
