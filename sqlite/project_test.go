package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"desk/sqlite"

	"desk"
)

func TestProjects(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	t.Run("Create", func(t *testing.T) {
		p, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame"}, "owner")
		if err != nil {
			t.Fatal(err)
		}
		if p.Prefix != "MY" || !p.Notify.Comments || p.Build != nil || p.BuildsEnabled {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("ErrSlugTaken", func(t *testing.T) {
		_, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Prefix: "ZZ"}, "owner")
		wantCode(t, err, desk.Conflict)
	})
	t.Run("ErrPrefixTaken", func(t *testing.T) {
		_, err := db.CreateProject(ctx, desk.NewProject{Slug: "other", Prefix: "my"}, "owner")
		wantCode(t, err, desk.Conflict)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, np := range []desk.NewProject{{Slug: "My Game"}, {Slug: "-x"}, {Slug: "ok", Prefix: "1A"}, {Slug: "ok", Prefix: "TOOLONGPFX"}} {
			_, err := db.CreateProject(ctx, np, "owner")
			wantCode(t, err, desk.Invalid)
		}
		ps, _ := db.Projects(ctx)
		if len(ps) != 1 {
			t.Fatalf("a refused project was created: %d projects", len(ps))
		}
	})
	t.Run("Update", func(t *testing.T) {
		seed := ptr(int64(42))
		lead := ptr("codex")
		p, err := db.UpdateProject(ctx, "mygame", desk.ProjectUpdate{
			Name: ptr("My Game"), DefaultSeed: &seed, Lead: &lead,
			Notify: &desk.NotifyPatch{Comments: ptr(false)},
		}, "owner")
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != "My Game" || *p.DefaultSeed != 42 || *p.Lead != "codex" || p.Notify.Comments || !p.Notify.Verdicts {
			t.Fatalf("%+v", p)
		}
		var none *int64
		var noLead *string
		p, err = db.UpdateProject(ctx, "mygame", desk.ProjectUpdate{DefaultSeed: &none, Lead: &noLead}, "owner")
		if err != nil || p.DefaultSeed != nil || p.Lead != nil {
			t.Fatalf("clearing: %+v %v", p, err)
		}
	})
	t.Run("ErrLead", func(t *testing.T) {
		for _, l := range []string{"opencode", "vim"} {
			lead := ptr(l)
			_, err := db.UpdateProject(ctx, "mygame", desk.ProjectUpdate{Lead: &lead}, "owner")
			wantCode(t, err, desk.Invalid)
		}
	})
	t.Run("ErrUnknown", func(t *testing.T) {
		_, err := db.Project(ctx, "nope")
		wantCode(t, err, desk.NotFound)
	})
}

func TestNumbersAreNeverReused(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("one")}, "owner")
	two := MustIssue(t, db, desk.IssueFields{Title: ptr("two")}, "owner")
	if err := db.DeleteIssue(ctx, two.ID, "owner"); err != nil {
		t.Fatal(err)
	}
	three := MustIssue(t, db, desk.IssueFields{Title: ptr("three")}, "owner")
	if three.ID != "MG-3" {
		t.Fatalf("after deleting MG-2 the next issue is %s", three.ID)
	}
	p, _ := db.Project(ctx, "mygame")
	if p.IssueCount != 3 || p.Counts["reported"] != 2 {
		t.Fatalf("issue_count %d, counts %v", p.IssueCount, p.Counts)
	}
}

func TestProjectOverview(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("a"), Area: ptr("terrain"), Tags: &[]string{"lava"}}, "owner")
	MustIssue(t, db, desk.IssueFields{Title: ptr("b"), Area: ptr("terrain"), Tags: &[]string{"lava", "ui"}}, "owner")
	MustIssue(t, db, desk.IssueFields{Title: ptr("c"), Area: ptr("ai")}, "owner")
	d, err := db.Project(ctx, "mygame")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Areas) != 2 || d.Areas[0] != "terrain" || d.Tags[0] != "lava" || d.LastChange == "" {
		t.Fatalf("%+v", d)
	}
	// Once the project's issues are held in memory, the overview comes
	// from there, and must say the same.
	db.Issues(ctx, "mygame", desk.IssueFilter{})
	held, err := db.Project(ctx, "mygame")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(held, d) {
		t.Fatalf("overview from memory %+v\nfrom SQL %+v", held, d)
	}
}

// The overview a process counts from the issues it holds is kept while the
// issues stay as they were, and follows another process's changes: those
// it counts again whole (an area, tags, a merge, a new issue) and those it
// moves the kept counts by (a status, a comment).
func TestHeldOverviewFollowsChanges(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	a := MustIssue(t, db, desk.IssueFields{Title: ptr("a"), Area: ptr("terrain"), Tags: &[]string{"lava"}}, "owner")
	b := MustIssue(t, db, desk.IssueFields{Title: ptr("b"), Area: ptr("ai")}, "owner")
	c := MustIssue(t, db, desk.IssueFields{Title: ptr("c"), Area: ptr("ai")}, "owner")
	db.Issues(ctx, "mygame", desk.IssueFilter{}) // now held
	other, err := sqlite.Open(ctx, db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	update := func(id string, f desk.IssueFields) func() error {
		return func() error { _, err := other.UpdateIssue(ctx, id, f, "owner"); return err }
	}
	status := func(id, s string) func() error {
		return func() error { _, err := other.SetStatus(ctx, id, s, "owner"); return err }
	}
	comment := func(id string) func() error {
		return func() error {
			_, _, err := other.AddComment(ctx, id, desk.CommentInput{Author: "agent", Text: "looked"})
			return err
		}
	}
	for i, change := range []func() error{
		nil,
		update(a.ID, desk.IssueFields{Area: ptr("ui"), Tags: &[]string{"ice", "Ice"}}),
		status(a.ID, "closed"),
		status(b.ID, "open"),
		comment(c.ID),
		status(c.ID, "in_progress"),
		comment(a.ID),
		update(b.ID, desk.IssueFields{Area: ptr("audio"), Status: ptr("to_check")}),
		update(a.ID, desk.IssueFields{Area: ptr("AI")}),
		func() error { _, err := other.Merge(ctx, b.ID, []string{c.ID}, "owner"); return err },
		status(c.ID, "open"), // merged: counted in no status
		comment(b.ID),
		func() error { _, err := other.Unmerge(ctx, c.ID, "owner"); return err },
		func() error {
			_, err := other.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("d"), Status: ptr("open")}, desk.CreateOptions{Author: "owner"})
			return err
		},
		status(b.ID, "closed"),
	} {
		if change != nil {
			if err := change(); err != nil {
				t.Fatalf("change %d: %v", i, err)
			}
		}
		for range 2 { // counted, then kept
			held, err := db.Project(ctx, "mygame")
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := other.Project(ctx, "mygame") // other holds nothing: read from SQL
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(held.Counts, fresh.Counts) || !reflect.DeepEqual(held.Areas, fresh.Areas) ||
				!reflect.DeepEqual(held.Tags, fresh.Tags) || held.LastChange != fresh.LastChange {
				t.Fatalf("change %d: held %v %v %v %s\nfrom SQL %v %v %v %s", i, held.Counts, held.Areas, held.Tags, held.LastChange,
					fresh.Counts, fresh.Areas, fresh.Tags, fresh.LastChange)
			}
		}
	}
}

// The projects list counts what each project's overview counts: merged
// issues are not counted, in any status.
func TestProjectsCountWhatTheOverviewCounts(t *testing.T) {
	db, mk := ownerEventsFixture(t)
	ctx := context.Background()
	target := mk("Crash on load", "bug", "owner", "owner")
	dup := mk("Crash when loading", "bug", "owner", "owner")
	other := mk("Lost save", "check", "agent", "agent")
	mk("Elsewhere", "other", "owner", "owner")
	if _, err := db.SetStatus(ctx, dup, "parked", "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, target, []string{dup}, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetStatus(ctx, other, "open", "owner"); err != nil {
		t.Fatal(err)
	}
	ps, err := db.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		d, err := db.Project(ctx, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(p.Counts) != fmt.Sprint(d.Counts) {
			t.Errorf("%s: listed with %v; its overview counts %v", p.Slug, p.Counts, d.Counts)
		}
		if p.Slug == "mygame" && (p.Counts["parked"] != 0 || p.Counts["reported"] != 1 || p.Counts["open"] != 1) {
			t.Errorf("mygame counts %v; want the merged issue left out", p.Counts)
		}
	}
}
