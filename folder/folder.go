// Package folder is the object store in a folder: each key a file under
// the folder, written to a temporary name, synced and renamed, so that a
// reader never sees half an object. It is the embedded desk's store of
// attachments (the data folder) and the one every other object store is
// held to (see package blobtest).
package folder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"desk"
)

// Store keeps objects in a folder. It is safe for concurrent use.
type Store struct {
	dir string
}

// New returns the store of folder dir; the folder is made when the first
// object is written.
func New(dir string) *Store { return &Store{dir: dir} }

// Dir returns the folder.
func (s *Store) Dir() string { return s.dir }

// CheckKey refuses a key that is not a relative slash-separated path of
// plain names, so that no key reaches outside the store.
func CheckKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") || strings.ContainsAny(key, "\\\x00") {
		return desk.Errorf(desk.Invalid, "object key %q: must be a relative path like attachments/mygame/2026-09/a1b2.png", key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return desk.Errorf(desk.Invalid, "object key %q: empty, . and .. parts are not allowed", key)
		}
	}
	return nil
}

func (s *Store) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), nil
}

// Put stores data under key, durably, replacing what was there.
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("store %s: %w", key, err)
	}
	return nil
}

// Get returns the bytes under key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, desk.Errorf(desk.NotFound, "no object %s", key)
	}
	return b, err
}

// Open returns the bytes under key for streaming, with their size.
func (s *Store) Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, desk.Errorf(desk.NotFound, "no object %s", key)
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// Delete removes key; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

var _ desk.Blobs = (*Store)(nil)
