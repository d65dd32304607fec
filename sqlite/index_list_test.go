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
	dir := t.TempDir()
	held, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	other, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
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
