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

// A large batch goes into one pack: two files, read back by this store
// and by another opened on the same folder (another process), with a
// damaged object refused and a pack with no index never read.
func TestPackedBatch(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := folderstore.New(root).Objects(3)
	var objs []code.Object
	for i := 0; i < 3000; i++ {
		objs = append(objs, code.NewObject(code.Blob, []byte(fmt.Sprintf("file %d\n", i))))
	}
	objs = append(objs, objs[0]) // twice in one batch
	if n, err := s.Put(ctx, objs...); err != nil || n != 3000 {
		t.Fatalf("Put of 3,000 = %d, %v", n, err)
	}
	packs, _ := filepath.Glob(filepath.Join(root, "repo-3", "objects", "pack", "pack-*"))
	if len(packs) != 2 {
		t.Fatalf("the batch made %v, want one pack and its index", packs)
	}
	if loose, _ := filepath.Glob(filepath.Join(root, "repo-3", "objects", "blob", "*", "*")); len(loose) != 0 {
		t.Fatalf("%d loose files besides the pack", len(loose))
	}
	other := folderstore.Open(filepath.Join(root, "repo-3"))
	for _, st := range []code.ObjectStore{s, other} {
		for _, o := range []code.Object{objs[0], objs[1500], objs[2999]} {
			if b, err := st.Get(ctx, o.Type, o.ID); err != nil || string(b) != string(o.Data) {
				t.Fatalf("Get from the pack = %q, %v", b, err)
			}
		}
		has, err := st.Has(ctx, []code.Ref{objs[7].Ref(), {Type: code.Tree, ID: objs[7].ID}, code.NewObject(code.Blob, []byte("no")).Ref()})
		if err != nil || fmt.Sprint(has) != "[true false false]" {
			t.Fatalf("Has = %v, %v", has, err)
		}
	}
	// A second batch with the same objects stores nothing.
	if n, err := s.Put(ctx, objs[:2000]...); err != nil || n != 0 {
		t.Fatalf("second Put = %d, %v", n, err)
	}
	// A small batch of objects that a pack holds writes no file.
	if n, err := s.Put(ctx, objs[5]); err != nil || n != 0 {
		t.Fatalf("Put of a packed object = %d, %v", n, err)
	}
	// A pack whose index is missing (a crash before its rename) is not read.
	var more []code.Object
	for i := 0; i < 2000; i++ {
		more = append(more, code.NewObject(code.Blob, []byte(fmt.Sprintf("more %d\n", i))))
	}
	if _, err := s.Put(ctx, more...); err != nil {
		t.Fatal(err)
	}
	idx, _ := filepath.Glob(filepath.Join(root, "repo-3", "objects", "pack", "*.idx"))
	for _, p := range idx {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), string(more[0].ID[:])) {
			os.Remove(p)
		}
	}
	if _, err := folderstore.Open(filepath.Join(root, "repo-3")).Get(ctx, code.Blob, more[0].ID); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("Get through a pack with no index = %v, want not found", err)
	}
	// A damaged object of a pack is an internal error.
	pk, _ := filepath.Glob(filepath.Join(root, "repo-3", "objects", "pack", "*.pack"))
	for _, p := range pk {
		b, _ := os.ReadFile(p)
		if i := strings.Index(string(b), "file 42\n"); i >= 0 {
			b[i] = 'F'
			os.Chmod(p, 0o600)
			os.WriteFile(p, b, 0o600)
		}
	}
	if _, err := folderstore.Open(filepath.Join(root, "repo-3")).Get(ctx, code.Blob, objs[42].ID); desk.ErrorCode(err) != desk.Internal {
		t.Fatalf("Get of a damaged packed object = %v, want internal", err)
	}
}
