package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"desk"
)

// The log's header moves with every commit, by this handle or another,
// and stays put while nothing is committed; a folder without the shared
// memory file reports a move on every look.
func TestLogHeaderMovesWithEveryCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner")
	if err != nil {
		t.Fatal(err)
	}
	log := openLogHeader(a.path)
	defer log.close()
	if log.f == nil {
		t.Fatal("no shared memory file beside a database in WAL mode")
	}
	if !log.moved() {
		t.Fatal("the first look reports no move")
	}
	if log.moved() {
		t.Fatal("a second look with nothing committed reports a move")
	}
	if _, err := a.Issues(ctx, p.Slug, desk.IssueFilter{}); err != nil { // a read moves nothing
		t.Fatal(err)
	}
	if log.moved() {
		t.Fatal("a read moved the header")
	}
	for i, w := range []*DB{b, a, b} {
		if _, err := w.CreateIssue(ctx, p.Slug, desk.IssueFields{Title: ptrTo("x")}, desk.CreateOptions{Author: "owner"}); err != nil {
			t.Fatal(err)
		}
		if !log.moved() {
			t.Fatalf("commit %d did not move the header", i+1)
		}
		if log.moved() {
			t.Fatalf("the header moved again after commit %d with nothing committed", i+1)
		}
	}
	if _, err := a.read.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CreateIssue(ctx, p.Slug, desk.IssueFields{Title: ptrTo("after a checkpoint")}, desk.CreateOptions{Author: "owner"}); err != nil {
		t.Fatal(err)
	}
	if !log.moved() {
		t.Fatal("a commit after a checkpoint did not move the header")
	}

	none := openLogHeader(dir + "/no-such.sqlite")
	defer none.close()
	if !none.moved() || !none.moved() {
		t.Fatal("a header that cannot be read must report a move on every look")
	}
}

func ptrTo[T any](v T) *T { return &v }

// A header whose file was replaced since it was opened moves again once
// the poll opens the file at its path.
func TestLogHeaderFollowsAReplacedFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.sqlite")
	write := func(b byte) {
		tmp := filepath.Join(dir, "tmp")
		if err := os.WriteFile(tmp, bytes.Repeat([]byte{b}, 2*logHeaderSize), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, db+"-shm"); err != nil {
			t.Fatal(err)
		}
	}
	write(1)
	h := openLogHeader(db)
	defer h.close()
	if !h.moved() || h.moved() {
		t.Fatal("a first look must move, a second must not")
	}
	write(2)
	if h.moved() {
		t.Fatal("the open file moved, but it was replaced, not written")
	}
	h.reopen()
	if !h.moved() {
		t.Fatal("the replaced file's header did not move once opened again")
	}
	h.reopen() // the same file: nothing to do
	if h.moved() {
		t.Fatal("opening the same file again moved the header")
	}
}
