// Package codetest holds the test suites that every backend of the code's
// stores passes unchanged: ObjectStores (the data folder, S3) and Store
// (SQLite, PostgreSQL).
package codetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"desk"
	"desk/code"
)

// ObjectStores runs the object store suite against a backend. open returns
// a new, empty set of stores each time it is called.
func ObjectStores(t *testing.T, open func(t *testing.T) code.ObjectStores) {
	ctx := context.Background()
	blob := func(s string) code.Object { return code.NewObject(code.Blob, []byte(s)) }

	t.Run("PutGetHas", func(t *testing.T) {
		s := open(t).Objects(1)
		a, b := blob("alpha\n"), blob("")
		tree, err := code.EncodeTree([]code.Entry{{Name: "a.txt", Mode: code.ModeFile, ID: a.ID}})
		if err != nil {
			t.Fatal(err)
		}
		tr := code.NewObject(code.Tree, tree)
		n, err := s.Put(ctx, a, b, tr)
		if err != nil || n != 3 {
			t.Fatalf("Put = %d, %v; want 3 new", n, err)
		}
		for _, o := range []code.Object{a, b, tr} {
			got, err := s.Get(ctx, o.Type, o.ID)
			if err != nil || !bytes.Equal(got, o.Data) {
				t.Fatalf("Get %s %s = %q, %v; want %q", o.Type, o.ID.Short(), got, err, o.Data)
			}
		}
		has, err := s.Has(ctx, []code.Ref{a.Ref(), {Type: code.Blob, ID: tr.ID}, tr.Ref(), blob("other").Ref()})
		if err != nil {
			t.Fatal(err)
		}
		if want := []bool{true, false, true, false}; fmt.Sprint(has) != fmt.Sprint(want) {
			t.Fatalf("Has = %v, want %v (an id under another type is another object)", has, want)
		}
	})

	t.Run("SecondPutStoresNothing", func(t *testing.T) {
		s := open(t).Objects(1)
		a := blob("same")
		if n, err := s.Put(ctx, a); err != nil || n != 1 {
			t.Fatalf("first Put = %d, %v", n, err)
		}
		if n, err := s.Put(ctx, a, a); err != nil || n != 0 {
			t.Fatalf("second Put = %d, %v; want 0 new", n, err)
		}
	})

	t.Run("ErrWrongID", func(t *testing.T) {
		s := open(t).Objects(1)
		good := blob("good")
		bad := blob("bad")
		bad.Data = []byte("not bad")
		n, err := s.Put(ctx, good, bad)
		if desk.ErrorCode(err) != desk.Invalid || n != 0 {
			t.Fatalf("Put with a wrong id = %d, %v; want 0 and invalid", n, err)
		}
		has, err := s.Has(ctx, []code.Ref{good.Ref(), bad.Ref()})
		if err != nil || has[0] || has[1] {
			t.Fatalf("after a refused batch Has = %v, %v; want nothing stored", has, err)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		s := open(t).Objects(1)
		if _, err := s.Get(ctx, code.Blob, blob("never").ID); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("Get of a missing object = %v, want not_found", err)
		}
	})

	t.Run("RepositoriesApart", func(t *testing.T) {
		st := open(t)
		a := blob("only in one")
		if _, err := st.Objects(1).Put(ctx, a); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Objects(2).Get(ctx, a.Type, a.ID); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("repository 2 reads repository 1's object: %v", err)
		}
		if has, _ := st.Objects(2).Has(ctx, []code.Ref{a.Ref()}); has[0] {
			t.Fatal("repository 2 has repository 1's object")
		}
	})

	t.Run("ConcurrentWriters", func(t *testing.T) {
		s := open(t).Objects(1)
		objs := make([]code.Object, 40)
		for i := range objs {
			objs[i] = blob(fmt.Sprintf("object %d\n", i))
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Put(ctx, objs...); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, o := range objs {
			got, err := s.Get(ctx, o.Type, o.ID)
			if err != nil || !bytes.Equal(got, o.Data) {
				t.Fatalf("after concurrent writes Get = %q, %v", got, err)
			}
		}
	})

	t.Run("LargeObject", func(t *testing.T) {
		s := open(t).Objects(1)
		big := code.NewObject(code.Blob, bytes.Repeat([]byte("0123456789abcdef"), 1<<18)) // 4 MiB
		if _, err := s.Put(ctx, big); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, big.Type, big.ID)
		if err != nil || !bytes.Equal(got, big.Data) {
			t.Fatalf("Get of 4 MiB: %d bytes, %v", len(got), err)
		}
	})
}
