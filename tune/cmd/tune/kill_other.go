//go:build !unix

package main

import "os/exec"

// setProcessGroup does nothing where there are no process groups.
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills cmd's process alone.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
