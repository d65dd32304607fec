package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"desk"
)

// DirName is the folder of the data folder that holds the holders'
// sockets, exit records, last screens and logs. It is 0700: whoever can
// open a socket can type into the terminal behind it.
const DirName = "sessions"

// Dir returns the sessions folder of a data folder.
func Dir(dataDir string) string { return filepath.Join(dataDir, DirName) }

// The files a holder keeps for session id in the sessions folder.
func sockName(id string) string   { return id + ".sock" }
func exitName(id string) string   { return id + ".exit" }
func screenName(id string) string { return id + ".screen" }
func logName(id string) string    { return id + ".log" }

// ensureDir creates the sessions folder with mode 0700, and tightens an
// existing one.
func ensureDir(dataDir string) (string, error) {
	d := Dir(dataDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(d, 0o700); err != nil {
		return "", err
	}
	return d, nil
}

// maxSunPath is the room a Unix socket address has for its path
// (sockaddr_un.sun_path less its terminating zero byte).
const maxSunPath = 107

// withSocketPath calls fn with a path that reaches the socket name in
// folder dir and fits a socket address. A data folder can be deeper than
// the 108 bytes an address holds; then the folder is opened and reached
// through /proc/self/fd, which Linux resolves like the folder itself.
func withSocketPath(dir, name string, fn func(path string) error) error {
	p := filepath.Join(dir, name)
	if len(p) <= maxSunPath {
		return fn(p)
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("the socket path %s is longer than %d bytes: use a shorter data folder", p, maxSunPath)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	short := "/proc/self/fd/" + strconv.Itoa(fd) + "/" + name
	if len(short) > maxSunPath {
		return fmt.Errorf("the session id %q is too long for a socket name", name)
	}
	return fn(short)
}

// listen creates the holder's socket, readable and writable by its owner
// only. A socket file left by a holder that died is replaced; a live one
// is not.
func listen(dataDir, id string) (net.Listener, error) {
	dir, err := ensureDir(dataDir)
	if err != nil {
		return nil, err
	}
	var ln net.Listener
	err = withSocketPath(dir, sockName(id), func(p string) error {
		if c, err := net.DialTimeout("unix", p, time.Second); err == nil {
			c.Close()
			return fmt.Errorf("a holder already listens for session %s", id)
		}
		_ = os.Remove(p)
		// The socket is created 0600 (umask), not made so afterwards, so
		// that no other user can connect in between.
		old := syscall.Umask(0o177)
		l, err := net.Listen("unix", p)
		syscall.Umask(old)
		if err != nil {
			return err
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		ln = l
		return nil
	})
	return ln, err
}

// ErrNoHolder is what dialing a session whose holder is gone returns.
var ErrNoHolder = errors.New("no holder runs for this session")

// dial connects to the holder of session id.
func dial(ctx context.Context, dataDir, id string) (net.Conn, error) {
	var conn net.Conn
	err := withSocketPath(Dir(dataDir), sockName(id), func(p string) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", p)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
				return fmt.Errorf("%w: %v", ErrNoHolder, err)
			}
			return err
		}
		conn = c
		return nil
	})
	return conn, err
}

// removeSocket removes a holder's socket file.
func removeSocket(dataDir, id string) {
	_ = withSocketPath(Dir(dataDir), sockName(id), func(p string) error { return os.Remove(p) })
}

// socketFile identifies the socket file of session id now (nil when
// there is none), so that a holder removes only its own: the holder of
// the session's next generation may have made the file again since.
func socketFile(dataDir, id string) os.FileInfo {
	var fi os.FileInfo
	_ = withSocketPath(Dir(dataDir), sockName(id), func(p string) error {
		fi, _ = os.Lstat(p)
		return nil
	})
	return fi
}

// removeOwnSocket removes session id's socket file if it is still mine.
func removeOwnSocket(dataDir, id string, mine os.FileInfo) {
	_ = withSocketPath(Dir(dataDir), sockName(id), func(p string) error {
		if fi, err := os.Lstat(p); err == nil && mine != nil && os.SameFile(fi, mine) {
			return os.Remove(p)
		}
		return nil
	})
}

// waitHolderGone waits up to d until no holder answers for session id:
// the holder of an ended program lingers a moment to tell its viewers
// how it ended, and the next generation's must not start beside it.
func waitHolderGone(ctx context.Context, dataDir, id string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		c, err := dial(ctx, dataDir, id)
		if err != nil {
			return nil
		}
		c.Close()
		if time.Now().After(deadline) {
			return desk.Errorf(desk.Conflict, "the holder of session %s is still running", id).WithHint("desk stop-session --kill " + id)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
