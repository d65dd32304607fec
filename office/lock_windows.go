//go:build windows

package office

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive lock on path, creating it, and returns the
// function that releases it. The lock dies with the process, so a server
// killed in the middle of a save never leaves the others waiting.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}
