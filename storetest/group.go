package storetest

import (
	"context"
	"testing"

	"desk"
)

func testParents(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	a := MustIssue(t, db, desk.IssueFields{Title: ptr("epic")}, "owner")
	b := MustIssue(t, db, desk.IssueFields{Title: ptr("part one")}, "owner")
	c := MustIssue(t, db, desk.IssueFields{Title: ptr("part two")}, "owner")
	for _, child := range []string{b.ID, c.ID} {
		if _, err := db.SetParent(ctx, child, &a.ID, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetStatus(ctx, b.ID, "closed", "owner"); err != nil {
		t.Fatal(err)
	}
	d, _ := db.Issue(ctx, a.ID)
	if d.ChildCount != 2 || d.ChildDone != 1 || len(d.Children) != 2 {
		t.Fatalf("children %d/%d %+v", d.ChildDone, d.ChildCount, d.Children)
	}
	l, _ := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "epic"})
	if len(l.Issues) != 1 || l.Issues[0].ChildCount != 2 || l.Issues[0].ChildDone != 1 {
		t.Fatalf("list row counters stale: %+v", l.Issues)
	}
	t.Run("ErrLoop", func(t *testing.T) {
		_, err := db.SetParent(ctx, a.ID, &b.ID, "owner")
		wantCode(t, err, desk.Invalid)
		_, err = db.SetParent(ctx, a.ID, &a.ID, "owner")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrOtherProject", func(t *testing.T) {
		db.CreateProject(ctx, desk.NewProject{Slug: "tools", Prefix: "TL"}, "owner")
		o, _ := db.CreateIssue(ctx, "tools", desk.IssueFields{Title: ptr("x")}, desk.CreateOptions{})
		_, err := db.SetParent(ctx, o.ID, &a.ID, "owner")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("Remove", func(t *testing.T) {
		d, err := db.SetParent(ctx, c.ID, nil, "owner")
		if err != nil || d.Parent != nil {
			t.Fatal(err)
		}
		p, _ := db.Issue(ctx, a.ID)
		if p.ChildCount != 1 {
			t.Fatalf("child_count %d", p.ChildCount)
		}
	})
}

func testMergeAndUnmerge(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	target := MustIssue(t, db, desk.IssueFields{Title: ptr("Lava tips square")}, "owner")
	src := MustIssue(t, db, desk.IssueFields{Title: ptr("Square lava"), Status: ptr("open"), Command: ptr("/goto 1")}, "game")
	child := MustIssue(t, db, desk.IssueFields{Title: ptr("sub")}, "owner")
	db.SetParent(ctx, child.ID, &src.ID, "owner")
	db.AddComment(ctx, src.ID, desk.CommentInput{Author: "owner", Text: "also near the harbor"})
	db.AddAttachments(ctx, src.ID, nil, []desk.AttachmentInput{{Filename: "s.png", Data: tinyPNG}}, "owner")

	res, err := db.Merge(ctx, target.ID, []string{src.ID}, "owner")
	if err != nil {
		t.Fatal(err)
	}
	d := res.Issue
	if len(d.Comments) != 1 || *d.Comments[0].MergedFrom != src.ID || len(d.Attachments) != 1 || *d.Attachments[0].MergedFrom != src.ID {
		t.Fatalf("comments/attachments did not move: %+v %+v", d.Comments, d.Attachments)
	}
	if len(d.MergedSources) != 1 || d.MergedSources[0].ID != src.ID || d.ChildCount != 1 {
		t.Fatalf("merged sources %+v children %d", d.MergedSources, d.ChildCount)
	}
	redirected, err := db.Issue(ctx, src.ID)
	if err != nil || redirected.ID != target.ID || redirected.RedirectedFrom != src.ID {
		t.Fatalf("redirect: %v %s %s", err, redirected.ID, redirected.RedirectedFrom)
	}
	// Writes to the merged id land on the target.
	c, _, err := db.AddComment(ctx, src.ID, desk.CommentInput{Text: "after merge"})
	if err != nil || c.ID == 0 {
		t.Fatal(err)
	}
	if d, _ := db.Issue(ctx, target.ID); d.CommentCount != 2 {
		t.Fatalf("comment to merged id went to %d comments on target", d.CommentCount)
	}
	l, _ := db.Issues(ctx, "mygame", desk.IssueFilter{})
	if l.Total != 2 || l.Counts.Merged != 1 {
		t.Fatalf("list total %d merged %d", l.Total, l.Counts.Merged)
	}
	t.Run("ErrAlreadyMerged", func(t *testing.T) {
		_, err := db.Merge(ctx, target.ID, []string{src.ID}, "owner")
		wantCode(t, err, desk.Conflict)
	})
	t.Run("ErrTargetMergedInto", func(t *testing.T) {
		_, err := db.Merge(ctx, src.ID, []string{child.ID}, "owner")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrDeleteHoldsMerged", func(t *testing.T) {
		wantCode(t, db.DeleteIssue(ctx, target.ID, "owner"), desk.Conflict)
	})

	u, err := db.Unmerge(ctx, src.ID, "owner")
	if err != nil {
		t.Fatal(err)
	}
	if u.Issue.Status != "open" || u.Issue.MergedInto != nil || len(u.Issue.Comments) != 1 || len(u.Issue.Attachments) != 1 || u.Issue.ChildCount != 1 {
		t.Fatalf("unmerge restored %s merged_into=%v comments=%d attachments=%d children=%d",
			u.Issue.Status, u.Issue.MergedInto, len(u.Issue.Comments), len(u.Issue.Attachments), u.Issue.ChildCount)
	}
	if d, _ := db.Issue(ctx, target.ID); d.CommentCount != 1 || len(d.MergedSources) != 0 {
		t.Fatalf("target kept %d comments, %d sources", d.CommentCount, len(d.MergedSources))
	}
	t.Run("ErrNotMerged", func(t *testing.T) {
		_, err := db.Unmerge(ctx, src.ID, "owner")
		wantCode(t, err, desk.Conflict)
	})
}

func testSuggestGroups(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("Lava flow tips are square")}, "owner")
	MustIssue(t, db, desk.IssueFields{Title: ptr("Square tips on lava flows")}, "game")
	MustIssue(t, db, desk.IssueFields{Title: ptr("Menu font too small")}, "owner")
	for _, title := range []string{"Water shader flickers", "Water foam missing", "Water level wrong at dusk"} {
		MustIssue(t, db, desk.IssueFields{Title: ptr(title), Area: ptr("rendering")}, "owner")
	}
	gs, err := db.SuggestGroups(ctx, "mygame", 10)
	if err != nil {
		t.Fatal(err)
	}
	var merge, group *desk.Group
	for i := range gs {
		switch gs[i].Action {
		case "merge":
			merge = &gs[i]
		case "group":
			group = &gs[i]
		}
	}
	if merge == nil || merge.Target != "MG-1" || len(merge.Issues) != 2 || merge.Issues[1] != "MG-2" {
		t.Fatalf("merge proposal %+v", merge)
	}
	if group == nil || len(group.Issues) != 3 {
		t.Fatalf("group proposal %+v", group)
	}
	if l, _ := db.Issues(ctx, "mygame", desk.IssueFilter{Merged: true}); l.Total != 0 {
		t.Fatal("a proposal changed the desk")
	}
}
