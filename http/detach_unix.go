//go:build !windows

package http

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in its own session, so that it outlives desk and does
// not receive the terminal's signals.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
