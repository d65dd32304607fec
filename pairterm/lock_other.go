//go:build !unix

package pairterm

import (
	"os"
	"path/filepath"
)

// tryLock, where there is no flock, always takes the lease: one pilot per
// data folder is then the owner's to keep.
func tryLock(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

func unlock(f *os.File) {}
