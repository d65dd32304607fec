package workfolder

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// readNames lists a folder and keeps it open, so that each name is looked
// at relative to it (fstatat) rather than walked to from the root again.
func readNames(dir string) ([]string, int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	var names []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return nil, -1, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return names, fd, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

func closeDir(fd int) { unix.Close(fd) }

// statAt looks at one name of the folder fd without following a link.
func statAt(fd int, dir, name string) (Stat, int, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Stat{}, 0, err
	}
	var m fs.FileMode
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m = fs.ModeDir
	case unix.S_IFLNK:
		m = fs.ModeSymlink
	case unix.S_IFREG:
		m = fs.FileMode(st.Mode & 0o777)
	default:
		m = fs.ModeDevice
	}
	mode, kind := modeOf(m)
	return Stat{Size: st.Size, MTime: st.Mtim.Nano(), Mode: mode}, kind, nil
}

// mapFile maps a file read-only. The index is read this way: the pages
// come from the file's cache, many at each fault, where a read would
// fault in and fill a fresh buffer page by page. The mapping is never
// undone, since the index's strings point into it; the process ends
// soon after.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, nil
	}
	return unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
}
