//go:build !unix

package childproc

import (
	"os"
	"os/exec"
)

// QuitSignal is what a Child with Quit is sent at its limit.
var QuitSignal os.Signal = os.Kill

// setGroup does nothing where there are no process groups.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills cmd's process alone.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
