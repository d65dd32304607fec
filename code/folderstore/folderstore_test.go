package folderstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/code"
	"desk/code/codetest"
	"desk/code/folderstore"
)

func TestSuite(t *testing.T) {
	codetest.ObjectStores(t, func(t *testing.T) code.ObjectStores { return folderstore.New(t.TempDir()) })
}

func TestLayout(t *testing.T) {
	root := t.TempDir()
	o := code.NewObject(code.Blob, []byte("hello\n"))
	if _, err := folderstore.New(root).Objects(7).Put(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	id := o.ID.String()
	want := filepath.Join(root, "repo-7", "objects", "blob", id[:2], id)
	if b, err := os.ReadFile(want); err != nil || string(b) != "hello\n" {
		t.Fatalf("the object is not at %s: %q, %v", want, b, err)
	}
	left, _ := filepath.Glob(filepath.Join(root, "repo-7", "objects", "blob", id[:2], ".tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestBulkPut(t *testing.T) {
	s := folderstore.New(t.TempDir()).Objects(1)
	var objs []code.Object
	for i := 0; i < 100; i++ {
		objs = append(objs, code.NewObject(code.Blob, []byte(strings.Repeat("x", i))))
	}
	if n, err := s.Put(context.Background(), objs...); err != nil || n != 100 {
		t.Fatalf("Put of 100 = %d, %v", n, err)
	}
}

func TestDamagedObject(t *testing.T) {
	root := t.TempDir()
	s := folderstore.New(root).Objects(1)
	o := code.NewObject(code.Blob, []byte("intact"))
	if _, err := s.Put(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	id := o.ID.String()
	p := filepath.Join(root, "repo-1", "objects", "blob", id[:2], id)
	os.Chmod(p, 0o600)
	if err := os.WriteFile(p, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(context.Background(), code.Blob, o.ID); desk.ErrorCode(err) != desk.Internal || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Get of a damaged object = %v, want an internal error naming the damage", err)
	}
}

// BenchmarkPut measures the store's cost per object for a batch of 3,000
// small files written into a new store, as an import writes them: the
// floor under an import's time, since each object is a file of its own.
func BenchmarkPut(b *testing.B) {
	var objs []code.Object
	for i := 0; i < 3000; i++ {
		objs = append(objs, code.NewObject(code.Blob, []byte(strings.Repeat("line of a file\n", 100)+fmt.Sprint(i))))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := folderstore.New(b.TempDir()).Objects(1)
		b.StartTimer()
		if _, err := s.Put(context.Background(), objs...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(objs)), "µs/object")
}

// BenchmarkPutOne measures one object written and synced on its own, as a
// landing writes the change it makes.
func BenchmarkPutOne(b *testing.B) {
	s := folderstore.New(b.TempDir()).Objects(1)
	for i := 0; i < b.N; i++ {
		if _, err := s.Put(context.Background(), code.NewObject(code.Change, []byte(fmt.Sprint("change ", i)))); err != nil {
			b.Fatal(err)
		}
	}
}
