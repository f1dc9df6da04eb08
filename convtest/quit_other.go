//go:build !unix

package convtest

import "os"

// quitSignal is the signal a child killed at its time limit gets: where
// there is no SIGQUIT, a kill, and no stacks.
var quitSignal os.Signal = os.Kill
