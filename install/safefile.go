package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// editFunc computes a file's new content from its current one. exists says
// whether the file is there now; keep=false asks for the file to be removed.
// An error means the current content cannot be understood: nothing is
// written.
type editFunc func(old []byte, exists bool) (content []byte, keep bool, err error)

// writer changes files the safe way: one lock per file among desk
// processes, a backup before desk's first change to an existing file, a
// temporary file in the same folder renamed over the original, and a
// re-read just before the rename so that a change made meanwhile by another
// program is never overwritten (the whole edit is redone on top of it).
type writer struct {
	now      func() time.Time
	backedUp map[string]string // file → its backup, made once per run
	// beforeCommit, when set, runs after the edit is computed and before the
	// file is re-read; tests use it to change the file at the worst moment.
	beforeCommit func(path string)
	createdDirs  []string
}

const commitAttempts = 8

// errFileBusy is returned when another program keeps changing the file.
var errFileBusy = errors.New("the file kept changing while desk tried to update it; close the program that writes it and try again")

// commit applies edit to path. It reports whether the file changed.
// backup=false is for files desk owns outright (generated plugins and
// skills), which need no copy.
func (w *writer) commit(path string, mode fs.FileMode, backup bool, edit editFunc) (bool, error) {
	unlock, err := lockFile(path)
	if err != nil {
		return false, err
	}
	defer unlock()
	for attempt := 0; attempt < commitAttempts; attempt++ {
		old, exists, err := readMaybe(path)
		if err != nil {
			return false, err
		}
		content, keep, err := edit(old, exists)
		if err != nil {
			return false, err
		}
		if keep == exists && (!keep || bytes.Equal(content, old)) {
			return false, nil
		}
		if w.beforeCommit != nil {
			w.beforeCommit(path)
		}
		done, err := w.replace(path, old, exists && backup, exists, content, keep, mode)
		if err != nil {
			return false, err
		}
		if done {
			return true, nil
		}
		time.Sleep(time.Duration(attempt+1) * 15 * time.Millisecond)
	}
	return false, fmt.Errorf("%s: %w", path, errFileBusy)
}

// replace writes content (or removes the file) unless the file no longer
// holds old; it returns false in that case so that the caller starts over.
func (w *writer) replace(path string, old []byte, backup, existed bool, content []byte, keep bool, mode fs.FileMode) (bool, error) {
	// A file that goes away held only what desk wrote (desk removes only
	// files it created), so it needs no backup.
	if backup && keep {
		if _, err := w.backup(path, old); err != nil {
			return false, err
		}
	}
	if !keep {
		if !unchanged(path, old, existed) {
			return false, nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return true, nil
	}
	dir := filepath.Dir(path)
	if err := w.mkdirAll(dir); err != nil {
		return false, err
	}
	if existed {
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".desk-tmp-*")
	if err != nil {
		return false, err
	}
	tmpName := tmp.Name()
	_, werr := tmp.Write(content)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmpName, mode)
	}
	if werr != nil {
		os.Remove(tmpName)
		return false, werr
	}
	if !unchanged(path, old, existed) {
		os.Remove(tmpName)
		return false, nil
	}
	if err := os.Rename(tmpName, path); err != nil {
		os.Remove(tmpName)
		return false, err
	}
	return true, nil
}

// unchanged re-reads path and tells whether it still holds what the edit
// was computed from.
func unchanged(path string, old []byte, existed bool) bool {
	now, exists, err := readMaybe(path)
	return err == nil && exists == existed && bytes.Equal(now, old)
}

// mkdirAll creates dir and remembers the folders it had to create, so that
// uninstall can remove them again when they are empty.
func (w *writer) mkdirAll(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w.createdDirs = append(w.createdDirs, missing...)
	return nil
}

// backup copies the current content of path next to it, once per run, as
// <file>.desk-backup-<time>. The name carries nanoseconds and the file is
// created exclusively, so two runs never overwrite each other's backups.
func (w *writer) backup(path string, content []byte) (string, error) {
	if b, ok := w.backedUp[path]; ok {
		return b, nil
	}
	stamp := w.now().UTC().Format("20060102-150405.000000000")
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	for i := 0; ; i++ {
		name := path + ".desk-backup-" + stamp
		if i > 0 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		if w.backedUp == nil {
			w.backedUp = map[string]string{}
		}
		w.backedUp[path] = name
		return name, nil
	}
}

func readMaybe(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// lockFile serialises desk installers working on the same file. The lock
// lives in the temporary folder, not next to the file, so that it never
// shows up in the user's configuration; a lock older than a minute is left
// over from a crash and is taken over.
func lockFile(path string) (func(), error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	lock := filepath.Join(os.TempDir(), "desk-install-"+hex.EncodeToString(sum[:8])+".lock")
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(lock) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if st, err := os.Stat(lock); err == nil && time.Since(st.ModTime()) > time.Minute {
			os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is locked by another desk installer (%s); wait for it or remove the lock", path, lock)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
