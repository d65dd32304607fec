//go:build windows

package http

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in its own process group, so that it outlives desk.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
