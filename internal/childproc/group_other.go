//go:build !unix

package childproc

import "os/exec"

// SetGroup does nothing where there are no process groups.
func SetGroup(cmd *exec.Cmd) {}

// KillGroup kills cmd's process alone.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
