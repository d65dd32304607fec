package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/sqlite"
)

// loadDesk fills db with one project of n issues, each with comments and
// activity entries, and handoffs versions, the way a dataset generator does.
func loadDesk(tb testing.TB, db *sqlite.DB, n, commentsPer, activityPer, handoffs int, rebuild bool) *sqlite.LoadStats {
	tb.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(i int) string { return desk.FormatTime(base.Add(time.Duration(i) * time.Minute)) }
	stats, err := db.Load(context.Background(), sqlite.LoadOptions{RebuildSearchIndex: rebuild}, func(l *sqlite.Loader) error {
		pid, err := l.Project(sqlite.LoadProject{Project: desk.Project{Slug: "mygame", Name: "MyGame", Prefix: "MG", CreatedAt: at(0)}})
		if err != nil {
			return err
		}
		ids := make([]int64, n+1)
		for i := 1; i <= n; i++ {
			is := &desk.Issue{Number: i, Title: fmt.Sprintf("Lava flow %d ends square", i), Body: "The flow near the harbor ends in a square tip.",
				Kind: desk.Kinds[i%4], Status: desk.Statuses[i%len(desk.Statuses)], Priority: desk.Priorities[i%4],
				Source: desk.Sources[i%3], Area: []string{"terrain", "ai", "ui"}[i%3], Tags: []string{"lava"},
				CreatedAt: at(i), UpdatedAt: at(i + 1)}
			if i%10 == 0 {
				is.Plan = desk.Plan{Steps: []desk.Step{{Text: "one", State: desk.StepDone}, {Text: "two", State: desk.StepTodo}}}
			}
			if i > 1 && i%7 == 0 {
				p := fmt.Sprintf("MG-%d", i-1)
				is.Parent = &p
			}
			if ids[i], err = l.Issue(pid, is); err != nil {
				return err
			}
		}
		for i := 1; i <= n; i++ {
			for c := 0; c < commentsPer; c++ {
				var v *string
				if c == commentsPer-1 && i%5 == 0 {
					v = &desk.Verdicts[1]
				}
				if _, err := l.Comment(ids[i], &desk.Comment{Author: "owner", Text: fmt.Sprintf("comment %d on worker pathing", c), Verdict: v, CreatedAt: at(i + c)}); err != nil {
					return err
				}
			}
			for a := 0; a < activityPer; a++ {
				if _, err := l.Activity(ids[i], &desk.Activity{Actor: "claude", Action: desk.ActStatus, Detail: json.RawMessage(`{"from":"open","to":"in_progress"}`), CreatedAt: at(i + a)}); err != nil {
					return err
				}
			}
		}
		for v := 1; v <= handoffs; v++ {
			if _, err := l.Handoff(pid, &desk.Handoff{Version: v, Markdown: fmt.Sprintf("## State\n\nversion %d\n", v), Author: "claude", CreatedAt: at(v)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return stats
}

func TestLoadKeepsNumbersTimesAndCounters(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	stats := loadDesk(t, db, 50, 3, 2, 4, false)
	if stats.Issues != 50 || stats.Comments != 150 || stats.Activity != 100 || stats.Handoffs != 4 || stats.Projects != 1 {
		t.Fatalf("stats = %+v", stats)
	}
	d, err := db.Issue(ctx, "MG-10")
	if err != nil {
		t.Fatal(err)
	}
	if d.CommentCount != 3 || len(d.Comments) != 3 || d.LastVerdict == nil || *d.LastVerdict != "failed" {
		t.Fatalf("MG-10 comments %d/%d, last verdict %v", d.CommentCount, len(d.Comments), d.LastVerdict)
	}
	if d.CreatedAt != "2026-01-01T00:10:00.000Z" || d.Comments[0].CreatedAt != "2026-01-01T00:10:00.000Z" {
		t.Fatalf("times not kept: %s %s", d.CreatedAt, d.Comments[0].CreatedAt)
	}
	if d.Progress != (desk.Progress{Done: 1, Total: 2}) {
		t.Fatalf("progress %+v", d.Progress)
	}
	child, err := db.Issue(ctx, "MG-7")
	if err != nil {
		t.Fatal(err)
	}
	if child.Parent == nil || *child.Parent != "MG-6" {
		t.Fatalf("MG-7 parent %v", child.Parent)
	}
	parent, _ := db.Issue(ctx, "MG-6")
	if parent.ChildCount != 1 {
		t.Fatalf("MG-6 child count %d", parent.ChildCount)
	}
	// The next issue continues the numbering.
	is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("after the load")}, desk.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if is.ID != "MG-51" {
		t.Fatalf("next issue %s, want MG-51", is.ID)
	}
	// Lists and search see the load.
	l, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "pathing", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 50 {
		t.Fatalf("search for a comment word found %d", l.Total)
	}
	h, err := db.Handoff(ctx, "mygame", 0)
	if err != nil || h.Version != 4 {
		t.Fatalf("handoff %v %v", h, err)
	}
	// Every loaded issue has a feed row, so a running server picks it up.
	changes, err := db.Changes(ctx, desk.ChangeFilter{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	imported := 0
	for _, c := range changes {
		if c.Type == desk.ChangeIssue && c.Action == "imported" {
			imported++
		}
	}
	if imported != 50 {
		t.Fatalf("%d imported feed rows, want 50", imported)
	}
}

func TestLoadRebuildsTheSearchIndex(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	loadDesk(t, db, 20, 1, 0, 0, true)
	l, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "harbor"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 20 || l.Search == nil || l.Search.Mode != "ranked" {
		t.Fatalf("search after a rebuilt load: total %d, %+v", l.Total, l.Search)
	}
	// The triggers are back: a new comment is found.
	if _, _, err := db.AddComment(ctx, "MG-3", desk.CommentInput{Author: "owner", Text: "a glacier appears"}); err != nil {
		t.Fatal(err)
	}
	l, _ = db.Issues(ctx, "mygame", desk.IssueFilter{Q: "glacier"})
	if l.Total != 1 {
		t.Fatalf("a comment after the load is not indexed: %d", l.Total)
	}
}

func TestLoadIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	_, err := db.Load(ctx, sqlite.LoadOptions{}, func(l *sqlite.Loader) error {
		pid, err := l.Project(sqlite.LoadProject{Project: desk.Project{Slug: "mygame", Prefix: "MG"}})
		if err != nil {
			return err
		}
		if _, err := l.Issue(pid, &desk.Issue{Number: 1, Title: "one", Kind: "bug", Status: "open", Priority: "p2", Source: "owner"}); err != nil {
			return err
		}
		_, err = l.Issue(pid, &desk.Issue{Number: 2, Title: "two", Kind: "bug", Status: "nonsense", Priority: "p2", Source: "owner"})
		return err
	})
	if desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), "MG-2") {
		t.Fatalf("err = %v, want invalid naming MG-2", err)
	}
	ps, _ := db.Projects(ctx)
	if len(ps) != 0 {
		t.Fatalf("a failed load left %d project(s)", len(ps))
	}
}

// BenchmarkLoad measures a generator-sized load: per op, 1,000 issues with
// 10 comments and 20 activity entries each.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		db, err := sqlite.Open(context.Background(), b.TempDir(), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		loadDesk(b, db, 1000, 10, 20, 100, true)
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}
