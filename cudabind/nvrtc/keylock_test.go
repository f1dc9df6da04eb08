//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package nvrtc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLockKeyExcludes(t *testing.T) {
	dir := t.TempDir()
	key := strings.Repeat("ab", 32)
	unlock := lockKey(dir, key)
	if unlock == nil {
		t.Fatal("lockKey: no lock")
	}
	got := make(chan func())
	go func() { got <- lockKey(dir, key) }()
	select {
	case u := <-got:
		t.Fatalf("a second lock on %s was granted while the first was held", key)
		u()
	case <-time.After(200 * time.Millisecond):
	}
	if other := lockKey(dir, strings.Repeat("cd", 32)); other == nil {
		t.Error("a lock on another key was refused")
	} else {
		other()
	}
	unlock()
	select {
	case u := <-got:
		if u == nil {
			t.Fatal("the waiting lockKey returned no lock")
		}
		u()
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting lockKey was not granted after the first was released")
	}
}

// lockChildEnv names, in a child process of
// TestCompileOnceAcrossProcesses, the directory the test shares with it.
const lockChildEnv = "NVRTC_LOCK_TEST_DIR"

// TestCompileOnceAcrossProcesses runs two processes that ask for one key
// at the same moment, with one cache directory: one compiles, the other
// waits for it and reads the result from disk.
func TestCompileOnceAcrossProcesses(t *testing.T) {
	if dir := os.Getenv(lockChildEnv); dir != "" {
		lockChild(t, dir)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for i := range 2 {
		cmd := exec.Command(exe, "-test.run=^TestCompileOnceAcrossProcesses$", "-test.v")
		cmd.Env = append(os.Environ(), lockChildEnv+"="+dir, EnvCacheDir+"="+filepath.Join(dir, "cache"), fmt.Sprintf("NVRTC_LOCK_TEST_CHILD=%d", i))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("child %d:\n%s", i, out.String())
			}
		})
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "compiles"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 1 {
		t.Errorf("the key was compiled %d times by the two processes, want once:\n%s", n, b)
	}
	hits, err := filepath.Glob(filepath.Join(dir, "hit-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 {
		t.Errorf("%d processes read the other's result from disk, want 1", len(hits))
	}
}

// lockChild is one process of TestCompileOnceAcrossProcesses: it marks
// itself ready, waits until both are, and compiles the shared key with a
// compile that takes a while and records each call in dir/compiles.
func lockChild(t *testing.T, dir string) {
	me := os.Getenv("NVRTC_LOCK_TEST_CHILD")
	if err := os.WriteFile(filepath.Join(dir, "ready-"+me), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(dir, "ready-*")); len(m) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the other process never became ready")
		}
	}
	before := ReadCacheStats()
	compile := func() (*Compiled, error) {
		f, err := os.OpenFile(filepath.Join(dir, "compiles"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(f, "compiled by", me)
		f.Close()
		time.Sleep(500 * time.Millisecond)
		return sampleCompiled(), nil
	}
	c, err := compileCached(strings.Repeat("5a", 32), "k.cu", compile)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Image) != string(sampleCompiled().Image) {
		t.Errorf("image %q, want the compiled one", c.Image)
	}
	if ReadCacheStats().DiskHits > before.DiskHits {
		if err := os.WriteFile(filepath.Join(dir, "hit-"+me), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
