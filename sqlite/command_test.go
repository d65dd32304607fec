package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/sqlite"
)

// A long-lived store keeps an issue's last commands with its other detail
// parts once its index holds the project. They must follow commands sent
// and delivered by other processes, and their state must follow the
// clock, which moves without any write.
func TestKeptDetailFollowsCommands(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	now := time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	db.Now = clock
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("x"), Commands: &[]desk.LocationCommand{{Command: "/goto 1"}}}, "owner")
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Now = clock
	fresh, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	fresh.Now = clock
	if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{}); err != nil { // the index holds the project
		t.Fatal(err)
	}
	states := func(cs []*desk.Command) []string {
		var out []string
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%d:%s", c.ID, c.State))
		}
		return out
	}
	check := func(step string, want int) {
		t.Helper()
		kept, err := db.Issue(ctx, is.ID)
		if err != nil {
			t.Fatal(err)
		}
		tail, err := db.IssueTail(ctx, is.ID, 5, 5)
		if err != nil {
			t.Fatal(err)
		}
		read, err := fresh.Issue(ctx, is.ID)
		if err != nil {
			t.Fatal(err)
		}
		k, tl, r := states(kept.Commands), states(tail.Commands), states(read.Commands)
		if len(r) != want || !slices.Equal(k, r) || !slices.Equal(tl, r) {
			t.Fatalf("%s: kept detail %v, tail %v, read afresh %v (want %d commands)", step, k, tl, r, want)
		}
	}
	check("none sent", 0)
	check("read again", 0)
	if _, err := other.QueueCommand(ctx, "mygame", desk.CommandInput{Issue: is.ID}); err != nil {
		t.Fatal(err)
	}
	check("sent by another process", 1)
	if _, _, err := other.AddComment(ctx, is.ID, desk.CommentInput{Author: "agent", Text: "no command in this"}); err != nil {
		t.Fatal(err)
	}
	check("after a comment", 1)
	mu.Lock()
	now = now.Add(desk.CommandTTL + time.Second)
	mu.Unlock()
	check("expired with no write", 1)
	if _, err := other.QueueCommand(ctx, "mygame", desk.CommandInput{Issue: is.ID}); err != nil {
		t.Fatal(err)
	}
	if c, err := other.NextCommand(ctx, "mygame", "game"); err != nil || c == nil {
		t.Fatalf("deliver: %+v %v", c, err)
	}
	check("sent and delivered", 2)
}
