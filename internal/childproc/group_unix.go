//go:build unix

package childproc

import (
	"os/exec"
	"syscall"
)

// SetGroup makes cmd start in a process group of its own, so that
// KillGroup ends whatever it started too.
func SetGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// KillGroup kills cmd's process group, started with SetGroup.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
