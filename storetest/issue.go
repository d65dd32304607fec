package storetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"desk"
)

func testCreateIssue(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	t.Run("OwnerDefaults", func(t *testing.T) {
		is := MustIssue(t, db, desk.IssueFields{Title: ptr("Stuck in rock")}, "")
		if is.Kind != "bug" || is.Status != "reported" || is.Priority != "p2" || is.Source != "owner" || is.ClosedAt != nil {
			t.Fatalf("%+v", is.Issue)
		}
		if len(is.Activity) != 1 || is.Activity[0].Action != "created" || is.Activity[0].Actor != "owner" {
			t.Fatalf("activity %+v", is.Activity)
		}
		// One shape on every backend: an issue nothing landed for lists [].
		if is.Landings == nil || len(is.Landings) != 0 {
			t.Fatalf("landings = %#v, want []", is.Landings)
		}
		again, err := db.Issue(ctx, is.ID)
		if err != nil || again.Landings == nil {
			t.Fatalf("read again: landings = %#v, %v", again, err)
		}
	})
	t.Run("AgentCheckWithoutCommandWaitsInAutoCheck", func(t *testing.T) {
		is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("Verify tips")}, desk.CreateOptions{Author: "claude", Agent: true})
		if err != nil {
			t.Fatal(err)
		}
		if is.Kind != "check" || is.Source != "agent" || is.Status != "auto_check" {
			t.Fatalf("%+v", is.Issue)
		}
	})
	t.Run("AgentCheckWithCommandGoesToOwner", func(t *testing.T) {
		is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("Verify tips"), Command: ptr("/goto 1 2 3")},
			desk.CreateOptions{Author: "claude", Agent: true})
		if err != nil {
			t.Fatal(err)
		}
		if is.Status != "to_check" || is.Location.Command != "/goto 1 2 3" {
			t.Fatalf("%+v", is.Issue)
		}
	})
	t.Run("ErrAgentExplicitToCheckWithoutCommand", func(t *testing.T) {
		_, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("x"), Status: ptr("to_check")}, desk.CreateOptions{Author: "claude", Agent: true})
		wantCode(t, err, desk.Conflict)
		if !strings.Contains(err.Error(), "location command") {
			t.Fatalf("refusal does not say what is missing: %v", err)
		}
	})
	t.Run("ErrAgentCreatesPassed", func(t *testing.T) {
		_, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("x"), Status: ptr("passed")}, desk.CreateOptions{Author: "claude"})
		wantCode(t, err, desk.Forbidden)
	})
	t.Run("OwnerCreatesClosedSetsClosedAt", func(t *testing.T) {
		is := MustIssue(t, db, desk.IssueFields{Title: ptr("done"), Status: ptr("closed")}, "owner")
		if is.ClosedAt == nil {
			t.Fatal("closed_at not set")
		}
	})
	t.Run("ErrTitleRequired", func(t *testing.T) {
		_, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{}, desk.CreateOptions{})
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrUnknownProject", func(t *testing.T) {
		_, err := db.CreateIssue(ctx, "nope", desk.IssueFields{Title: ptr("x")}, desk.CreateOptions{})
		wantCode(t, err, desk.NotFound)
	})
	t.Run("SkipDuplicateExternalRef", func(t *testing.T) {
		f := desk.IssueFields{Title: ptr("from TODO"), ExternalRef: ptr("todo:12")}
		first, err := db.CreateIssue(ctx, "mygame", f, desk.CreateOptions{SkipDuplicate: true})
		if err != nil || first == nil {
			t.Fatal(err)
		}
		again, err := db.CreateIssue(ctx, "mygame", f, desk.CreateOptions{SkipDuplicate: true})
		if err != nil || again != nil {
			t.Fatalf("duplicate created: %+v %v", again, err)
		}
	})
}

func testDefaultSeed(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	seed := ptr(int64(1234))
	if _, err := db.UpdateProject(ctx, "mygame", desk.ProjectUpdate{DefaultSeed: &seed}, "owner"); err != nil {
		t.Fatal(err)
	}
	agent, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("check"), Command: ptr("/goto 1 2")}, desk.CreateOptions{Agent: true, Author: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if agent.Location.Seed == nil || *agent.Location.Seed != 1234 {
		t.Fatalf("agent check did not inherit the seed: %+v", agent.Location)
	}
	game := MustIssue(t, db, desk.IssueFields{Title: ptr("report"), Source: ptr("game"), Command: ptr("/goto 5")}, "game")
	if game.Location.Seed != nil {
		t.Fatalf("a game report got the default seed")
	}
	seeded, err := db.QueueCommand(ctx, "", desk.CommandInput{Issue: agent.ID})
	if err != nil || seeded.Command != "/goto 1 2 seed 1234" {
		t.Fatalf("sent %q, %v", seeded.Command, err)
	}
}

func testStatusRules(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("tips")}, "owner")
	t.Run("ErrAgentPasses", func(t *testing.T) {
		for _, actor := range []string{"claude", "agent", "game"} {
			_, err := db.SetStatus(ctx, is.ID, "passed", actor)
			wantCode(t, err, desk.Forbidden)
		}
		_, err := db.UpdateIssue(ctx, is.ID, desk.IssueFields{Status: ptr("passed")}, "codex")
		wantCode(t, err, desk.Forbidden)
	})
	t.Run("ErrAgentHandsOverWithoutCommand", func(t *testing.T) {
		_, err := db.SetStatus(ctx, is.ID, "to_check", "claude")
		wantCode(t, err, desk.Conflict)
	})
	t.Run("ErrAgentHandsOverOpenPlan", func(t *testing.T) {
		if _, err := db.UpdateIssue(ctx, is.ID, desk.IssueFields{Command: ptr("/goto 1")}, "claude"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SetPlan(ctx, is.ID, []desk.Step{{Text: "a"}, {Text: "b"}}, nil, "claude"); err != nil {
			t.Fatal(err)
		}
		_, err := db.SetStatus(ctx, is.ID, "to_check", "claude")
		wantCode(t, err, desk.Conflict)
		if !strings.Contains(err.Error(), "open plan steps (1, 2)") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("OwnerMayHandOverAnything", func(t *testing.T) {
		d, err := db.SetStatus(ctx, is.ID, "to_check", "owner")
		if err != nil || d.Status != "to_check" {
			t.Fatal(err)
		}
	})
	t.Run("PassedSetsClosedAtAndLeavingClearsIt", func(t *testing.T) {
		d, err := db.SetStatus(ctx, is.ID, "passed", "owner")
		if err != nil || d.ClosedAt == nil {
			t.Fatalf("%v %+v", err, d.ClosedAt)
		}
		d, err = db.SetStatus(ctx, is.ID, "open", "owner")
		if err != nil || d.ClosedAt != nil {
			t.Fatalf("%v %+v", err, d.ClosedAt)
		}
		full, _ := db.Issue(ctx, is.ID)
		last := full.Activity[len(full.Activity)-1]
		var detail map[string]any
		json.Unmarshal(last.Detail, &detail)
		if last.Action != "status" || detail["from"] != "passed" || detail["to"] != "open" {
			t.Fatalf("activity %s %s", last.Action, last.Detail)
		}
	})
	t.Run("ErrUnknownStatus", func(t *testing.T) {
		_, err := db.SetStatus(ctx, is.ID, "done", "owner")
		wantCode(t, err, desk.Invalid)
	})
}

func testUpdateIssue(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("lava bad"), Body: ptr("fix")}, "owner")
	t.Run("AgentClarifyKeepsOwnerWording", func(t *testing.T) {
		_, err := db.UpdateIssue(ctx, is.ID, desk.IssueFields{Title: ptr("Lava flows end in square tips"), Body: ptr("Expected rounded tips.")}, "claude")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateIssue(ctx, is.ID, desk.IssueFields{Title: ptr("Lava tips are square")}, "claude"); err != nil {
			t.Fatal(err)
		}
		full, _ := db.Issue(ctx, is.ID)
		var originals int
		for _, a := range full.Activity {
			if a.Action != "edited" {
				continue
			}
			var det struct {
				Changes       map[string]struct{ From, To any }
				OwnerOriginal *struct{ Title, Body string } `json:"owner_original"`
			}
			json.Unmarshal(a.Detail, &det)
			if det.OwnerOriginal != nil {
				originals++
				if det.OwnerOriginal.Title != "lava bad" || det.OwnerOriginal.Body != "fix" {
					t.Fatalf("owner_original = %+v", det.OwnerOriginal)
				}
			}
			if det.Changes["title"].From == nil {
				t.Fatalf("edit lacks the previous title: %s", a.Detail)
			}
		}
		if originals != 1 {
			t.Fatalf("owner_original recorded %d times, want once", originals)
		}
	})
	t.Run("CommandsReplaceAndCommandSetsFirst", func(t *testing.T) {
		d, err := db.UpdateIssue(ctx, is.ID, desk.IssueFields{Commands: &[]desk.LocationCommand{{Command: "/goto 1", Label: "harbor"}, {Command: "/goto 2"}}}, "owner")
		if err != nil || d.Location.Command != "/goto 1" || len(d.Location.Commands) != 2 {
			t.Fatalf("%+v %v", d.Location, err)
		}
		d, err = db.UpdateIssue(ctx, is.ID, desk.IssueFields{Command: ptr("/goto 9")}, "owner")
		if err != nil || d.Location.Command != "/goto 9" || d.Location.Commands[0].Label != "harbor" || len(d.Location.Commands) != 2 {
			t.Fatalf("%+v %v", d.Location, err)
		}
		d, err = db.UpdateIssue(ctx, is.ID, desk.IssueFields{Command: ptr("")}, "owner")
		if err != nil || d.Location.Command != "/goto 2" || len(d.Location.Commands) != 1 {
			t.Fatalf("empty command did not remove the first: %+v %v", d.Location, err)
		}
	})
	t.Run("NoChangeWritesNothing", func(t *testing.T) {
		before, _ := db.Issue(ctx, is.ID)
		_, err := db.UpdateIssue(ctx, is.ID, desk.IssueFields{Title: ptr(before.Title)}, "owner")
		after, _ := db.Issue(ctx, is.ID)
		if err != nil || len(after.Activity) != len(before.Activity) || after.UpdatedAt != before.UpdatedAt {
			t.Fatalf("a no-op edit wrote: %d → %d entries", len(before.Activity), len(after.Activity))
		}
	})
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdac\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
