//go:build unix

package office

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path, creating it, and returns the
// function that releases it. The lock dies with the process, so a server
// killed in the middle of a save never leaves the others waiting.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
