//go:build !linux

package cudabind

// gettid has no portable equivalent; re-entrant Do calls are then not
// detected (CUDA is only supported on Linux here).
func gettid() int { return -1 }
