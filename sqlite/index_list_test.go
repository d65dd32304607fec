package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"desk"
	"desk/sqlite"
)

// A process that holds a project's issues in its index patches its list as
// issues change, whoever changes them; the list it answers must be the one
// a process reading the desk afresh answers, after every kind of change.
func TestHeldListsFollowEveryKindOfChange(t *testing.T) {
	ctx := context.Background()
	held, other := MustOpenPair(t)
	dir := held.Dir()
	if _, err := held.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	create := func(db *sqlite.DB, title string) string {
		t.Helper()
		is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return is.ID
	}
	var ids []string
	for i := 0; i < 12; i++ {
		ids = append(ids, create(held, fmt.Sprintf("Issue %d", i)))
	}
	compare := func(step string) {
		t.Helper()
		fresh, err := sqlite.Open(ctx, dir, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		sameLists(t, held, fresh, []desk.IssueFilter{{Limit: desk.MaxListLimit}, {Sort: desk.SortBacklog, Limit: 5}, {Merged: true}},
			"the held list against a fresh one after "+step)
	}
	compare("creating")
	p1 := "p1"
	steps := []struct {
		name string
		do   func() error
	}{
		{"an edit here", func() error {
			_, err := held.UpdateIssue(ctx, ids[3], desk.IssueFields{Priority: &p1}, "owner")
			return err
		}},
		{"an edit elsewhere", func() error {
			_, err := other.UpdateIssue(ctx, ids[5], desk.IssueFields{Priority: &p1}, "owner")
			return err
		}},
		{"a comment elsewhere", func() error {
			_, _, err := other.AddComment(ctx, ids[1], desk.CommentInput{Author: "owner", Text: "still square"})
			return err
		}},
		{"new issues elsewhere", func() error {
			ids = append(ids, create(other, "Later one"), create(other, "Later two"))
			return nil
		}},
		{"a parent", func() error {
			_, err := other.SetParent(ctx, ids[7], &ids[2], "owner")
			return err
		}},
		{"a merge", func() error {
			_, err := held.Merge(ctx, ids[0], []string{ids[9]}, "owner")
			return err
		}},
		{"an unmerge elsewhere", func() error {
			_, err := other.Unmerge(ctx, ids[9], "owner")
			return err
		}},
		{"a deletion elsewhere", func() error { return other.DeleteIssue(ctx, ids[4], "owner") }},
		{"a deletion here", func() error { return held.DeleteIssue(ctx, ids[10], "owner") }},
		{"an issue after deletions", func() error {
			ids = append(ids, create(held, "Last one"))
			return nil
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		compare(s.name)
	}
}

// An index that holds one project reads again only that project's
// changed issues, yet follows an issue created in it, and lists the other
// project rightly once it holds that one too.
func TestIndexFollowsTheProjectsItHolds(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "tools", Name: "Tools", Prefix: "TL"}, "owner"); err != nil {
		t.Fatal(err)
	}
	MustIssue(t, db, desk.IssueFields{Title: ptr("in mygame")}, "owner")
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{}); err != nil { // holds mygame only
		t.Fatal(err)
	}
	tl, err := other.CreateIssue(ctx, "tools", desk.IssueFields{Title: ptr("in tools")}, desk.CreateOptions{Author: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := other.AddComment(ctx, tl.ID, desk.CommentInput{Author: "agent", Text: "elsewhere"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("new in mygame")}, desk.CreateOptions{Author: "agent"}); err != nil {
		t.Fatal(err)
	}
	fresh, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	sameLists(t, db, fresh, []desk.IssueFilter{{}, {Sort: desk.SortUpdated}}, "after writes in both projects")
	for _, store := range []*sqlite.DB{db, fresh} {
		l, err := store.Issues(ctx, "tools", desk.IssueFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != 1 || l.Issues[0].CommentCount != 1 {
			t.Fatalf("tools lists %d issues, %+v", l.Total, l.Issues)
		}
	}
	if l, _ := db.Issues(ctx, "mygame", desk.IssueFilter{}); l.Total != 2 {
		t.Fatalf("mygame lists %d issues, want 2", l.Total)
	}
}
