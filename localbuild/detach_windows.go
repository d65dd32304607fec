//go:build windows

package localbuild

import (
	"os/exec"
	"syscall"
)

// Detach makes cmd start in its own process group, so that it outlives desk.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
