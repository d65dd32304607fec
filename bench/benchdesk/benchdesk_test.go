package benchdesk

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"desk"
	"desk/bench/gen"
	"desk/sqlite"
)

var small = gen.Shape{Name: "small", Projects: 2, Issues: 120, MainIssues: 90, Comments: 900, RichComments: 80,
	Attachments: 120, Activity: 1700, Handoffs: 6}

func TestCopiesAreIndependentOfTheCacheAndOfEachOther(t *testing.T) {
	t.Setenv("DESK_BENCH_CACHE", t.TempDir())
	ctx := context.Background()
	a := New(t, small, 3)
	b := New(t, small, 3)
	if a.Dir == b.Dir || a.Summary.Rich == "" || a.Summary != b.Summary {
		t.Fatalf("copies: %+v and %+v", a, b)
	}
	cached, _, err := gen.Cached(small, 3)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(cached, "desk.sqlite"))
	if err != nil {
		t.Fatal(err)
	}

	db, err := sqlite.Open(ctx, a.Dir, sqlite.Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rich, err := db.Issue(ctx, a.Summary.Rich)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AddComment(ctx, rich.ID, desk.CommentInput{Author: "bench", Text: "written on a copy"}); err != nil {
		t.Fatal(err)
	}
	att := rich.Attachments[0]
	if err := db.DeleteAttachment(ctx, att.ID, "owner"); err != nil {
		t.Fatal(err)
	}

	after, err := os.ReadFile(filepath.Join(cached, "desk.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("a write to a copy changed the cached database")
	}
	if _, err := os.Stat(filepath.Join(cached, filepath.FromSlash(att.Path))); err != nil {
		t.Errorf("deleting an attachment of a copy removed the cached file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(b.Dir, filepath.FromSlash(att.Path))); err != nil {
		t.Errorf("deleting an attachment of a copy removed another copy's file: %v", err)
	}
	other, err := sqlite.Open(ctx, b.Dir, sqlite.Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	d, err := other.Issue(ctx, a.Summary.Rich)
	if err != nil {
		t.Fatal(err)
	}
	if d.CommentCount != small.RichComments {
		t.Errorf("the other copy's busiest issue has %d comments, want %d", d.CommentCount, small.RichComments)
	}
}
