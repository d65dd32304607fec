package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"desk"
)

func testProjects(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
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

func testNumbersAreNeverReused(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
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

func testProjectOverview(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
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

// The projects list counts what each project's overview counts: merged
// issues are not counted, in any status.
func testProjectsCountWhatTheOverviewCounts(t *testing.T, be *Backend) {
	db, mk := twoProjects(t, be)
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
