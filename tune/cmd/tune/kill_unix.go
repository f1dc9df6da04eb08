//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own, so that
// killProcessGroup ends whatever it started too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills cmd's process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
