package storetest

import (
	"context"
	"strings"
	"testing"

	"desk"
)

func testHandoff(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	h, err := db.Handoff(ctx, "mygame", 0)
	if err != nil || h.Version != 0 || h.Versions != 0 {
		t.Fatalf("empty handoff: %+v %v", h, err)
	}
	h, err = db.SaveHandoff(ctx, "mygame", "## State\n\nGreen.\n\n## Traps\n\nworktree dirty\n", "claude", "first")
	if err != nil || h.Version != 1 || h.Sections["Traps"] != "worktree dirty" {
		t.Fatalf("%+v %v", h, err)
	}
	same, err := db.SaveHandoff(ctx, "mygame", h.Markdown, "claude", "again")
	if err != nil || same.Version != 1 {
		t.Fatalf("identical text saved a version: %+v", same)
	}
	h, err = db.UpdateHandoffSection(ctx, "mygame", "next", "Wire the UI", "codex")
	if err != nil || h.Version != 2 || h.Note != "updated Next step" || h.Sections["Next step"] != "Wire the UI" || h.Sections["State"] != "Green." {
		t.Fatalf("%+v %v", h, err)
	}
	old, err := db.Handoff(ctx, "mygame", 1)
	if err != nil || old.Version != 1 || old.Versions != 2 || old.Author != "claude" {
		t.Fatalf("%+v %v", old, err)
	}
	hist, _ := db.HandoffHistory(ctx, "mygame")
	if len(hist) != 2 || hist[0].Version != 2 || hist[0].Size == 0 {
		t.Fatalf("%+v", hist)
	}
	d, err := db.HandoffDiff(ctx, "mygame", 1, 0)
	if err != nil || d.From != 1 || d.To != 2 || !strings.Contains(d.Diff, "+Wire the UI") {
		t.Fatalf("%+v %v", d, err)
	}
	t.Run("ErrEmpty", func(t *testing.T) {
		_, err := db.SaveHandoff(ctx, "mygame", "  \n", "x", "")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrUnknownVersion", func(t *testing.T) {
		_, err := db.Handoff(ctx, "mygame", 9)
		wantCode(t, err, desk.NotFound)
	})
	t.Run("ErrSection", func(t *testing.T) {
		_, err := db.UpdateHandoffSection(ctx, "mygame", "Gossip", "x", "x")
		wantCode(t, err, desk.Invalid)
	})
}

func testBuilds(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	waiting := MustIssue(t, db, desk.IssueFields{Title: ptr("check me"), Status: ptr("to_check"), Command: ptr("/goto 1")}, "owner")
	MustIssue(t, db, desk.IssueFields{Title: ptr("open one")}, "owner")
	res, err := db.SetBuild(ctx, "mygame", desk.BuildInput{Path: "/builds/MyGame.x86_64", Commit: "5ea28d6", Label: "nightly 12"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Build.Number != 1 || len(res.Stamped) != 1 || res.Stamped[0] != waiting.ID || res.Unchanged {
		t.Fatalf("%+v", res)
	}
	again, _ := db.SetBuild(ctx, "mygame", desk.BuildInput{Path: "/builds/MyGame.x86_64", Commit: "5ea28d6"})
	if !again.Unchanged || len(again.Stamped) != 0 {
		t.Fatalf("the same build changed something: %+v", again)
	}
	d, _ := db.Issue(ctx, waiting.ID)
	var builds int
	for _, a := range d.Activity {
		if a.Action == "build" {
			builds++
		}
	}
	if d.Build == nil || d.Build.Label != "nightly 12" || builds != 1 {
		t.Fatalf("stamp %+v, %d build entries", d.Build, builds)
	}
	t.Run("ReachingToCheckGetsCurrentBuild", func(t *testing.T) {
		is := MustIssue(t, db, desk.IssueFields{Title: ptr("new"), Command: ptr("/goto 2")}, "owner")
		d, err := db.SetStatus(ctx, is.ID, "to_check", "claude")
		if err != nil || d.Build == nil || d.Build.Number != 1 {
			t.Fatalf("%v %+v", err, d.Build)
		}
	})
	t.Run("ErrNoCurrentBuild", func(t *testing.T) {
		st, err := db.ClearBuild(ctx, "mygame", false, "owner")
		if err != nil || st.Build != nil || !st.Enabled {
			t.Fatalf("%+v %v", st, err)
		}
		is := MustIssue(t, db, desk.IssueFields{Title: ptr("later"), Command: ptr("/goto 3")}, "owner")
		_, err = db.SetStatus(ctx, is.ID, "to_check", "claude")
		wantCode(t, err, desk.Conflict)
		if _, err := db.ClearBuild(ctx, "mygame", true, "owner"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SetStatus(ctx, is.ID, "to_check", "claude"); err != nil {
			t.Fatalf("builds off still refuse: %v", err)
		}
	})
	t.Run("ErrPathRequired", func(t *testing.T) {
		_, err := db.SetBuild(ctx, "mygame", desk.BuildInput{})
		wantCode(t, err, desk.Invalid)
	})
}
