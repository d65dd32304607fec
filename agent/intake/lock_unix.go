//go:build unix

package intake

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f until it is closed, so that a
// server taking the spool waits for a hook still writing to it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
