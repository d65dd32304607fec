//go:build !windows

package localbuild

import (
	"os/exec"
	"syscall"
)

// Detach makes cmd start in its own session, so that it outlives desk and
// does not receive the terminal's signals.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
