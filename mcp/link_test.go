package mcp

import (
	"io"
	"testing"
	"time"

	"desk/link"
)

// A resolved link serves calls for linkFresh, then is looked up again: a
// folder linked during a session is seen within it.
func TestLinkedIsKeptForAWhileThenReadAgain(t *testing.T) {
	dir, db := testStore(t, "My Game")
	repo := t.TempDir()
	s := newServer(Options{DataDir: dir, Dir: repo, Getenv: func(string) string { return "" }}, db, discard{io.Discard})
	if _, ok := s.linked(); ok {
		t.Fatal("an unlinked folder resolved to a project")
	}
	if err := link.Write(dir, repo, "mygame"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.linked(); ok {
		t.Fatal("the link was looked up again at once; want the answer kept")
	}
	s.mu.Lock()
	s.linkSeen.at = time.Now().Add(-linkFresh) // as if linkFresh had passed
	s.mu.Unlock()
	if f, ok := s.linked(); !ok || f.Project != "mygame" {
		t.Fatalf("after linkFresh: %+v, %v; want mygame", f, ok)
	}
}
