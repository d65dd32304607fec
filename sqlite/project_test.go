package sqlite_test

import (
	"context"
	"reflect"
	"testing"

	"desk/sqlite"

	"desk"
)

// The overview a process counts from the issues it holds is kept while the
// issues stay as they were, and follows another process's changes: those
// it counts again whole (an area, tags, a merge, a new issue) and those it
// moves the kept counts by (a status, a comment).
func TestHeldOverviewFollowsChanges(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	a := MustIssue(t, db, desk.IssueFields{Title: ptr("a"), Area: ptr("terrain"), Tags: &[]string{"lava"}}, "owner")
	b := MustIssue(t, db, desk.IssueFields{Title: ptr("b"), Area: ptr("ai")}, "owner")
	c := MustIssue(t, db, desk.IssueFields{Title: ptr("c"), Area: ptr("ai")}, "owner")
	db.Issues(ctx, "mygame", desk.IssueFilter{}) // now held
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	update := func(id string, f desk.IssueFields) func() error {
		return func() error { _, err := other.UpdateIssue(ctx, id, f, "owner"); return err }
	}
	status := func(id, s string) func() error {
		return func() error { _, err := other.SetStatus(ctx, id, s, "owner"); return err }
	}
	comment := func(id string) func() error {
		return func() error {
			_, _, err := other.AddComment(ctx, id, desk.CommentInput{Author: "agent", Text: "looked"})
			return err
		}
	}
	for i, change := range []func() error{
		nil,
		update(a.ID, desk.IssueFields{Area: ptr("ui"), Tags: &[]string{"ice", "Ice"}}),
		status(a.ID, "closed"),
		status(b.ID, "open"),
		comment(c.ID),
		status(c.ID, "in_progress"),
		comment(a.ID),
		update(b.ID, desk.IssueFields{Area: ptr("audio"), Status: ptr("to_check")}),
		update(a.ID, desk.IssueFields{Area: ptr("AI")}),
		func() error { _, err := other.Merge(ctx, b.ID, []string{c.ID}, "owner"); return err },
		status(c.ID, "open"), // merged: counted in no status
		comment(b.ID),
		func() error { _, err := other.Unmerge(ctx, c.ID, "owner"); return err },
		func() error {
			_, err := other.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("d"), Status: ptr("open")}, desk.CreateOptions{Author: "owner"})
			return err
		},
		status(b.ID, "closed"),
	} {
		if change != nil {
			if err := change(); err != nil {
				t.Fatalf("change %d: %v", i, err)
			}
		}
		for range 2 { // counted, then kept
			held, err := db.Project(ctx, "mygame")
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := other.Project(ctx, "mygame") // other holds nothing: read from SQL
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(held.Counts, fresh.Counts) || !reflect.DeepEqual(held.Areas, fresh.Areas) ||
				!reflect.DeepEqual(held.Tags, fresh.Tags) || held.LastChange != fresh.LastChange {
				t.Fatalf("change %d: held %v %v %v %s\nfrom SQL %v %v %v %s", i, held.Counts, held.Areas, held.Tags, held.LastChange,
					fresh.Counts, fresh.Areas, fresh.Tags, fresh.LastChange)
			}
		}
	}
}
