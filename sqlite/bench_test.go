package sqlite_test

import (
	"context"
	"testing"

	"desk"
	"desk/bench/benchdesk"
	"desk/bench/gen"
	"desk/sqlite"
)

// The store's benchmarks run on the core's benchmark desk: 2,000 issues,
// 20,000 comments (500 on the busiest issue), 40,000 activity entries and
// 200 handoff versions, generated once per machine and copied per run.
//
//	go test ./sqlite -run '^$' -bench . -benchtime 2000x

func benchStore(b *testing.B) (*sqlite.DB, *gen.Summary) {
	b.Helper()
	d := benchdesk.New(b, gen.Core, 1)
	db, err := sqlite.Open(context.Background(), d.Dir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db, &d.Summary
}

var unfinished = []string{"reported", "open", "in_progress", "auto_check", "to_check", "failed"}

func BenchmarkStore(b *testing.B) {
	db, sum := benchStore(b)
	ctx := context.Background()
	lists := map[string]desk.IssueFilter{
		"Triage200":     {Status: unfinished, Limit: 200},
		"Triage500":     {Limit: 500},
		"UITriage300":   {Status: unfinished, Limit: 300, Summary: true},
		"Backlog5000":   {Status: []string{"open", "in_progress"}, Sort: "backlog", Limit: 5000},
		"UIBacklog":     {Status: []string{"open", "in_progress"}, Sort: "backlog", Limit: 5000, Summary: true},
		"SearchTerrain": {Q: "terrain", Limit: 200},
	}
	for name, f := range lists {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				l, err := db.Issues(ctx, sum.Main, f)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := l.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("DetailRich", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := db.Issue(ctx, sum.Rich); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CommentRich", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := db.AddComment(ctx, sum.Rich, desk.CommentInput{Author: "bench", Text: "still square after 5ea28d6"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A list right after another process's write pays for catching the
	// index up with the feed.
	b.Run("Triage200AfterWrite", func(b *testing.B) {
		other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer other.Close()
		for i := 0; i < b.N; i++ {
			if _, _, err := other.AddComment(ctx, sum.Rich, desk.CommentInput{Author: "bench", Text: "from another process"}); err != nil {
				b.Fatal(err)
			}
			if _, err := db.Issues(ctx, sum.Main, lists["Triage200"]); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The owner's page runs its search again after each change it hears
	// of: a kept result is patched for the issue the change names.
	b.Run("SearchAfterWrite", func(b *testing.B) {
		other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer other.Close()
		b.StopTimer()
		for i := 0; i < b.N; i++ {
			if _, _, err := other.AddComment(ctx, sum.Rich, desk.CommentInput{Author: "bench", Text: "terrain still torn"}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := db.Issues(ctx, sum.Main, lists["SearchTerrain"]); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
		}
	})
	// The owner's page reads the project's overview after each change; a
	// comment moves no count, a status moves one.
	b.Run("OverviewAfterWrite", func(b *testing.B) {
		other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer other.Close()
		if _, err := db.Issues(ctx, sum.Main, lists["Triage200"]); err != nil { // held
			b.Fatal(err)
		}
		statuses := []string{"open", "in_progress"}
		b.StopTimer()
		for i := 0; i < b.N; i++ {
			if i%2 == 0 {
				_, _, err = other.AddComment(ctx, sum.Rich, desk.CommentInput{Author: "bench", Text: "from another process"})
			} else {
				_, err = other.SetStatus(ctx, sum.Rich, statuses[i/2%2], "bench")
			}
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := db.Project(ctx, sum.Main); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
		}
	})
}
