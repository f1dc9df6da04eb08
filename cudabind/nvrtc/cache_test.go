package nvrtc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCacheKeyChangesWithEveryInput(t *testing.T) {
	src := Source{Name: "k.cu", Code: "code", Headers: map[string]string{"a.cuh": "A", "b.cuh": "B"}}
	opts := CompileOptions{Arch: "sm_90", Defines: map[string]string{"KW": "5"}}
	base := cacheKey(src, opts, 12, 4)
	if len(base) != 64 {
		t.Fatalf("key %q is not hex sha256", base)
	}
	if again := cacheKey(src, opts, 12, 4); again != base {
		t.Fatal("key is not deterministic")
	}
	// Header map order must not matter.
	src2 := Source{Name: "k.cu", Code: "code", Headers: map[string]string{"b.cuh": "B", "a.cuh": "A"}}
	if cacheKey(src2, opts, 12, 4) != base {
		t.Error("key depends on header map order")
	}
	variants := map[string]func() string{
		"name": func() string { s := src; s.Name = "j.cu"; return cacheKey(s, opts, 12, 4) },
		"code": func() string { s := src; s.Code = "code "; return cacheKey(s, opts, 12, 4) },
		"header text": func() string {
			s := src
			s.Headers = map[string]string{"a.cuh": "A2", "b.cuh": "B"}
			return cacheKey(s, opts, 12, 4)
		},
		"header name": func() string {
			s := src
			s.Headers = map[string]string{"a2.cuh": "A", "b.cuh": "B"}
			return cacheKey(s, opts, 12, 4)
		},
		"header added": func() string {
			s := src
			s.Headers = map[string]string{"a.cuh": "A", "b.cuh": "B", "c.cuh": ""}
			return cacheKey(s, opts, 12, 4)
		},
		"name expression": func() string { s := src; s.NameExpressions = []string{"k<3>"}; return cacheKey(s, opts, 12, 4) },
		"arch":            func() string { o := opts; o.Arch = "sm_89"; return cacheKey(src, o, 12, 4) },
		"define value":    func() string { o := opts; o.Defines = map[string]string{"KW": "7"}; return cacheKey(src, o, 12, 4) },
		"define added": func() string {
			o := opts
			o.Defines = map[string]string{"KW": "5", "KH": "5"}
			return cacheKey(src, o, 12, 4)
		},
		"fmad":        func() string { o := opts; o.FMAD = true; return cacheKey(src, o, 12, 4) },
		"fast math":   func() string { o := opts; o.FastMath = true; return cacheKey(src, o, 12, 4) },
		"line info":   func() string { o := opts; o.LineInfo = true; return cacheKey(src, o, 12, 4) },
		"extra":       func() string { o := opts; o.Extra = []string{"-G"}; return cacheKey(src, o, 12, 4) },
		"nvrtc major": func() string { return cacheKey(src, opts, 13, 4) },
		"nvrtc minor": func() string { return cacheKey(src, opts, 12, 5) },
	}
	seen := map[string]string{base: "base"}
	for name, f := range variants {
		k := f()
		if prev, dup := seen[k]; dup {
			t.Errorf("changing %s gives the same key as %s", name, prev)
		}
		seen[k] = name
	}
	// Field boundaries: moving text between code and name must change the key.
	a := cacheKey(Source{Name: "ab", Code: "c"}, opts, 12, 4)
	b := cacheKey(Source{Name: "a", Code: "bc"}, opts, 12, 4)
	if a == b {
		t.Error("key does not separate fields")
	}
}

func sampleCompiled() *Compiled {
	return &Compiled{Key: strings.Repeat("ab", 32), Name: "k.cu", Arch: "sm_90", Kind: ImageCUBIN,
		Image: []byte("\x7fELF fake cubin bytes"), Log: "warning: x", Options: []string{"--gpu-architecture=sm_90"},
		Lowered: map[string]string{"k<3>": "_Z1kILi3EEvv"}, NVRTC: [2]int{12, 4}}
}

func TestDiskCacheRoundTrip(t *testing.T) {
	dc := diskCache{filepath.Join(t.TempDir(), "nested", "cubin")}
	c := sampleCompiled()
	if err := dc.store(c); err != nil {
		t.Fatal(err)
	}
	got, err := dc.load(c.Key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Image, c.Image) || got.Log != c.Log || got.Kind != c.Kind || got.Arch != c.Arch ||
		got.Lowered["k<3>"] != "_Z1kILi3EEvv" || got.NVRTC != c.NVRTC || got.Options[0] != c.Options[0] {
		t.Errorf("round trip: got %+v, want %+v", got, c)
	}
	if _, err := dc.load(strings.Repeat("cd", 32)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing key: %v, want fs.ErrNotExist", err)
	}
	// A payload renamed to another key is refused.
	other := strings.Repeat("ef", 32)
	if err := os.Rename(dc.path(c.Key), dc.path(other)); err != nil {
		t.Fatal(err)
	}
	if _, err := dc.load(other); !errors.Is(err, errCorrupt) {
		t.Errorf("payload under the wrong key: %v, want errCorrupt", err)
	}
}

func TestDiskCacheDetectsCorruption(t *testing.T) {
	c := sampleCompiled()
	good, err := encodePayload(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodePayload(c.Key, good); err != nil {
		t.Fatalf("valid payload rejected: %v", err)
	}
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x01
		if _, err := decodePayload(c.Key, bad); !errors.Is(err, errCorrupt) {
			t.Fatalf("flipping byte %d of %d: %v, want errCorrupt", i, len(good), err)
		}
	}
	for _, n := range []int{0, 7, 8, 40, 48, 52, len(good) - 1} {
		if _, err := decodePayload(c.Key, good[:n]); !errors.Is(err, errCorrupt) {
			t.Errorf("truncated to %d bytes: %v, want errCorrupt", n, err)
		}
	}
	if _, err := decodePayload(c.Key, append(bytes.Clone(good), 0)); !errors.Is(err, errCorrupt) {
		t.Errorf("extended payload: %v, want errCorrupt", err)
	}
}

// TestCacheCorruptFileIsMissAndRewritten goes through lookupCache and
// storeCache with a damaged file on disk.
func TestCacheCorruptFileIsMissAndRewritten(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCacheDir, dir)
	resetMemoryCache()
	c := sampleCompiled()
	storeCache(c)
	resetMemoryCache()
	path := diskCache{dir}.path(c.Key)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-3] ^= 0x80 // inside the image
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	before := ReadCacheStats()
	if got := lookupCache(c.Key); got != nil {
		t.Fatal("corrupt payload served as a hit")
	}
	after := ReadCacheStats()
	if after.Corrupt != before.Corrupt+1 || after.Hits() != before.Hits() {
		t.Errorf("stats %+v -> %+v: want one corrupt payload and no hit", before, after)
	}
	storeCache(c) // what Compile does after the recompilation
	resetMemoryCache()
	got := lookupCache(c.Key)
	if got == nil || !bytes.Equal(got.Image, c.Image) || !got.Cached {
		t.Fatalf("after rewrite: %+v", got)
	}
	if s := ReadCacheStats(); s.DiskHits != after.DiskHits+1 {
		t.Errorf("rewrite not served from disk: %+v", s)
	}
}

func TestDiskCacheLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	dc := diskCache{dir}
	for i := 0; i < 5; i++ {
		c := sampleCompiled()
		c.Key = strings.Repeat(string(rune('a'+i)), 64)
		if err := dc.store(c); err != nil {
			t.Fatal(err)
		}
		if err := dc.store(c); err != nil { // overwrite
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Errorf("%d entries, want 5", len(entries))
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") || !strings.HasSuffix(e.Name(), ".bin") {
			t.Errorf("unexpected file %s", e.Name())
		}
	}
}

func TestUnwritableCacheDegradesToMemory(t *testing.T) {
	parent := t.TempDir()
	blocker := filepath.Join(parent, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory below a regular file can never be created.
	t.Setenv(EnvCacheDir, filepath.Join(blocker, "cubin"))
	resetMemoryCache()
	c := sampleCompiled()
	c.Key = strings.Repeat("99", 32)
	before := ReadCacheStats()
	storeCache(c)
	if s := ReadCacheStats(); s.DiskWrites != before.DiskWrites {
		t.Errorf("disk write counted into an unwritable directory")
	}
	if got := lookupCache(c.Key); got == nil || !bytes.Equal(got.Image, c.Image) {
		t.Error("memory cache did not serve the entry")
	}
}

func TestCacheDir(t *testing.T) {
	t.Setenv(EnvCacheDir, "/some/dir")
	if d := cacheDir(); d != "/some/dir" {
		t.Errorf("cacheDir() = %q with override", d)
	}
	t.Setenv(EnvCacheDir, "")
	if base, err := os.UserCacheDir(); err == nil {
		if d := cacheDir(); d != filepath.Join(base, "convbench", "cubin") {
			t.Errorf("cacheDir() = %q", d)
		}
	}
}

// TestCompileLog: with CONVBENCH_COMPILE_LOG set, each compilation appends
// one line naming its time, source, outcome and program (this test binary,
// nvrtc.test); unset, nothing is written.
func TestCompileLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "compiles.log")
	t.Setenv(EnvCompileLog, "")
	logCompile("off.cu", time.Second, nil)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a log was written with the variable unset: %v", err)
	}
	t.Setenv(EnvCompileLog, path)
	logCompile("a kernel.cu", 1500*time.Millisecond, nil)
	logCompile("b.cu", 250*time.Millisecond, errors.New("syntax"))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "nvrtc-compile 1.500 a_kernel.cu ok nvrtc\nnvrtc-compile 0.250 b.cu error nvrtc\n"
	if string(b) != want {
		t.Errorf("log:\n%s\nwant:\n%s", b, want)
	}
}

// TestBypassCache goes through compileCached with a stand-in for NVRTC:
// with the caches in service a key compiles once and is then served from
// memory or disk; while BypassCache is in effect every call compiles,
// nothing is read from or written to either cache, and the counters say
// so; the caches serve again once every restore function has run.
func TestBypassCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCacheDir, dir)
	resetMemoryCache()
	compiles := 0
	compile := func() (*Compiled, error) {
		compiles++
		c := sampleCompiled()
		c.Key = ""
		return c, nil
	}
	files := func() int {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return len(entries)
	}
	cached, fresh := strings.Repeat("b1", 32), strings.Repeat("b2", 32)
	if _, err := compileCached(cached, "k.cu", compile); err != nil {
		t.Fatal(err)
	}
	r1 := BypassCache()
	r2 := BypassCache()
	steps := []struct {
		name           string
		key            string
		restore        func()
		wantCompile    bool
		wantCached     bool
		wantBypassed   int64
		wantDiskWrites int64
	}{
		{"bypassed: a cached key compiles", cached, nil, true, false, 1, 0},
		{"bypassed: a new key compiles", fresh, nil, true, false, 1, 0},
		{"bypassed: the new key again compiles", fresh, nil, true, false, 1, 0},
		{"one of two restores: still bypassed", cached, r1, true, false, 1, 0},
		{"the same restore twice: still bypassed", cached, r1, true, false, 1, 0},
		{"every restore: the cached key is a hit", cached, r2, false, true, 0, 0},
		{"every restore: the new key was never stored", fresh, nil, true, false, 0, 1},
		{"every restore: the new key is now a hit", fresh, nil, false, true, 0, 0},
	}
	for _, s := range steps {
		if s.restore != nil {
			s.restore()
		}
		before, n, disk := ReadCacheStats(), compiles, files()
		c, err := compileCached(s.key, "k.cu", compile)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		after := ReadCacheStats()
		if got := compiles > n; got != s.wantCompile {
			t.Errorf("%s: compiled %v, want %v", s.name, got, s.wantCompile)
		}
		if c.Cached != s.wantCached || c.Key != s.key {
			t.Errorf("%s: Cached %v key %.8s, want %v %.8s", s.name, c.Cached, c.Key, s.wantCached, s.key)
		}
		if got := after.Bypassed - before.Bypassed; got != s.wantBypassed {
			t.Errorf("%s: Bypassed +%d, want +%d", s.name, got, s.wantBypassed)
		}
		if got, want := after.Misses-before.Misses, int64(compiles-n); got != want {
			t.Errorf("%s: Misses +%d, want +%d (one per compile)", s.name, got, want)
		}
		wantHits := int64(0)
		if s.wantCached {
			wantHits = 1
		}
		if got := after.Hits() - before.Hits(); got != wantHits {
			t.Errorf("%s: Hits +%d, want +%d", s.name, got, wantHits)
		}
		if got := after.DiskWrites - before.DiskWrites; got != s.wantDiskWrites || int64(files()-disk) != s.wantDiskWrites {
			t.Errorf("%s: DiskWrites +%d, files +%d, want +%d", s.name, got, files()-disk, s.wantDiskWrites)
		}
	}
}

// resetMemoryCache empties the in-memory cache.
func resetMemoryCache() {
	memCacheMu.Lock()
	memCache = map[string]*Compiled{}
	memCacheMu.Unlock()
}
