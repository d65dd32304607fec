package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"desk"
	"desk/code"
	"desk/code/blobstore"
	"desk/code/codetest"
)

// files is a store of bytes by key in a folder, one file per key, as the
// desk's own folder store keeps attachments.
type files struct{ dir string }

func (f files) Put(ctx context.Context, key string, data []byte) error {
	p := filepath.Join(f.dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

func (f files) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, desk.Errorf(desk.NotFound, "no %s", key)
	}
	return b, err
}

func (f files) Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error) {
	b, err := f.Get(ctx, key)
	if err != nil {
		return nil, 0, err
	}
	return nopCloser{bytes.NewReader(b)}, int64(len(b)), nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func TestSuite(t *testing.T) {
	codetest.ObjectStores(t, func(t *testing.T) code.ObjectStores { return blobstore.New(files{t.TempDir()}) })
}

func TestKeys(t *testing.T) {
	dir := t.TempDir()
	o := code.NewObject(code.Tree, nil)
	if _, err := blobstore.New(files{dir}).Objects(3).Put(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	id := o.ID.String()
	if _, err := os.Stat(filepath.Join(dir, "repo-3", "objects", "tree", id[:2], id)); err != nil {
		t.Fatal("the object is not under repo-3/objects/tree/<2>/<id>:", err)
	}
}
