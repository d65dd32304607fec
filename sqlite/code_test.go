package sqlite_test

import (
	"context"
	"desk"
	"desk/code/folderstore"
	"path/filepath"
	"strings"
	"testing"

	"desk/code"
	"desk/code/codetest"
)

func TestCodeStore(t *testing.T) {
	codetest.Store(t, func(t *testing.T) code.Store { return MustOpen(t).Code() })
}

func TestCodeService(t *testing.T) {
	codetest.Service(t, func(t *testing.T) codetest.Backend {
		db := MustOpen(t)
		return codetest.Backend{Store: db.Code(), Objects: folderstore.New(filepath.Join(db.Dir(), "code"))}
	})
}

// A landing whose change names an issue adds a "landed" entry to the
// issue's timeline in the same transaction, and the issue lists it.
func TestLandingRecordedOnIssue(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("Fix the jump")}, "owner")
	other := MustIssue(t, db, desk.IssueFields{Title: ptr("Unrelated")}, "owner")
	svc := code.NewService(db.Code(), folderstore.New(filepath.Join(db.Dir(), "code")))
	repo, err := svc.CreateRepo(ctx, "acme/game", "mygame")
	if err != nil {
		t.Fatal(err)
	}
	r := svc.Repository(repo)
	row, err := r.Commit(ctx, []code.FileData{{Path: "jump.go", Data: []byte("package jump\n")}}, code.Meta{Author: "agent-1", Message: "jump: land on the ledge\n\nmore", Intents: []string{is.ID, "ZZ-9"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Land(ctx, row.ID, "agent-1"); err != nil {
		t.Fatal(err)
	}
	d, err := db.Issue(ctx, is.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Landings) != 1 {
		t.Fatalf("landings = %+v", d.Landings)
	}
	l := d.Landings[0]
	if l.Repo != "acme/game" || l.Seq != 1 || l.Change != row.ID.String() || l.Message != "jump: land on the ledge" || l.LandedBy != "agent-1" || l.Rebased {
		t.Fatalf("landing = %+v", l)
	}
	last := d.Activity[len(d.Activity)-1]
	if last.Action != desk.ActLanded || last.Actor != "agent-1" {
		t.Fatalf("the last timeline entry = %+v", last)
	}
	od, _ := db.Issue(ctx, other.ID)
	if od.Landings == nil || len(od.Landings) != 0 {
		t.Fatalf("an issue with no landing lists %v, want []", od.Landings)
	}
	b, _ := od.MarshalJSON()
	if !strings.Contains(string(b), `"landings":[]`) {
		t.Fatalf("the JSON of an issue with no landing: %s", b)
	}
	// The tail the agents read lists the landings too.
	tail, err := db.IssueTail(ctx, is.ID, 1, 1)
	if err != nil || len(tail.Landings) != 1 {
		t.Fatalf("tail landings = %+v, %v", tail, err)
	}
	// A plan step carries the change id as its commit.
	if _, err := db.SetPlan(ctx, is.ID, []desk.Step{{Text: "land it", State: desk.StepDone, Commit: row.ID.String()}}, nil, "agent-1"); err != nil {
		t.Fatal(err)
	}
	d, _ = db.Issue(ctx, is.ID)
	if d.Plan.Steps[0].Commit != row.ID.String() {
		t.Fatalf("the step's commit = %q", d.Plan.Steps[0].Commit)
	}
}

// An open change sent and a landing each add a code row to the feed, with
// the project the repository is linked to, so the pages that show the log
// and the overlaps read them again without a reload.
func TestCodeFeedRows(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	svc := code.NewService(db.Code(), folderstore.New(filepath.Join(db.Dir(), "code")))
	repo, err := svc.CreateRepo(ctx, "acme/game", "mygame")
	if err != nil {
		t.Fatal(err)
	}
	r := svc.Repository(repo)
	row, err := r.Commit(ctx, []code.FileData{{Path: "a.go", Data: []byte("package a\n")}}, code.Meta{Author: "agent-1", Message: "a"})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := db.Changes(ctx, desk.ChangeFilter{Limit: 1000})
	if _, err := r.IndexOpen(ctx, row.ID, "ws-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Land(ctx, row.ID, "owner"); err != nil {
		t.Fatal(err)
	}
	all, _ := db.Changes(ctx, desk.ChangeFilter{Limit: 1000})
	var got []string
	for _, c := range all[len(before):] {
		if c.Type == desk.ChangeCode {
			got = append(got, c.Project+" "+c.Action+" "+c.Actor)
		}
	}
	if strings.Join(got, ", ") != "mygame sent agent-1, mygame landed owner" {
		t.Fatalf("the feed's code rows = %q", got)
	}
	if !all[len(all)-1].IsLive() {
		t.Fatal("a landing's row is not a live row: the page would reload everything for it")
	}
}
