package sqlite_test

import (
	"context"
	"testing"

	"desk"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	a := MustIssue(t, db, desk.IssueFields{Title: ptr("Lava tips are square"), Area: ptr("terrain"), Body: ptr("The lava flows end in squares")}, "owner")
	b := MustIssue(t, db, desk.IssueFields{Title: ptr("Workers stuck near harbor"), Area: ptr("ai")}, "game")
	if a.ID != "MG-1" || b.ID != "MG-2" {
		t.Fatalf("ids %s %s", a.ID, b.ID)
	}
	if _, _, err := db.AddComment(ctx, "MG-2", desk.CommentInput{Author: "owner", Text: "the worker pathing around the WorldStore"}); err != nil {
		t.Fatal(err)
	}
	l, err := db.Issues(ctx, "mygame", desk.IssueFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 2 {
		t.Fatalf("total %d", l.Total)
	}
	for _, q := range []string{"lava", "worker", "Store", "harb*", "MG-2"} {
		l, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: q})
		if err != nil {
			t.Fatal(q, err)
		}
		t.Logf("%s: total %d mode %v", q, l.Total, l.Search)
		for _, is := range l.Issues {
			t.Logf("  %s %+v", is.ID, is.Match)
		}
	}
	if _, err := db.Merge(ctx, "MG-1", []string{"MG-2"}, "owner"); err != nil {
		t.Fatal(err)
	}
	d, err := db.Issue(ctx, "MG-2")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "MG-1" || d.RedirectedFrom != "MG-2" || len(d.Comments) != 1 {
		t.Fatalf("redirect %s %s %d", d.ID, d.RedirectedFrom, len(d.Comments))
	}
}
