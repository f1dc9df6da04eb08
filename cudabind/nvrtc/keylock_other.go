//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package nvrtc

// lockKey takes no lock on systems without flock: processes sharing a
// disk cache may then compile one key at the same time, each storing the
// same result.
func lockKey(dir, key string) (unlock func()) { return nil }
