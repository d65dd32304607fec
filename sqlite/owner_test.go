package sqlite_test

import (
	"context"
	"testing"

	"desk"
	"desk/sqlite"
)

func ownerEventsFixture(t *testing.T) (*sqlite.DB, func(title, kind, source, author string) string) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, p := range []desk.NewProject{{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, {Slug: "other", Name: "Other", Prefix: "OT"}} {
		if _, err := db.CreateProject(context.Background(), p, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(title, kind, source, author string) string {
		t.Helper()
		slug := "mygame"
		if kind == "other" {
			slug, kind = "other", "bug"
		}
		d, err := db.CreateIssue(context.Background(), slug, desk.IssueFields{Title: &title, Kind: &kind, Source: &source}, desk.CreateOptions{Author: author})
		if err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	return db, mk
}

// What OwnerEvents gives is held on both stores by storetest
// (OwnerEventsAreTheOwnersActivityOnly); the notify setting is the
// embedded desk's own.
func TestOwnerEventsFollowTheProjectsNotifySetting(t *testing.T) {
	db, mk := ownerEventsFixture(t)
	ctx := context.Background()
	check := mk("Lava tips", "check", "agent", "claude")
	start, _ := db.LastSeq(ctx)
	db.AddComment(ctx, check, desk.CommentInput{Author: "owner", Text: "hello"})
	db.AddComment(ctx, check, desk.CommentInput{Author: "owner", Verdict: "failed"})
	mk("Report", "bug", "game", "game")
	db.SetStatus(ctx, check, "open", "owner")
	kinds := func() []string {
		ev, err := db.OwnerEvents(ctx, "mygame", start, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ev.Events {
			out = append(out, e.Kind)
		}
		return out
	}
	if got := kinds(); len(got) != 4 {
		t.Fatalf("all on: %v", got)
	}
	for _, c := range []struct {
		patch desk.NotifyPatch
		want  string
	}{
		{desk.NotifyPatch{Comments: new(bool)}, "status,report,verdict"},
		{desk.NotifyPatch{Verdicts: new(bool)}, "status,report"},
		{desk.NotifyPatch{Reports: new(bool)}, "status"},
		{desk.NotifyPatch{Status: new(bool)}, ""},
	} {
		if _, err := db.UpdateProject(ctx, "mygame", desk.ProjectUpdate{Notify: &c.patch}, "owner"); err != nil {
			t.Fatal(err)
		}
		got := kinds()
		s := ""
		for i, k := range got {
			if i > 0 {
				s += ","
			}
			s += k
		}
		if s != c.want {
			t.Errorf("after %+v: %q, want %q", c.patch, s, c.want)
		}
	}
}

func TestBriefReadsCountsHandoffAndFeedPosition(t *testing.T) {
	db, mk := ownerEventsFixture(t)
	ctx := context.Background()
	mk("A", "bug", "game", "game")
	mk("B", "bug", "owner", "owner")
	id := mk("C", "check", "agent", "claude")
	db.AddComment(ctx, id, desk.CommentInput{Author: "owner", Verdict: "failed"})
	b, err := db.Brief(ctx, "mygame")
	if err != nil {
		t.Fatal(err)
	}
	if b.Project.Counts["reported"] != 2 || b.Project.Counts["failed"] != 1 || b.Handoff.Version != 0 {
		t.Errorf("brief %+v, handoff %+v", b.Project.Counts, b.Handoff)
	}
	db.SaveHandoff(ctx, "mygame", "## Next step\n\nship it\n", "claude", "")
	b, _ = db.Brief(ctx, "mygame")
	last, _ := db.LastSeq(ctx)
	if b.Handoff.Version != 1 || b.Handoff.Sections["Next step"] != "ship it" || b.Seq != last {
		t.Errorf("after a handoff: v%d %q seq %d (feed %d)", b.Handoff.Version, b.Handoff.Sections["Next step"], b.Seq, last)
	}
}

func TestProgressChangesAStepAndCommentsInOneTransaction(t *testing.T) {
	db, mk := ownerEventsFixture(t)
	ctx := context.Background()
	id := mk("Tips", "check", "agent", "claude")
	if _, err := db.SetPlan(ctx, id, []desk.Step{{Text: "a"}, {Text: "b"}}, nil, "claude"); err != nil {
		t.Fatal(err)
	}
	done := "done"
	res, err := db.Progress(ctx, id, 1, &desk.StepPatch{State: &done}, "landed a", "claude")
	if err != nil {
		t.Fatal(err)
	}
	if res.Issue.Status != "in_progress" || res.Issue.Progress.Done != 1 || res.CommentID == 0 {
		t.Errorf("progress answered %s %+v comment %d", res.Issue.Status, res.Issue.Progress, res.CommentID)
	}
	// A bad step refuses the whole call: no comment lands without it.
	if _, err := db.Progress(ctx, id, 9, &desk.StepPatch{State: &done}, "never posted", "claude"); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("step 9: %v", err)
	}
	d, _ := db.Issue(ctx, id)
	if len(d.Comments) != 1 {
		t.Errorf("%d comments after a refused progress; want 1", len(d.Comments))
	}
	if _, err := db.Progress(ctx, id, 0, nil, "  ", "claude"); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("nothing to do: %v", err)
	}
}

func TestOpenReadReadsWithOneConnectionAndStillWrites(t *testing.T) {
	dir := t.TempDir()
	if _, err := sqlite.OpenRead(context.Background(), dir, 0); err == nil {
		t.Fatal("OpenRead opened a folder without a desk")
	}
	db, mk := ownerEventsFixture(t)
	id := mk("Lava tips", "check", "agent", "claude")
	r, err := sqlite.OpenRead(context.Background(), db.Dir(), 512)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := r.Brief(context.Background(), "mygame")
	// An agent's check with no place to see it in waits in auto_check.
	if err != nil || b.Project.Counts["auto_check"] != 1 {
		t.Fatalf("brief through OpenRead: %+v %v", b, err)
	}
	// A write through it opens its write connection when it comes.
	if _, _, err := r.AddComment(context.Background(), id, desk.CommentInput{Author: "owner", Text: "from the reader"}); err != nil {
		t.Fatal(err)
	}
	ev, err := db.OwnerEvents(context.Background(), "mygame", 0, 10)
	if err != nil || len(ev.Events) == 0 || ev.Events[0].Text != "from the reader" {
		t.Errorf("the write is not seen: %+v %v", ev, err)
	}
}
