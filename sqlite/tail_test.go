package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"desk"
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
