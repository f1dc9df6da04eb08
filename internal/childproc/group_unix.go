//go:build unix

package childproc

import (
	"os"
	"os/exec"
	"syscall"
)

// QuitSignal is what a Child with Quit is sent at its limit.
var QuitSignal os.Signal = syscall.SIGQUIT

// setGroup makes cmd start in a process group of its own.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills cmd's process group, started with setGroup.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
