package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"desk"
	"desk/sqlite"
)

func TestIssueTailKeepsTheNewestHistoryAndCountsTheRest(t *testing.T) {
	db, mk := ownerEventsFixture(t)
	ctx := context.Background()
	id := mk("Busy", "bug", "owner", "owner")
	dup := mk("Busy too", "bug", "owner", "owner")
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 16)...)
	for i := range 12 {
		in := desk.CommentInput{Author: "owner", Text: fmt.Sprintf("c%d", i)}
		if i == 1 || i == 11 {
			in.Attachments = []desk.AttachmentInput{{Filename: fmt.Sprintf("shot%d.png", i), Data: png}}
		}
		if _, _, err := db.AddComment(ctx, id, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.AddAttachments(ctx, id, nil, []desk.AttachmentInput{{Filename: "issue.png", Data: png}}, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, id, []string{dup}, "owner"); err != nil {
		t.Fatal(err)
	}
	full, err := db.Issue(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tail, err := db.IssueTail(ctx, dup, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if tail.ID != id || tail.RedirectedFrom != dup {
		t.Errorf("tail of a merged id: %s from %q", tail.ID, tail.RedirectedFrom)
	}
	if len(tail.Comments) != 3 || tail.Comments[0].Text != "c9" || tail.Comments[2].Text != "c11" || tail.EarlierComments != 9 {
		t.Errorf("comments %d (%v...), earlier %d", len(tail.Comments), tail.Comments[0].Text, tail.EarlierComments)
	}
	if len(tail.Comments[2].Attachments) != 1 || tail.Comments[2].Attachments[0].Filename != "shot11.png" {
		t.Errorf("the newest comment's files: %+v", tail.Comments[2].Attachments)
	}
	var names []string
	for _, a := range tail.Attachments {
		names = append(names, a.Filename)
	}
	if fmt.Sprint(names) != "[shot11.png issue.png]" {
		t.Errorf("attachments %v; want the kept comment's and the issue's own", names)
	}
	if len(tail.Activity) != 2 || tail.EarlierActivity != len(full.Activity)-2 ||
		tail.Activity[1].ID != full.Activity[len(full.Activity)-1].ID || tail.Activity[0].ID != full.Activity[len(full.Activity)-2].ID {
		t.Errorf("activity %d, earlier %d (full %d)", len(tail.Activity), tail.EarlierActivity, len(full.Activity))
	}
	if len(tail.MergedSources) != 1 || len(tail.Commands) != 0 || len(tail.Children) != 0 {
		t.Errorf("links: merged %v, children %v", tail.MergedSources, tail.Children)
	}
	none, err := db.IssueTail(ctx, id, 0, 0)
	if err != nil || len(none.Comments) != 0 || none.EarlierComments != 12 || len(none.Attachments) != 1 {
		t.Errorf("tail of nothing: %d comments, %d earlier, %d files, %v", len(none.Comments), none.EarlierComments, len(none.Attachments), err)
	}
}

// A process whose index holds the project cuts the tail from the history
// it keeps on the index row (read whole once, then extended); one that
// doesn't reads the tail with its own queries. Both must give the same
// answer, after every kind of change.
func TestIssueTailFromTheIndexMatchesTheQueries(t *testing.T) {
	db, mk := ownerEventsFixture(t)
	ctx := context.Background()
	// sql reads the same folder with an index that never holds a project.
	sql, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sql.Close()
	if err := db.WarmUp(ctx); err != nil {
		t.Fatal(err)
	}
	id := mk("Busy", "bug", "owner", "owner")
	dup := mk("Busy too", "bug", "owner", "owner")
	child := mk("Part", "bug", "owner", "owner")
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 16)...)
	comment := func(i int) {
		t.Helper()
		in := desk.CommentInput{Author: "owner", Text: fmt.Sprintf("c%d", i)}
		if i%4 == 1 {
			in.Attachments = []desk.AttachmentInput{{Filename: fmt.Sprintf("shot%d.png", i), Data: png}}
		}
		if _, _, err := db.AddComment(ctx, id, in); err != nil {
			t.Fatal(err)
		}
	}
	same := func(step string) {
		t.Helper()
		for _, n := range [][2]int{{0, 0}, {1, 1}, {3, 2}, {30, 15}, {5000, 5000}} {
			for _, key := range []string{id, dup} {
				want, err := sql.IssueTail(ctx, key, n[0], n[1])
				if err != nil {
					t.Fatal(err)
				}
				got, err := db.IssueTail(ctx, key, n[0], n[1])
				if err != nil {
					t.Fatal(err)
				}
				w, _ := json.Marshal(want)
				g, _ := json.Marshal(got)
				if string(g) != string(w) || got.EarlierComments != want.EarlierComments || got.EarlierActivity != want.EarlierActivity {
					t.Fatalf("%s, tail %v of %s:\nindex   %s (earlier %d, %d)\nqueries %s (earlier %d, %d)", step, n, key,
						g, got.EarlierComments, got.EarlierActivity, w, want.EarlierComments, want.EarlierActivity)
				}
			}
		}
	}
	if _, err := db.IssueTail(ctx, id, 1, 1); err != nil { // an empty history, kept
		t.Fatal(err)
	}
	for i := range 6 {
		comment(i)
	}
	same("first read")
	for i := 6; i < 9; i++ {
		comment(i) // extends what was read
	}
	same("after new comments")
	if _, err := db.AddAttachments(ctx, id, nil, []desk.AttachmentInput{{Filename: "issue.png", Data: png}}, "owner"); err != nil {
		t.Fatal(err)
	}
	same("after a file on the issue")
	if _, err := db.Merge(ctx, id, []string{dup}, "owner"); err != nil {
		t.Fatal(err)
	}
	same("after a merge")
	if _, err := db.SetParent(ctx, child, &id, "owner"); err != nil {
		t.Fatal(err)
	}
	comment(9)
	same("with a child")
	if _, err := db.Unmerge(ctx, dup, "owner"); err != nil {
		t.Fatal(err)
	}
	same("after an unmerge")
}
