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

func TestOwnerEventsAreTheOwnersActivityOnly(t *testing.T) {
	db, mk := ownerEventsFixture(t)
	ctx := context.Background()
	check := mk("Lava tips", "check", "agent", "claude")
	start, err := db.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	comment := func(id, author, text, verdict string) {
		t.Helper()
		if _, _, err := db.AddComment(ctx, id, desk.CommentInput{Author: author, Text: text, Verdict: verdict}); err != nil {
			t.Fatal(err)
		}
	}
	comment(check, "claude", "rounded", "")                  // agent comment: no
	mk("Agent idea", "idea", "agent", "claude")              // agent issue: no
	mk("Owner-sourced by an agent", "bug", "owner", "codex") // an agent filing in the owner's name: no
	mk("Elsewhere", "other", "owner", "owner")               // other project: no
	comment(check, "Owner", "square", "")                    // comment (any case of owner)
	game := mk("Stuck", "bug", "game", "game")               // report from the game
	mine := mk("Owner's report", "bug", "owner", "owner")    // report from the owner
	comment(check, "owner", "still square", "failed")        // verdict; its status change is not separate
	if _, err := db.SetStatus(ctx, game, "open", "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetStatus(ctx, game, "in_progress", "claude"); err != nil { // agent status: no
		t.Fatal(err)
	}
	if _, err := db.SetPlan(ctx, check, []desk.Step{{Text: "a"}, {Text: "b"}}, nil, "owner"); err != nil { // plan written: no
		t.Fatal(err)
	}
	done, note := "done", "nice"
	if _, err := db.UpdateStep(ctx, check, 2, desk.StepPatch{State: &done, Note: &note}, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, check, []string{mine}, "owner"); err != nil { // the owner's report is merged away: its report goes
		t.Fatal(err)
	}
	p := check
	if _, err := db.SetParent(ctx, game, &p, "owner"); err != nil {
		t.Fatal(err)
	}

	ev, err := db.OwnerEvents(ctx, "mygame", start, 50)
	if err != nil {
		t.Fatal(err)
	}
	type got struct{ issue, kind, text, from, to, other string }
	var have []got
	for _, e := range ev.Events {
		have = append(have, got{e.Issue, e.Kind, e.Text, e.From, e.To, e.Other})
	}
	want := []got{
		{game, desk.EventParent, "", "", "", check},
		{check, desk.EventMerged, "", "", "", mine},
		{check, desk.EventPlan, "nice", "todo", "done", ""},
		{game, desk.EventStatus, "", "reported", "open", ""},
		{check, desk.EventVerdict, "still square", "", "", ""},
		{game, desk.EventReport, "", "", "", ""},
		{check, desk.EventComment, "square", "", "", ""},
	}
	if len(have) != len(want) {
		t.Fatalf("events:\n%+v\nwant:\n%+v", have, want)
	}
	for i := range want {
		if have[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, have[i], want[i])
		}
	}
	if ev.Project.Name != "MyGame" || ev.More != 0 {
		t.Errorf("project %q, more %d", ev.Project.Name, ev.More)
	}
	last, _ := db.LastSeq(ctx)
	if ev.Last != last {
		t.Errorf("Last = %d, the feed ends at %d", ev.Last, last)
	}
	if ev.Events[4].Verdict != "failed" || ev.Events[5].Source != "game" || ev.Events[4].Actor != "owner" {
		t.Errorf("verdict %+v, report %+v", ev.Events[4], ev.Events[5])
	}

	// The limit keeps the newest and counts the rest.
	ev, err = db.OwnerEvents(ctx, "mygame", start, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Events) != 3 || ev.More != 4 || ev.Events[0].Kind != desk.EventParent {
		t.Errorf("limit 3: %d events, %d more", len(ev.Events), ev.More)
	}
	// From the end of the feed there is nothing.
	ev, err = db.OwnerEvents(ctx, "mygame", last, 10)
	if err != nil || len(ev.Events) != 0 || ev.Last != last {
		t.Errorf("from the end: %+v, %v", ev, err)
	}
	if _, err := db.OwnerEvents(ctx, "nope", 0, 10); desk.ErrorCode(err) != desk.NotFound {
		t.Errorf("unknown project: %v", err)
	}
}

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
