package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseDevices(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"0", []string{"0"}, true},
		{"0,1,2,3", []string{"0", "1", "2", "3"}, true},
		{"3, 1", []string{"3", "1"}, true},
		{"0,0", nil, false},
		{"a", nil, false},
		{"-1", nil, false},
		{"01", nil, false},
		{"0,", nil, false},
		{"", nil, false},
	} {
		got, err := parseDevices(tt.in)
		if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("parseDevices(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	for _, args := range [][]string{
		{"-devices", "0,0"},
		{"-devices", "x"},
		{"-devices", "0,1", "-shard", "1/2"},
	} {
		var stderr bytes.Buffer
		if code := sweepMain(args, &stderr, &stderr); code != exitUsage || !strings.HasPrefix(stderr.String(), "sweep: -devices ") {
			t.Errorf("sweep %q: exit %d, %q; want a usage error naming -devices", args, code, stderr.String())
		}
	}
}

// A sweep with CPU cases is refused before anything runs: its shards
// would time them on the same cores.
func TestDevicesRefuseCPUCases(t *testing.T) {
	args, axes := cpuRunAxes(t)
	data := t.TempDir()
	o := &options{axes: axes, args: args, count: 1, noise: 1, maxTime: 50 * time.Millisecond, dataDir: data, devices: []string{"0", "1"}}
	err := run(o, new(bytes.Buffer), new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "CPU cases (cpu-fast)") {
		t.Errorf("run -devices 0,1 over cpu-fast: %v; want the refusal naming the CPU variant", err)
	}
	if files, _ := filepath.Glob(filepath.Join(data, "*")); len(files) > 0 {
		t.Errorf("the refused run wrote %v", files)
	}
}

// The shards of a -devices run run at once, each benchmark binary on its
// device, and their runs are stored as one: a single file with every
// case once, each shard's command naming its device, and no shard file
// or temporary folder left; with one device the sweep runs whole on it.
// Where a shard writes nothing, or the shards' runs do not merge, the
// files written are kept and the error says why and what is left.
func TestRunShardsOnDevices(t *testing.T) {
	args, axes := cpuRunAxes(t)
	root, _, err := checkout()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := buildTestBinary(root, "", new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	defer tb.cleanup()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	t.Run("all", func(t *testing.T) {
		data := t.TempDir()
		o := &options{axes: axes, args: args, count: 1, noise: 1, maxTime: 50 * time.Millisecond, dataDir: data, devices: []string{"0", "1"}, built: tb}
		var stdout, stderr syncBuffer
		if err := runShards(o, 4, &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(data, "*", "*"))
		if len(files) != 1 || filepath.Base(files[0]) != runName("custom", args)+".txt" {
			t.Fatalf("wrote %v, want one file, %s.txt", files, runName("custom", args))
		}
		names := runCaseNames(t, files[0])
		if len(names) != 4 {
			t.Errorf("the run holds %d result lines, want the sweep's 4 cases once each:\n%s", len(names), strings.Join(names, "\n"))
		}
		data2, _ := os.ReadFile(files[0])
		for _, d := range []string{"shard-1-of-2, commit", "CUDA_VISIBLE_DEVICES=0 ", "shard-2-of-2, commit", "CUDA_VISIBLE_DEVICES=1 "} {
			if !bytes.Contains(data2, []byte(d)) {
				t.Errorf("the run's shard headers lack %q", d)
			}
		}
		for _, tag := range []string{"[device 0] ", "[device 1] "} {
			if !strings.Contains(stderr.String(), "\n"+tag+"sweep custom") {
				t.Errorf("stderr has no progress line tagged %q:\n%s", tag, stderr.String())
			}
		}
		if !strings.Contains(stdout.String(), "cpu-fast") {
			t.Errorf("no summary on stdout:\n%s", stdout.String())
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "convbench-devices-*")); len(left) > 0 {
			t.Errorf("temporary folders left: %v", left)
		}
	})

	t.Run("one device", func(t *testing.T) {
		data := t.TempDir()
		o := &options{axes: axes, args: args, count: 1, noise: 1, maxTime: 50 * time.Millisecond, dataDir: data, devices: []string{"0"}, built: tb}
		if err := run(o, new(syncBuffer), new(syncBuffer)); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(data, "*", "*"))
		if len(files) != 1 || filepath.Base(files[0]) != runName("custom", args)+".txt" {
			t.Fatalf("wrote %v, want the whole sweep in one file", files)
		}
		if b, _ := os.ReadFile(files[0]); !bytes.Contains(b, []byte("CUDA_VISIBLE_DEVICES=0 ")) || len(runCaseNames(t, files[0])) != 4 {
			t.Errorf("the run does not name its device or lacks cases:\n%s", b)
		}
	})

	t.Run("shards do not merge", func(t *testing.T) {
		// On device 1 the host reports another CPU: its run goes under
		// another folder, and the two shards are not one sweep's.
		fake := filepath.Join(t.TempDir(), "benchmarks.test")
		script := "#!/bin/sh\nif [ \"$CUDA_VISIBLE_DEVICES\" = 1 ]; then " + tb.path + " \"$@\" | sed 's/^cpu: .*/cpu: Other CPU/'; exit 0; fi\nexec " + tb.path + " \"$@\"\n"
		if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		data := t.TempDir()
		o := &options{axes: axes, args: args, count: 1, noise: 1, maxTime: 50 * time.Millisecond, dataDir: data, devices: []string{"0", "1"},
			built: &testBin{path: fake, cleanup: func() {}}}
		err := runShards(o, 4, new(syncBuffer), new(syncBuffer))
		if err == nil || !strings.Contains(err.Error(), "is not a shard of") || !strings.Contains(err.Error(), "kept as they are") {
			t.Fatalf("err = %v; want the merge's refusal and the shards kept", err)
		}
		files, _ := filepath.Glob(filepath.Join(data, "*", "*"))
		if len(files) != 2 || filepath.Dir(files[0]) == filepath.Dir(files[1]) {
			t.Errorf("kept %v, want each shard's run in its host's folder", files)
		}
	})

	t.Run("one shard fails", func(t *testing.T) {
		// A binary that fails on device 1 and runs the real one on others.
		fake := filepath.Join(t.TempDir(), "benchmarks.test")
		script := "#!/bin/sh\nif [ \"$CUDA_VISIBLE_DEVICES\" = 1 ]; then echo 'device 1 lost' >&2; exit 3; fi\nexec " + tb.path + " \"$@\"\n"
		if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		data := t.TempDir()
		o := &options{axes: axes, args: args, count: 1, noise: 1, maxTime: 50 * time.Millisecond, dataDir: data, devices: []string{"0", "1"},
			built: &testBin{path: fake, cleanup: func() {}}}
		var stdout, stderr syncBuffer
		err := runShards(o, 4, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "shard 2 of 2 on device 1") || !strings.Contains(err.Error(), "CUDA_VISIBLE_DEVICES=1 sweep <the same flags> -shard 2/2") {
			t.Fatalf("err = %v; want one naming the failed shard and how to run it", err)
		}
		files, _ := filepath.Glob(filepath.Join(data, "*", "*"))
		if len(files) != 1 || filepath.Base(files[0]) != runName("custom", args)+".shard-1-of-2.txt" {
			t.Errorf("kept %v, want shard 1's file alone", files)
		}
	})
}

// A syncBuffer is a bytes.Buffer the shards may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines of several tagged writers stay whole and each carries its tag.
func TestTaggedWriter(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	a := &taggedWriter{w: &out, mu: &mu, tag: "[a] "}
	b := &taggedWriter{w: &out, mu: &mu, tag: "[b] "}
	a.Write([]byte("one "))
	b.Write([]byte("two\nthree"))
	a.Write([]byte("line\n"))
	b.Flush()
	if want := "[b] two\n[a] one line\n[b] three\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
