//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package nvrtc

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockKey takes the host-wide lock on compiling key under the disk cache
// directory dir: an exclusive flock on <dir>/locks/<key>, waiting while
// another process holds it. It returns the function that releases it, or
// nil when the lock file cannot be opened or locked (the caller then
// compiles unlocked). The kernel drops the lock of a process that dies.
func lockKey(dir, key string) (unlock func()) {
	locks := filepath.Join(dir, "locks")
	if err := os.MkdirAll(locks, 0o755); err != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(locks, key), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
