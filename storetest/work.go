package storetest

import (
	"context"
	"testing"

	"desk"
)

// The agents' work calls: Progress, IssueTail, OwnerEvents, Brief and
// ProjectSlugs, which every store answers alike.

// testOwnerEventsAreTheOwnersActivityOnly holds OwnerEvents to what a
// session is told: the owner's comments, verdicts, reports, status, plan
// steps, merges and parents, newest first, and nothing of the agents'.
func testOwnerEventsAreTheOwnersActivityOnly(t *testing.T, be *Backend) {
	db, mk := twoProjects(t, be)
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

// testProgressLandsStepAndCommentTogether holds Progress to one write: the
// step and the comment land together, or neither does.
func testProgressLandsStepAndCommentTogether(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("Lava tips")}, "owner")
	if _, err := db.SetPlan(ctx, is.ID, []desk.Step{{Text: "find"}, {Text: "fix"}}, nil, "claude"); err != nil {
		t.Fatal(err)
	}
	res, err := db.Progress(ctx, is.ID, 1, &desk.StepPatch{State: ptr("done")}, "found it in the mesher", "claude")
	if err != nil {
		t.Fatal(err)
	}
	if res.CommentID == 0 || res.Issue.Progress != (desk.Progress{Done: 1, Total: 2}) || res.Issue.CommentCount != 1 {
		t.Fatalf("progress answered comment %d, issue %+v", res.CommentID, res.Issue)
	}
	// A step that does not exist refuses the whole report: no comment.
	if _, err := db.Progress(ctx, is.ID, 9, &desk.StepPatch{State: ptr("done")}, "and this", "claude"); err == nil {
		t.Fatal("a report on step 9 of 2 passed")
	}
	if _, err := db.Progress(ctx, is.ID, 0, nil, "  ", "claude"); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("a report of nothing: %v", err)
	}
	res, err = db.Progress(ctx, is.ID, 0, nil, "only words", "claude")
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Issue(ctx, is.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Comments) != 2 || d.Comments[1].ID != res.CommentID || d.Comments[1].Text != "only words" || d.Plan.Steps[0].State != "done" {
		t.Fatalf("after the reports: %d comments, plan %+v", len(d.Comments), d.Plan)
	}
}

// testIssueTailKeepsTheNewest holds IssueTail to the newest comments and
// timeline entries, counting what it leaves out.
func testIssueTailKeepsTheNewest(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("Lava tips")}, "owner")
	for _, text := range []string{"one", "two", "three", "four", "five"} {
		if _, _, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "claude", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetStatus(ctx, is.ID, "open", "owner"); err != nil {
		t.Fatal(err)
	}
	whole, err := db.Issue(ctx, is.ID)
	if err != nil {
		t.Fatal(err)
	}
	tail, err := db.IssueTail(ctx, is.ID, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tail.Comments) != 2 || tail.Comments[0].Text != "four" || tail.Comments[1].Text != "five" || tail.EarlierComments != 3 {
		t.Fatalf("tail comments %+v, %d earlier", tail.Comments, tail.EarlierComments)
	}
	if len(tail.Activity) != 1 || tail.Activity[0].ID != whole.Activity[len(whole.Activity)-1].ID ||
		tail.EarlierActivity != len(whole.Activity)-1 {
		t.Fatalf("tail activity %+v, %d earlier of %d", tail.Activity, tail.EarlierActivity, len(whole.Activity))
	}
	none, err := db.IssueTail(ctx, is.ID, 0, 0)
	if err != nil || len(none.Comments) != 0 || none.EarlierComments != 5 || none.Title != "Lava tips" {
		t.Fatalf("an empty tail: %+v, %v", none, err)
	}
	if _, err := db.IssueTail(ctx, "MG-99", 1, 1); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("tail of no issue: %v", err)
	}
}

// testBriefCountsTheUnmergedAndTheHandoff holds Brief to what a session
// starts with: the unmerged issues by status, the latest handoff, the
// feed's position.
func testBriefCountsTheUnmergedAndTheHandoff(t *testing.T, be *Backend) {
	ctx := context.Background()
	db, mk := twoProjects(t, be)
	a := mk("Lava tips", "bug", "owner", "owner")
	b := mk("Lava tips again", "bug", "owner", "owner")
	mk("Elsewhere", "other", "owner", "owner")
	if _, err := db.SetStatus(ctx, a, "open", "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, a, []string{b}, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveHandoff(ctx, "mygame", "# Handoff\n\nthe mesher", "claude", ""); err != nil {
		t.Fatal(err)
	}
	br, err := db.Brief(ctx, "mygame")
	if err != nil {
		t.Fatal(err)
	}
	last, _ := db.LastSeq(ctx)
	if br.Project.Counts["open"] != 1 || br.Project.Counts["reported"] != 0 || br.Handoff == nil ||
		br.Handoff.Markdown != "# Handoff\n\nthe mesher" || br.Seq != last {
		t.Fatalf("brief: counts %v, handoff %+v, seq %d (feed at %d)", br.Project.Counts, br.Handoff, br.Seq, last)
	}
	slugs, err := db.ProjectSlugs(ctx)
	if err != nil || len(slugs) != 2 || slugs[0] != "mygame" || slugs[1] != "other" {
		t.Fatalf("slugs %v, %v", slugs, err)
	}
}
