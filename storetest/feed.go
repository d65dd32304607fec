package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"desk"
)

func testEveryWriteAppendsFeedRows(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("x")}, "game")
	db.AddComment(ctx, is.ID, desk.CommentInput{Author: "owner", Text: "hi", Verdict: "failed"})
	db.SaveHandoff(ctx, "mygame", "## State\n\nok\n", "claude", "")
	db.UpdateProject(ctx, "mygame", desk.ProjectUpdate{Name: ptr("X")}, "owner")
	db.DeleteIssue(ctx, is.ID, "owner")
	cs, err := db.Changes(ctx, desk.ChangeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ typ, action, actor string }
	want := []row{
		{"project", "project_created", "owner"},
		{"activity", "created", "game"},
		{"comment", "verdict", "owner"},
		{"activity", "status", "owner"},
		{"handoff", "handoff", "claude"},
		{"project", "project_updated", "owner"},
		{"issue", "deleted", "owner"},
	}
	if len(cs) != len(want) {
		t.Fatalf("%d rows, want %d", len(cs), len(want))
	}
	for i, w := range want {
		c := cs[i]
		if c.Type != w.typ || c.Action != w.action || c.Actor != w.actor || c.Project != "mygame" {
			t.Errorf("row %d = %+v, want %+v", i, c, w)
		}
		if i > 0 && c.Seq <= cs[i-1].Seq {
			t.Errorf("seq not increasing")
		}
	}
	if cs[2].Verdict == nil || *cs[2].Verdict != "failed" || cs[4].Version != 1 {
		t.Errorf("verdict %v version %d", cs[2].Verdict, cs[4].Version)
	}
	last, _ := db.LastSeq(ctx)
	if last != cs[len(cs)-1].Seq {
		t.Errorf("LastSeq %d", last)
	}
}

// A second handle on the same folder stands for another process: the
// CLI, an MCP server or a hook writing while the server reads.
func testAnotherHandlesWritesAreSeen(t *testing.T, be *Backend) {
	ctx := context.Background()
	a, b := be.Pair(t)
	MustProject(t, a)
	MustIssue(t, a, desk.IssueFields{Title: ptr("one")}, "owner")
	if l, _ := a.Issues(ctx, "mygame", desk.IssueFilter{}); l.Total != 1 {
		t.Fatal("own write not listed")
	}
	got := make(chan []*desk.Change, 10)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start, _ := a.LastSeq(ctx)
	go a.Watch(wctx, start, func(cs []*desk.Change) { got <- cs })

	before := time.Now()
	if _, err := b.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("two")}, desk.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case cs := <-got:
		if cs[0].Issue == nil || *cs[0].Issue != "MG-2" {
			t.Fatalf("%+v", cs[0])
		}
		t.Logf("the other handle's write arrived after %v", time.Since(before))
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher never saw the other handle's write")
	}
	// The list index follows too, and so do counters changed by triggers.
	l, _ := a.Issues(ctx, "mygame", desk.IssueFilter{})
	if l.Total != 2 {
		t.Fatalf("list shows %d issues", l.Total)
	}
	b.AddComment(ctx, "MG-1", desk.CommentInput{Text: "from b"})
	l, _ = a.Issues(ctx, "mygame", desk.IssueFilter{Q: "one"})
	if l.Issues[0].CommentCount != 1 {
		t.Fatalf("comment_count %d", l.Issues[0].CommentCount)
	}
	b.DeleteIssue(ctx, "MG-2", "owner")
	if l, _ := a.Issues(ctx, "mygame", desk.IssueFilter{}); l.Total != 1 {
		t.Fatalf("deleted issue still listed: %d", l.Total)
	}
}

// The watcher hands over every feed row once and in order: a backlog of
// more than one read's worth, then another handle's writes one by one and
// in bursts, some while it is between looks.
func testWatchHandsOverEveryRowOnce(t *testing.T, be *Backend) {
	ctx := context.Background()
	a, b := be.Pair(t)
	MustProject(t, b)
	is := MustIssue(t, b, desk.IssueFields{Title: ptr("busy")}, "owner")
	comment := func(n int) {
		for i := 0; i < n; i++ {
			if _, _, err := b.AddComment(ctx, is.ID, desk.CommentInput{Author: "agent", Text: fmt.Sprint("note ", i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	comment(1100) // a backlog longer than one read of the feed

	var mu sync.Mutex
	var seen []int64
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- a.Watch(wctx, 0, func(cs []*desk.Change) {
			mu.Lock()
			defer mu.Unlock()
			for _, c := range cs {
				seen = append(seen, c.Seq)
			}
		})
	}()
	reached := func(what string) int64 {
		t.Helper()
		last, err := b.LastSeq(ctx)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n := len(seen)
			got := int64(0)
			if n > 0 {
				got = seen[n-1]
			}
			mu.Unlock()
			if got >= last {
				return last
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the watcher handed over rows up to %d; the feed ends at %d", what, got, last)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	reached("the backlog, with nothing written after it")
	for round := 0; round < 20; round++ {
		comment(1 + round%4)
		time.Sleep(time.Duration(round%5) * 3 * time.Millisecond)
	}
	last := reached("writes one by one and in bursts")
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[len(seen)-1] != last {
		t.Fatalf("the watcher handed over %d rows up to %v; the feed ends at %d", len(seen), seen[max(len(seen)-1, 0):], last)
	}
	for i, seq := range seen {
		if seq != int64(i)+seen[0] {
			t.Fatalf("row %d is seq %d, want %d: rows lost or repeated", i, seq, int64(i)+seen[0])
		}
	}
	if seen[0] != 1 {
		t.Fatalf("the first row handed over is seq %d, want 1", seen[0])
	}
}
