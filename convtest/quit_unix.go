//go:build unix

package convtest

import (
	"os"
	"syscall"
)

// quitSignal is the signal that makes a child Go test binary print every
// goroutine's stack as it exits, so that a child killed at its time limit
// says where it was.
var quitSignal os.Signal = syscall.SIGQUIT
