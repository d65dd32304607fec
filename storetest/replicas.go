package storetest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"desk"
)

// Writers on two handles at once (two processes, two replicas) lose
// nothing: every comment is stored and counted, and the feed holds one
// row for each, in one order every reader agrees on.
func testConcurrentWritersOnTwoHandlesLoseNothing(t *testing.T, be *Backend) {
	ctx := context.Background()
	a, b := be.Pair(t)
	MustProject(t, a)
	MustIssue(t, a, desk.IssueFields{Title: ptr("busy")}, "owner")
	start, err := a.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers*2)
	for w := 0; w < writers; w++ {
		db := a
		if w%2 == 1 {
			db = b
		}
		wg.Add(2)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, _, err := db.AddComment(ctx, "MG-1", desk.CommentInput{Author: "w", Text: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					errs <- err
					return
				}
			}
		}(w)
		go func() {
			defer wg.Done()
			for i := 0; i < each/3; i++ {
				if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "busy"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := writers * each
	for name, db := range map[string]Store{"a": a, "b": b} {
		d, err := db.Issue(ctx, "MG-1")
		if err != nil {
			t.Fatal(err)
		}
		if d.CommentCount != want || len(d.Comments) != want {
			t.Fatalf("handle %s: %d comments (counter %d), want %d", name, len(d.Comments), d.CommentCount, want)
		}
		cs, err := db.Changes(ctx, desk.ChangeFilter{After: start, Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, c := range cs {
			if i > 0 && c.Seq <= cs[i-1].Seq {
				t.Fatalf("handle %s: feed out of order at %d", name, i)
			}
			if c.Type == desk.ChangeComment {
				n++
			}
		}
		if n != want {
			t.Fatalf("handle %s: %d comment rows in the feed, want %d", name, n, want)
		}
	}
}

// Games polling two handles at once (a game behind two replicas) get
// every command once: none twice, none lost.
func testCommandsAreDeliveredOnceAcrossHandles(t *testing.T, be *Backend) {
	ctx := context.Background()
	a, b := be.Pair(t)
	MustProject(t, a)
	const n = 40
	for i := 0; i < n; i++ {
		if _, err := a.QueueCommand(ctx, "mygame", desk.CommandInput{Command: fmt.Sprintf("/goto %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var got []int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		db := a
		if g%2 == 1 {
			db = b
		}
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for {
				c, err := db.NextCommand(ctx, "mygame", fmt.Sprintf("game-%d", g))
				if err != nil {
					errs <- err
					return
				}
				if c == nil {
					return
				}
				mu.Lock()
				got = append(got, c.ID)
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if len(got) != n {
		t.Fatalf("%d commands delivered, want %d: %v", len(got), n, got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("command %d delivered twice", got[i])
		}
	}
	cs, err := b.Commands(ctx, "mygame", 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.State != desk.CommandDelivered || c.Client == nil {
			t.Fatalf("command %d: state %s, client %v", c.ID, c.State, c.Client)
		}
	}
}
