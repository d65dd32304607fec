package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"desk"
	"desk/code"
	"desk/code/blobstore"
	"desk/code/codetest"
	"desk/internal/s3server"
	"desk/s3"
	"desk/tiers"
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

// The object store suite on a real S3 server (Versity Gateway), behind
// the read tiers a team server puts in front of it, each store a bucket of
// its own.
func TestSuiteOnS3BehindTheTiers(t *testing.T) {
	srv := s3server.Start(t)
	n := 0
	codetest.ObjectStores(t, func(t *testing.T) code.ObjectStores {
		n++
		st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: fmt.Sprintf("objects-%d", n),
			AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.MakeBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
		disk, err := tiers.OpenDisk(t.TempDir(), 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		return blobstore.New(tiers.New(st, tiers.Options{Tiers: []tiers.Tier{tiers.NewMemory(8 << 20), disk}, Verify: blobstore.Verify}))
	})
}

// A damaged copy in a tier is a miss: the read goes on to S3 and gets
// the intact object, and the tier's copy is dropped.
func TestADamagedTierCopyIsAMiss(t *testing.T) {
	ctx := context.Background()
	srv := s3server.Start(t)
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "damaged", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MakeBucket(ctx); err != nil {
		t.Fatal(err)
	}
	mem := tiers.NewMemory(1 << 20)
	ts := tiers.New(st, tiers.Options{Tiers: []tiers.Tier{mem}, Verify: blobstore.Verify})
	objs := blobstore.New(ts).Objects(1)
	o := code.NewObject(code.Blob, []byte("the real bytes\n"))
	if _, err := objs.Put(ctx, o); err != nil {
		t.Fatal(err)
	}
	key := code.RepoPrefix(1) + code.ObjectKey(code.Blob, o.ID)
	mem.Put(ctx, key, []byte("spoiled"))
	got, err := objs.Get(ctx, code.Blob, o.ID)
	if err != nil || string(got) != "the real bytes\n" {
		t.Fatalf("Get through a spoiled tier = %q, %v", got, err)
	}
	if st := ts.Stats(); st.TierFailures != 1 || st.StoreReads != 1 {
		t.Fatalf("stats %+v: want one tier failure and one read of S3", st)
	}
	if b, ok := mem.Get(ctx, key); !ok || string(b) != "the real bytes\n" {
		t.Fatalf("the tier holds %q after the read, want the intact copy", b)
	}
	if !blobstore.Verify("attachments/mygame/2026-09/a1b2.png", []byte("anything")) {
		t.Fatal("Verify refused a key that is no code object")
	}
}
