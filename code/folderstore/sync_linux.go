package folderstore

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// writeNew writes data as a new file at path through an unnamed file
// (O_TMPFILE) that is linked into place when whole: one entry added to the
// folder instead of a temporary name added, renamed and removed. It
// reports false when the system cannot (no O_TMPFILE on this file system,
// no /proc), and the caller writes through a temporary name instead. A
// file at path already is not an error: it holds the same object.
func writeNew(path string, data []byte, durable bool) (bool, error) {
	fd, err := unix.Open(filepath.Dir(path), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		if err == unix.ENOENT {
			return true, os.ErrNotExist // the folder is missing: make it and try again
		}
		return false, nil
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return true, err
	}
	if durable {
		if err := f.Sync(); err != nil {
			return true, err
		}
	}
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	switch err {
	case nil, unix.EEXIST:
		return true, nil
	case unix.ENOENT:
		return false, nil // no /proc
	}
	return true, err
}
