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

func TestCommandQueue(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	now := time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	db.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("x"), Commands: &[]desk.LocationCommand{{Command: "/goto 1"}, {Command: "/goto 2", Label: "b"}}}, "owner")

	first, err := db.QueueCommand(ctx, "mygame", desk.CommandInput{Command: "/tp a"})
	if err != nil || first.State != "pending" {
		t.Fatal(err)
	}
	advance(time.Second)
	second, err := db.QueueCommand(ctx, "mygame", desk.CommandInput{Issue: is.ID, At: 2})
	if err != nil || second.Command != "/goto 2" || *second.Issue != is.ID {
		t.Fatalf("%+v %v", second, err)
	}
	got, err := db.NextCommand(ctx, "mygame", "game-a")
	if err != nil || got.ID != first.ID || got.State != "delivered" || *got.Client != "game-a" {
		t.Fatalf("oldest first: %+v %v", got, err)
	}
	d, _ := db.Issue(ctx, is.ID)
	if len(d.Commands) != 1 || d.Commands[0].State != "pending" {
		t.Fatalf("issue commands %+v", d.Commands)
	}
	t.Run("ErrAtOutOfRange", func(t *testing.T) {
		_, err := db.QueueCommand(ctx, "mygame", desk.CommandInput{Issue: is.ID, At: 3})
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ExpiresAfterTenMinutes", func(t *testing.T) {
		advance(10 * time.Minute)
		c, _ := db.Command(ctx, second.ID)
		if c.State != "expired" {
			t.Fatalf("state %s", c.State)
		}
		if c, err := db.NextCommand(ctx, "mygame", "game"); err != nil || c != nil {
			t.Fatalf("an expired command was delivered: %+v %v", c, err)
		}
	})
	t.Run("DeliveredOnceToRacingGames", func(t *testing.T) {
		const n = 20
		for i := 0; i < n; i++ {
			if _, err := db.QueueCommand(ctx, "mygame", desk.CommandInput{Command: "/c"}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		seen := map[int64]int{}
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					c, err := db.NextCommand(ctx, "mygame", "g")
					if err != nil {
						t.Error(err)
						return
					}
					if c == nil {
						return
					}
					mu.Lock()
					seen[c.ID]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(seen) != n {
			t.Fatalf("delivered %d of %d", len(seen), n)
		}
		for id, k := range seen {
			if k != 1 {
				t.Fatalf("command %d delivered %d times", id, k)
			}
		}
	})
}

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
