package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"desk"
)

func testCommandQueue(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	now := time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	be.SetClock(db, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
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
