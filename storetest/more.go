package storetest

import (
	"context"
	"io"
	"testing"
	"time"

	"desk"
)

// BackfillSeed gives the project's default seed to its agent issues and
// checks that have none, tells how many, and refuses a project without a
// default seed.
func testBackfillSeedSeedsAgentIssuesAndChecksOnly(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	_, err := db.BackfillSeed(ctx, "mygame", "owner")
	wantCode(t, err, desk.Invalid)
	agentIssue, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("agent check")}, desk.CreateOptions{Agent: true, Author: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	owner := MustIssue(t, db, desk.IssueFields{Title: ptr("owner bug")}, "owner")
	check := MustIssue(t, db, desk.IssueFields{Title: ptr("owner check"), Kind: ptr("check")}, "owner")
	seed := ptr(int64(77))
	if _, err := db.UpdateProject(ctx, "mygame", desk.ProjectUpdate{DefaultSeed: &seed}, "owner"); err != nil {
		t.Fatal(err)
	}
	n, err := db.BackfillSeed(ctx, "mygame", "owner")
	if err != nil || n != 2 {
		t.Fatalf("backfilled %d, %v; want 2", n, err)
	}
	for id, want := range map[string]bool{agentIssue.ID: true, owner.ID: false, check.ID: true} {
		d, err := db.Issue(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Location.Seed != nil && *d.Location.Seed == 77; got != want {
			t.Errorf("%s: seed %v, want seeded %v", id, d.Location.Seed, want)
		}
	}
	if n, err := db.BackfillSeed(ctx, "mygame", "owner"); err != nil || n != 0 {
		t.Fatalf("second backfill %d, %v; want 0", n, err)
	}
	_, err = db.BackfillSeed(ctx, "nope", "owner")
	wantCode(t, err, desk.NotFound)
}

// BuildState answers what the last publication or clearing left.
func testBuildStateFollowsPublications(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	st, err := db.BuildState(ctx, "mygame")
	if err != nil || st.Build != nil || st.Enabled {
		t.Fatalf("fresh project: %+v %v", st, err)
	}
	if _, err := db.SetBuild(ctx, "mygame", desk.BuildInput{Path: "/games/mg/v1", Commit: "abc"}); err != nil {
		t.Fatal(err)
	}
	st, err = db.BuildState(ctx, "mygame")
	if err != nil || st.Build == nil || st.Build.Path != "/games/mg/v1" || st.Build.Number != 1 || !st.Enabled {
		t.Fatalf("after a build: %+v %v", st, err)
	}
	if _, err := db.ClearBuild(ctx, "mygame", false, "owner"); err != nil {
		t.Fatal(err)
	}
	st, _ = db.BuildState(ctx, "mygame")
	if st.Build != nil || !st.Enabled {
		t.Fatalf("after clearing: %+v", st)
	}
	if _, err := db.ClearBuild(ctx, "mygame", true, "owner"); err != nil {
		t.Fatal(err)
	}
	if st, _ = db.BuildState(ctx, "mygame"); st.Enabled {
		t.Fatalf("after turning builds off: %+v", st)
	}
	_, err = db.BuildState(ctx, "nope")
	wantCode(t, err, desk.NotFound)
}

// Attachment describes a file as the issue lists it, and OpenAttachment
// serves exactly its bytes.
func testAttachmentDescribesWhatOpenServes(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	data := []byte("line one\nline two\n")
	is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("log")}, desk.CreateOptions{
		Attachments: []desk.AttachmentInput{{Filename: "../run.log", Mime: "text/plain", Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	listed := is.Attachments[0]
	a, err := db.Attachment(ctx, listed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != listed.ID || a.Filename != "run.log" || a.Mime != "text/plain" || a.Size != int64(len(data)) || a.Issue != is.ID ||
		a.URL != listed.URL || a.IsImage {
		t.Fatalf("described %+v, listed %+v", a, listed)
	}
	_, rc, err := db.OpenAttachment(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(got) != string(data) {
		t.Fatalf("served %q, %v", got, err)
	}
	_, err = db.Attachment(ctx, a.ID+1000)
	wantCode(t, err, desk.NotFound)
}

// LastAgentTouch is the newest touch's id, the position a server follows
// touches from.
func testLastAgentTouchFollowsTouches(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("x")}, "owner")
	if n, err := db.LastAgentTouch(ctx); err != nil || n != 0 {
		t.Fatalf("no touch yet: %d %v", n, err)
	}
	for i := 0; i < 3; i++ {
		if err := db.AgentTouched(ctx, "claude", "", "/work/game", "MG-1"); err != nil {
			t.Fatal(err)
		}
	}
	last, err := db.LastAgentTouch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	touches, err := db.AgentTouchesAfter(ctx, 0)
	if err != nil || len(touches) != 3 || touches[2].ID != last {
		t.Fatalf("touches %d, last %d, %v", len(touches), last, err)
	}
	if after, _ := db.AgentTouchesAfter(ctx, last); len(after) != 0 {
		t.Fatalf("%d touches after the last", len(after))
	}
	if un, _ := db.UnmatchedAgentTouches(ctx, time.Now().Add(-time.Hour)); len(un) != 3 {
		t.Fatalf("%d unmatched touches", len(un))
	}
}
