package sqlite_test

import (
	"context"
	"testing"

	"desk"
	"desk/sqlite"
)

// TestCachedDetailFollowsEveryChange reads details through a handle whose
// index is warm while another handle (another process) changes the issue,
// its parent and its children.
func TestCachedDetailFollowsEveryChange(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	parent := MustIssue(t, db, desk.IssueFields{Title: ptr("epic")}, "owner")
	child := MustIssue(t, db, desk.IssueFields{Title: ptr("part"), Parent: parentRef(parent.ID)}, "owner")
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	warm := func() {
		if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(id string) *desk.IssueDetail {
		t.Helper()
		d, err := db.Issue(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	warm()
	read(parent.ID)
	read(child.ID)

	other.AddComment(ctx, child.ID, desk.CommentInput{Text: "new words"})
	if d := read(child.ID); len(d.Comments) != 1 {
		t.Fatalf("comment from another process missing: %d", len(d.Comments))
	}
	other.UpdateIssue(ctx, parent.ID, desk.IssueFields{Title: ptr("renamed epic")}, "owner")
	if d := read(child.ID); d.ParentInfo == nil || d.ParentInfo.Title != "renamed epic" {
		t.Fatalf("parent info stale: %+v", d.ParentInfo)
	}
	other.SetStatus(ctx, child.ID, "closed", "owner")
	if d := read(parent.ID); len(d.Children) != 1 || d.Children[0].Status != "closed" || d.ChildDone != 1 {
		t.Fatalf("children stale: %+v", d.Children)
	}
	l, _ := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "renamed"})
	if len(l.Issues) != 1 || l.Issues[0].ChildDone != 1 || l.Issues[0].Title != "renamed epic" {
		t.Fatalf("list row stale: %+v", l.Issues)
	}
	other.UpdateIssue(ctx, child.ID, desk.IssueFields{Body: ptr("fresh body"), Tags: &[]string{"fresh"}}, "owner")
	l, _ = db.Issues(ctx, "mygame", desk.IssueFilter{Tag: "fresh"})
	if len(l.Issues) != 1 || l.Issues[0].Body != "fresh body" {
		t.Fatalf("list text stale: %+v", l.Issues)
	}
	warm()
	q, _ := db.QueueCommand(ctx, "mygame", desk.CommandInput{Issue: child.ID, Command: "/goto 1"})
	if d := read(child.ID); len(d.Commands) != 1 || d.Commands[0].ID != q.ID {
		t.Fatalf("commands %+v", d.Commands)
	}
}

func parentRef(id string) **string {
	p := &id
	return &p
}
