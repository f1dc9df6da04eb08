package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convbench/convbench/results"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want shard
		ok   bool
	}{
		{"1/4", shard{1, 4}, true},
		{"4/4", shard{4, 4}, true},
		{"1/1", shard{1, 1}, true},
		{"0/4", shard{}, false},
		{"5/4", shard{}, false},
		{"1/0", shard{}, false},
		{"2", shard{}, false},
		{"a/b", shard{}, false},
		{"-1/4", shard{}, false},
	} {
		got, err := parseShard(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseShard(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	// The flag refuses what parseShard refuses, naming itself.
	var stderr bytes.Buffer
	if code := sweepMain([]string{"-shard", "5/4"}, &stderr, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "-shard 5/4") {
		t.Errorf("sweep -shard 5/4: exit %d, %q; want a usage error naming the flag", code, stderr.String())
	}
}

// Shards deal the sweep's cases round-robin: each case in exactly one,
// every Nth from the Kth.
func TestShardHolds(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		for i := range 20 {
			count := 0
			for k := 1; k <= n; k++ {
				s := shard{k, n}
				if s.holds(i) {
					count++
					if n > 1 && i%n != k-1 {
						t.Errorf("shard %d/%d holds case %d", k, n, i)
					}
				}
			}
			if count != 1 {
				t.Errorf("case %d is in %d of %d shards, want 1", i, count, n)
			}
		}
	}
	if (shard{}).suffix() != "" || (shard{2, 3}).suffix() != ".shard-2-of-3" {
		t.Errorf("suffixes %q %q", shard{}.suffix(), shard{2, 3}.suffix())
	}
}

// Two shards of a sweep run its cases between them, each written as a
// shard's run; -merge joins them into the sweep's one run and removes
// them.
func TestRunShards(t *testing.T) {
	args, axes := cpuRunAxes(t)
	data := t.TempDir()
	var paths []string
	names := map[int][]string{}
	for k := 1; k <= 2; k++ {
		o := &options{axes: axes, args: args, count: 1, noise: 1, maxTime: 50 * time.Millisecond, dataDir: data, shard: shard{k, 2}}
		var stdout, stderr strings.Builder
		if err := run(o, &stdout, &stderr); err != nil {
			t.Fatalf("shard %d/2: %v", k, err)
		}
		if !strings.Contains(stderr.String(), "2 cases, 1 lines each") {
			t.Errorf("shard %d/2's estimate does not count its 2 cases:\n%s", k, stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(data, "*", runName("custom", args)+shard{k, 2}.suffix()+".txt"))
		if len(files) != 1 {
			t.Fatalf("shard %d/2 wrote %v, want one file", k, files)
		}
		paths = append(paths, files[0])
		names[k] = runCaseNames(t, files[0])
	}
	want := map[int][]string{
		1: {"filter=gauss3/k=3/type=u8", "filter=dense5/k=5/type=u8"},
		2: {"filter=gauss3/k=3/type=f32", "filter=dense5/k=5/type=f32"},
	}
	for k, w := range want {
		if len(names[k]) != len(w) {
			t.Errorf("shard %d/2 ran %v, want the cases of %v", k, names[k], w)
			continue
		}
		for i := range w {
			f, typ, _ := strings.Cut(w[i], "/type=")
			if !strings.Contains(names[k][i], f) || !strings.Contains(names[k][i], "type="+typ+"/") {
				t.Errorf("shard %d/2's case %d is %s, want %s", k, i, names[k][i], w[i])
			}
		}
	}

	shardCommit := readRun(t, paths[0]).Commit()
	merged, err := mergeShards([]string{paths[1], paths[0]})
	if err != nil {
		t.Fatal(err)
	}
	if c := readRun(t, merged).Commit(); c == "" || c != shardCommit {
		t.Errorf("the merged run's commit is %q, want the shards' %q", c, shardCommit)
	}
	if filepath.Base(merged) != runName("custom", args)+".txt" {
		t.Errorf("merged into %s, want %s.txt", merged, runName("custom", args))
	}
	got := runCaseNames(t, merged)
	if all := append(slices.Clone(names[1]), names[2]...); !slices.Equal(got, all) {
		t.Errorf("merged run holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after -merge (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(merged), "custom.txt")); !os.IsNotExist(err) {
		t.Error("-merge wrote a second file")
	}
}

// runCaseNames are the full names of a run's result lines, in order.
func runCaseNames(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "BenchmarkConv/") {
			names = append(names, strings.Fields(l)[0])
		}
	}
	if _, err := results.ReadRun(bytes.NewReader(data), path); err != nil {
		t.Errorf("%s: %v", path, err)
	}
	return names
}

// -merge refuses what is not one whole set of shards, naming the files,
// and leaves them as they were.
func TestMergeShardsRefuses(t *testing.T) {
	line := func(typ string) string {
		return "BenchmarkConv/variant=cpu-fast/size=8x8/filter=gauss3/k=3/block=none/border=zero/type=" + typ + "/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none 1 100 ns/op\n"
	}
	for _, tt := range []struct {
		name  string
		files map[string]string // name -> content
		args  []string          // the files named, in order
		want  []string          // in the error
	}{
		{"a shard missing", map[string]string{"r.shard-1-of-3.txt": line("u8"), "r.shard-3-of-3.txt": line("f32")},
			[]string{"r.shard-1-of-3.txt", "r.shard-3-of-3.txt"}, []string{"1 of the 3 shards", "r.shard-2-of-3.txt"}},
		{"counts that differ", map[string]string{"r.shard-1-of-2.txt": line("u8"), "r.shard-2-of-3.txt": line("f32")},
			[]string{"r.shard-1-of-2.txt", "r.shard-2-of-3.txt"}, []string{"r.shard-2-of-3.txt", "one of 3 shards", "one of 2"}},
		{"two sweeps", map[string]string{"r.shard-1-of-2.txt": line("u8"), "s.shard-2-of-2.txt": line("f32")},
			[]string{"r.shard-1-of-2.txt", "s.shard-2-of-2.txt"}, []string{"s.shard-2-of-2.txt", "not a shard of"}},
		{"a shard twice", map[string]string{"r.shard-1-of-2.txt": line("u8")},
			[]string{"r.shard-1-of-2.txt", "r.shard-1-of-2.txt"}, []string{"shard 1 of 2 is named twice"}},
		{"not a shard", map[string]string{"r.txt": line("u8")},
			[]string{"r.txt"}, []string{"r.txt is not a shard's run"}},
		{"a case in two shards", map[string]string{"r.shard-1-of-2.txt": line("u8"), "r.shard-2-of-2.txt": line("u8")},
			[]string{"r.shard-1-of-2.txt", "r.shard-2-of-2.txt"}, []string{"type=u8", "is in", "r.shard-1-of-2.txt", "r.shard-2-of-2.txt"}},
		{"a shard with no result", map[string]string{"r.shard-1-of-2.txt": line("u8"), "r.shard-2-of-2.txt": "goos: linux\n"},
			[]string{"r.shard-1-of-2.txt", "r.shard-2-of-2.txt"}, []string{"r.shard-2-of-2.txt holds no benchmark result"}},
		{"the merged run already there", map[string]string{"r.shard-1-of-1.txt": line("u8"), "r.txt": line("f32")},
			[]string{"r.shard-1-of-1.txt"}, []string{"r.txt", "exists"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var paths []string
			for _, a := range tt.args {
				paths = append(paths, filepath.Join(dir, a))
			}
			_, err := mergeShards(paths)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for name, content := range tt.files {
				got, rerr := os.ReadFile(filepath.Join(dir, name))
				if rerr != nil || string(got) != content {
					t.Errorf("%s changed or went (%v)", name, rerr)
				}
			}
		})
	}
}

func TestWriteMerged(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "run.txt")
	if err := os.WriteFile(existing, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want string // the file's contents after
		err  error
	}{
		{filepath.Join(dir, "new.txt"), "merged\n", nil},
		{existing, "earlier\n", os.ErrExist},
	} {
		err := writeMerged(tt.path, []byte("merged\n"))
		if (tt.err == nil) != (err == nil) || (tt.err != nil && !errors.Is(err, tt.err)) {
			t.Errorf("writeMerged(%s) = %v, want %v", tt.path, err, tt.err)
		}
		if got, err := os.ReadFile(tt.path); err != nil || string(got) != tt.want {
			t.Errorf("%s holds %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}
