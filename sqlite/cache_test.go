package sqlite_test

import (
	"bytes"
	"context"
	"strings"
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

// TestBusyIssueDetailExtendsOrReadsAgain checks the detail of an issue read
// between writes: new comments are appended to what was read, and writes
// that change older rows (a file on an old comment, a merge, a deletion)
// make it read everything again.
func TestBusyIssueDetailExtendsOrReadsAgain(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("busy")}, "owner")
	src := MustIssue(t, db, desk.IssueFields{Title: ptr("dupe")}, "owner")
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	db.Issues(ctx, "mygame", desk.IssueFilter{})
	first, _, _ := other.AddComment(ctx, is.ID, desk.CommentInput{Text: "one"})
	kept := 0
	read := func() *desk.IssueDetail {
		t.Helper()
		d, err := db.Issue(ctx, is.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Comments) != d.CommentCount || len(d.Attachments) != d.AttachmentCount {
			t.Fatalf("detail has %d comments, %d files; counters say %d, %d", len(d.Comments), len(d.Attachments), d.CommentCount, d.AttachmentCount)
		}
		// The JSON kept with the parts says what the parts say.
		if d.Lists != nil {
			kept++
			plain := *d
			plain.Lists = nil
			if got, want := d.AppendJSON(nil), plain.AppendJSON(nil); !bytes.Equal(got, want) {
				t.Fatalf("the kept JSON differs from the detail's:\n%s\n%s", got, want)
			}
		}
		return d
	}
	read()
	for i := 0; i < 3; i++ {
		other.AddComment(ctx, is.ID, desk.CommentInput{Text: "more", Attachments: []desk.AttachmentInput{{Filename: "s.png", Data: tinyPNG}}})
		if d := read(); len(d.Comments) != 2+i || len(d.Comments[len(d.Comments)-1].Attachments) != 1 {
			t.Fatalf("after comment %d: %d comments", i, len(d.Comments))
		}
	}
	other.AddAttachments(ctx, is.ID, &first.ID, []desk.AttachmentInput{{Filename: "late.png", Data: tinyPNG}}, "owner")
	if d := read(); len(d.Comments[0].Attachments) != 1 {
		t.Fatalf("a file added to the first comment is missing: %+v", d.Comments[0].Attachments)
	}
	other.AddComment(ctx, src.ID, desk.CommentInput{Text: "from the dupe"})
	other.Merge(ctx, is.ID, []string{src.ID}, "owner")
	if d := read(); len(d.Comments) != 5 || len(d.MergedSources) != 1 {
		t.Fatalf("after the merge: %d comments, %d sources", len(d.Comments), len(d.MergedSources))
	}
	d := read()
	other.DeleteAttachment(ctx, d.Attachments[0].ID, "owner")
	read()
	if kept == 0 {
		t.Fatal("no read used the detail's kept JSON")
	}
}

// TestListJSONFollowsChanges checks that the JSON a list keeps for its rows
// is written anew once a row changes, and matches what the issue says.
func TestListJSONFollowsChanges(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("first words"), Body: ptr("old body")}, "owner")
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	text := func(summary bool) string {
		t.Helper()
		l, err := db.Issues(ctx, "mygame", desk.IssueFilter{Summary: summary})
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		plain := &desk.IssueList{Project: l.Project, Total: l.Total, Limit: l.Limit, Offset: l.Offset, Issues: l.Issues, Counts: l.Counts, Summary: summary}
		want, _ := plain.MarshalJSON()
		if string(b) != string(want) {
			t.Fatalf("kept JSON differs from the issue:\n%s\n%s", b, want)
		}
		return string(b)
	}
	for _, summary := range []bool{false, true} {
		text(summary)
		text(summary)
	}
	other.UpdateIssue(ctx, "MG-1", desk.IssueFields{Title: ptr("new words"), Body: ptr("new body")}, "owner")
	if got := text(false); !strings.Contains(got, "new words") || !strings.Contains(got, "new body") {
		t.Fatalf("stale list JSON: %s", got)
	}
	if got := text(true); !strings.Contains(got, "new words") || strings.Contains(got, "new body") {
		t.Fatalf("stale summary JSON: %s", got)
	}
}
