package web_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"desk"
)

// sample fills a desk with a project that looks like a real game's: checks
// waiting for the owner, game reports with locations, agent plans, parents,
// comments, a build and a handoff. The browser tests, the screenshot and
// the demo use it.
type sample struct {
	Slug   string
	Prefix string
	// IDs of issues the tests pick out.
	Check, Report, Parent, Child, Plain string
}

func ptr[T any](v T) *T { return &v }

func seedSample(tb testing.TB, svc desk.Service) sample {
	tb.Helper()
	ctx := context.Background()
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	_, err := svc.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "Ember Isles", Prefix: "MG"}, "owner")
	must(err)
	_, err = svc.CreateProject(ctx, desk.NewProject{Slug: "tools", Name: "Level tools", Prefix: "LT"}, "owner")
	must(err)

	create := func(f desk.IssueFields, agent bool, author string) string {
		tb.Helper()
		d, err := svc.CreateIssue(ctx, "mygame", f, desk.CreateOptions{Author: author, Agent: agent})
		must(err)
		return d.ID
	}
	s := sample{Slug: "mygame", Prefix: "MG"}

	s.Parent = create(desk.IssueFields{Title: ptr("Lava flows end in square blocks"), Kind: ptr("task"), Priority: ptr("p1"),
		Area: ptr("terrain"), Milestone: ptr("World 1"), Size: ptr("L"),
		Body: ptr("The lava flows in the **Ember Rift** stop in hard square ends.\n\n- round the tips\n- clamp the flow to the ground")}, false, "owner")
	s.Check = create(desk.IssueFields{Title: ptr("Lava tips are rounded now"), Kind: ptr("check"), Priority: ptr("p1"), Area: ptr("terrain"),
		Tags: ptr([]string{"lava", "visual"}), Size: ptr("M"), Milestone: ptr("World 1"),
		Body:     ptr("Look at the east flow from the ridge. The tip should be **round**, not square; see " + "MG-1" + "."),
		Commands: &[]desk.LocationCommand{{Command: "/goto 1240 12 -380 yaw 90; /time 17:30", Label: "the east flow"}, {Command: "/goto 1310 20 -402", Label: "the ridge above"}},
	}, true, "claude")
	_, err = svc.SetPlan(ctx, s.Check, []desk.Step{{Text: "Round the flow tips"}, {Text: "Clamp the flow to the ground"}, {Text: "Stage shot from the ridge"}}, ptr("stage shot 12 from the ridge, at dusk"), "claude")
	must(err)
	for n := 1; n <= 3; n++ {
		_, err = svc.UpdateStep(ctx, s.Check, n, desk.StepPatch{State: ptr("done"), Commit: ptr(fmt.Sprintf("5ea28d%d", n))}, "claude")
		must(err)
	}
	_, err = svc.SetStatus(ctx, s.Check, "to_check", "claude")
	must(err)
	_, err = svc.SetParent(ctx, s.Check, &s.Parent, "owner")
	must(err)
	s.Child = s.Check

	s.Report = create(desk.IssueFields{Title: ptr("Stuck in the rock near the harbor"), Kind: ptr("bug"), Source: ptr("game"), Priority: ptr("p0"),
		Area: ptr("collision"), Tags: ptr([]string{"harbor"}),
		Location: &desk.Location{Commands: []desk.LocationCommand{{Command: "/goto 880 4 -1210 yaw 180"}}, Place: "Harbor", Time: "09:10"},
		Body:     ptr("Walked into the rock left of the pier and could not get out.")}, false, "game")
	_, _, err = svc.AddComment(ctx, s.Report, desk.CommentInput{Author: "codex", Text: "The collider of `rock_07` is inverted; fixed in 91b2c4e."})
	must(err)

	more := []struct {
		title, kind, status, prio, area, size string
	}{
		{"Fog pops in at the cliff edge", "bug", "reported", "p2", "rendering", ""},
		{"Boat wake disappears at high speed", "bug", "open", "p2", "water", "S"},
		{"Add a lantern to the night market", "idea", "reported", "p3", "props", ""},
		{"Footstep sounds on wet wood", "task", "in_progress", "p2", "audio", "M"},
		{"Shadows flicker under the bridge", "check", "auto_check", "p1", "rendering", "S"},
		{"Crab AI walks into walls", "bug", "failed", "p1", "ai", "M"},
		{"Save before the boss door", "task", "open", "p2", "", "S"},
		{"Map marker for the lighthouse", "idea", "parked", "p3", "ui", ""},
		{"Rope bridge sways too much", "check", "passed", "p2", "physics", "S"},
	}
	for _, m := range more {
		id := create(desk.IssueFields{Title: ptr(m.title), Kind: ptr(m.kind), Priority: ptr(m.prio), Area: ptr(m.area), Size: ptr(m.size)}, false, "owner")
		if m.status != "reported" {
			_, err := svc.SetStatus(ctx, id, m.status, "owner")
			must(err)
		}
		if s.Plain == "" {
			s.Plain = id
		}
	}
	_, err = svc.SaveHandoff(ctx, "mygame", "## State\n\nLava tips are rounded; the check MG-2 waits for you.\n\n## Where work stopped\n\nThe flow clamp on slopes steeper than 40°.\n\n## Verified\n\n- stage shot 12\n\n## Next step\n\nSteep slopes, then the harbor collider.\n\n## Traps\n\n`lava_mesh` is generated at load: do not edit the asset.\n", "claude", "after the lava work")
	must(err)
	_, err = svc.SetBuild(ctx, "mygame", desk.BuildInput{Path: "/nonexistent/builds/ember-isles-0.4.2", Label: "nightly 42", Commit: "5ea28d3", Author: "ci"})
	must(err)
	return s
}

var (
	benchAreas  = []string{"terrain", "water", "rendering", "audio", "ai", "ui", "physics", "props", "collision", ""}
	benchWords  = []string{"lava", "fog", "harbor", "bridge", "crab", "lantern", "rope", "cliff", "boat", "market", "shadow", "wake", "pier", "ridge"}
	benchStatus = []string{"reported", "open", "in_progress", "auto_check", "to_check", "failed", "open", "reported"}
)

// seedLarge adds n issues to the project, with the same data on every run
// (a fixed random seed), for the benchmark's large desk.
func seedLarge(tb testing.TB, svc desk.Service, slug string, n int) {
	tb.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(42, 2026))
	for i := 0; i < n; i++ {
		w1, w2 := benchWords[rng.IntN(len(benchWords))], benchWords[rng.IntN(len(benchWords))]
		f := desk.IssueFields{
			Title:    ptr(fmt.Sprintf("%s near the %s, case %d", w1, w2, i)),
			Kind:     ptr(desk.Kinds[rng.IntN(len(desk.Kinds))]),
			Priority: ptr(desk.Priorities[rng.IntN(len(desk.Priorities))]),
			Area:     ptr(benchAreas[rng.IntN(len(benchAreas))]),
			Size:     ptr([]string{"", "S", "M", "L"}[rng.IntN(4)]),
			Tags:     ptr([]string{w1}),
			Body:     ptr(fmt.Sprintf("Seen at the %s after the %s patch.", w2, w1)),
		}
		d, err := svc.CreateIssue(ctx, slug, f, desk.CreateOptions{Author: "owner"})
		if err != nil {
			tb.Fatal(err)
		}
		if st := benchStatus[rng.IntN(len(benchStatus))]; st != "reported" && st != "to_check" {
			if _, err := svc.SetStatus(ctx, d.ID, st, "owner"); err != nil {
				tb.Fatal(err)
			}
		}
	}
}
