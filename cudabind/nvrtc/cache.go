package nvrtc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// cacheFormat is mixed into every key and written into every payload;
// bump it when the payload layout or the compile pipeline changes.
const cacheFormat = 1

// cacheMagic starts every on-disk payload.
var cacheMagic = [8]byte{'C', 'V', 'B', 'C', 'U', 'B', 'I', 'N'}

// cacheKey hashes everything that determines a compilation's output.
func cacheKey(src Source, opts CompileOptions, nvrtcMajor, nvrtcMinor int) string {
	h := sha256.New()
	field := func(tag, s string) {
		// length-prefixed so that no two field sequences collide
		fmt.Fprintf(h, "%s:%d:", tag, len(s))
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	field("format", strconv.Itoa(cacheFormat))
	field("name", src.Name)
	field("code", src.Code)
	names := make([]string, 0, len(src.Headers))
	for n := range src.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		field("header-name", n)
		field("header", src.Headers[n])
	}
	for _, e := range src.NameExpressions {
		field("name-expression", e)
	}
	for _, o := range opts.Options() {
		field("option", o)
	}
	field("nvrtc", fmt.Sprintf("%d.%d", nvrtcMajor, nvrtcMinor))
	field("arch", opts.Arch)
	return hex.EncodeToString(h.Sum(nil))
}

// CacheStats counts compile-cache events since the process started.
type CacheStats struct {
	MemoryHits int64 // served from the in-memory cache
	DiskHits   int64 // served from the on-disk cache
	Misses     int64 // compiled by NVRTC, Bypassed included
	DiskWrites int64 // payloads written to disk
	Corrupt    int64 // on-disk payloads rejected (and rewritten)
	// Bypassed counts the compilations made while the caches were
	// bypassed (BypassCache): NVRTC ran without a cache lookup and the
	// result was not stored.
	Bypassed int64
}

var (
	statMemHits, statDiskHits, statMisses, statWrites, statCorrupt, statBypassed atomic.Int64

	// bypass counts the BypassCache calls whose restore function has not
	// been called.
	bypass atomic.Int64

	memCacheMu sync.Mutex
	memCache   = map[string]*Compiled{}
)

// ReadCacheStats returns the compile-cache counters.
func ReadCacheStats() CacheStats {
	return CacheStats{
		MemoryHits: statMemHits.Load(),
		DiskHits:   statDiskHits.Load(),
		Misses:     statMisses.Load(),
		DiskWrites: statWrites.Load(),
		Corrupt:    statCorrupt.Load(),
		Bypassed:   statBypassed.Load(),
	}
}

// BypassCache turns the compile caches off for the whole process until
// the function it returns is called: every Compile then runs NVRTC, reads
// neither the in-memory nor the on-disk cache, writes to neither, and does
// not wait for a compilation of the same key in progress elsewhere. Each
// compilation counts in CacheStats.Misses and CacheStats.Bypassed. Calls
// nest: the caches are back in service when every restore function has
// been called (a second call of one is a no-op).
//
// It exists to time a cold compile: the benchmarks' plan-cold cases
// (package benchmarks, timing=plan, cache=cold) call it around each plan
// they time, and check with ReadCacheStats that the plan compiled and hit
// no cache. Everything else should leave the caches alone.
func BypassCache() (restore func()) {
	bypass.Add(1)
	var once sync.Once
	return func() { once.Do(func() { bypass.Add(-1) }) }
}

// Hits is the total of memory and disk hits.
func (s CacheStats) Hits() int64 { return s.MemoryHits + s.DiskHits }

// cacheDir returns the on-disk compile cache directory:
// $CONVBENCH_CACHE_DIR, else <os.UserCacheDir()>/convbench/cubin, else ""
// (memory only).
func cacheDir() string {
	if d := strings.TrimSpace(os.Getenv(EnvCacheDir)); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "convbench", "cubin")
}

// lookupCache returns a copy of the cached compilation for key, from memory
// or disk, or nil. The caller that then compiles counts the miss.
func lookupCache(key string) *Compiled {
	memCacheMu.Lock()
	c := memCache[key]
	memCacheMu.Unlock()
	if c != nil {
		statMemHits.Add(1)
		return c.cachedCopy()
	}
	if dir := cacheDir(); dir != "" {
		c, err := diskCache{dir}.load(key)
		if err == nil {
			statDiskHits.Add(1)
			memCacheMu.Lock()
			memCache[key] = c
			memCacheMu.Unlock()
			return c.cachedCopy()
		}
		if errors.Is(err, errCorrupt) {
			statCorrupt.Add(1)
		}
	}
	return nil
}

// storeCache records c in memory and, when possible, on disk. Disk errors
// are not reported: an unwritable cache degrades to memory only.
func storeCache(c *Compiled) {
	memCacheMu.Lock()
	memCache[c.Key] = c
	memCacheMu.Unlock()
	if dir := cacheDir(); dir != "" {
		if err := (diskCache{dir}).store(c); err == nil {
			statWrites.Add(1)
		}
	}
}

func (c *Compiled) cachedCopy() *Compiled {
	cp := *c
	cp.Cached = true
	cp.Image = bytes.Clone(c.Image)
	cp.Options = append([]string(nil), c.Options...)
	if c.Lowered != nil {
		cp.Lowered = make(map[string]string, len(c.Lowered))
		for k, v := range c.Lowered {
			cp.Lowered[k] = v
		}
	}
	return &cp
}

// diskCache stores one file per key: <dir>/<key>.bin.
type diskCache struct{ dir string }

var errCorrupt = errors.New("nvrtc: corrupt cache payload")

// payloadMeta is the JSON part of a payload.
type payloadMeta struct {
	Format  int               `json:"format"`
	Key     string            `json:"key"`
	Name    string            `json:"name"`
	Arch    string            `json:"arch"`
	Kind    ImageKind         `json:"kind"`
	Log     string            `json:"log"`
	Options []string          `json:"options"`
	Lowered map[string]string `json:"lowered,omitempty"`
	NVRTC   [2]int            `json:"nvrtc"`
}

func (d diskCache) path(key string) string { return filepath.Join(d.dir, key+".bin") }

// encodePayload frames c: magic, sha256 of the body, body length, body;
// body = meta length (uint32), meta JSON, image.
func encodePayload(c *Compiled) ([]byte, error) {
	meta, err := json.Marshal(payloadMeta{Format: cacheFormat, Key: c.Key, Name: c.Name, Arch: c.Arch,
		Kind: c.Kind, Log: c.Log, Options: c.Options, Lowered: c.Lowered, NVRTC: c.NVRTC})
	if err != nil {
		return nil, err
	}
	body := binary.LittleEndian.AppendUint32(nil, uint32(len(meta)))
	body = append(body, meta...)
	body = append(body, c.Image...)
	sum := sha256.Sum256(body)
	out := make([]byte, 0, len(cacheMagic)+len(sum)+8+len(body))
	out = append(out, cacheMagic[:]...)
	out = append(out, sum[:]...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(body)))
	return append(out, body...), nil
}

// decodePayload validates and unpacks a payload written for key.
func decodePayload(key string, b []byte) (*Compiled, error) {
	const head = len(cacheMagic) + sha256.Size + 8
	if len(b) < head+4 || !bytes.Equal(b[:len(cacheMagic)], cacheMagic[:]) {
		return nil, fmt.Errorf("%w: bad header", errCorrupt)
	}
	var sum [sha256.Size]byte
	copy(sum[:], b[len(cacheMagic):])
	n := binary.LittleEndian.Uint64(b[len(cacheMagic)+sha256.Size:])
	body := b[head:]
	if uint64(len(body)) != n {
		return nil, fmt.Errorf("%w: body is %d bytes, header says %d", errCorrupt, len(body), n)
	}
	if sha256.Sum256(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	m := binary.LittleEndian.Uint32(body)
	if uint64(m) > uint64(len(body)-4) {
		return nil, fmt.Errorf("%w: metadata length %d exceeds body", errCorrupt, m)
	}
	var meta payloadMeta
	if err := json.Unmarshal(body[4:4+m], &meta); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", errCorrupt, err)
	}
	if meta.Format != cacheFormat || meta.Key != key {
		return nil, fmt.Errorf("%w: written for format %d key %s", errCorrupt, meta.Format, meta.Key)
	}
	img := body[4+m:]
	if len(img) == 0 || (meta.Kind != ImageCUBIN && meta.Kind != ImagePTX) {
		return nil, fmt.Errorf("%w: empty image or unknown kind %d", errCorrupt, meta.Kind)
	}
	return &Compiled{Key: meta.Key, Name: meta.Name, Arch: meta.Arch, Kind: meta.Kind, Image: bytes.Clone(img),
		Log: meta.Log, Options: meta.Options, Lowered: meta.Lowered, NVRTC: meta.NVRTC}, nil
}

// load reads and validates the payload for key. A missing file is an
// fs.ErrNotExist error; a damaged one wraps errCorrupt.
func (d diskCache) load(key string) (*Compiled, error) {
	b, err := os.ReadFile(d.path(key))
	if err != nil {
		return nil, err
	}
	return decodePayload(key, b)
}

// store writes c atomically: a temporary file in the same directory,
// renamed over the final name.
func (d diskCache) store(c *Compiled) error {
	if c.Key == "" {
		return fmt.Errorf("nvrtc: cache store without a key")
	}
	b, err := encodePayload(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(d.dir, ".tmp-"+c.Key[:16]+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, d.path(c.Key))
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
