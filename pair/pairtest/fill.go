package pairtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"desk/pair"
)

// Fill makes a pair on folder in project and gives it one of everything a
// pair holds, for tests that look at every answer about pairs: the
// writer's claim and a refused second claim, letters both ways (some
// read), notes, tasks open, done and dropped, a phase change, patches
// reserved, sealed, verified and applied, and evidence passed and failed.
// Its members are opencode (the writer) and codex (the critic); it runs
// semi, so that the owner's word is still missing. folder must exist; Fill
// writes a.txt and b.txt in it.
func Fill(ctx context.Context, svc *pair.Service, project, folder string) (*pair.Pair, error) {
	p, err := svc.New(ctx, pair.NewInput{Project: project, Folder: folder, Task: "round the lava tips", Members: []string{"opencode", "codex"}, Autonomy: pair.AutonomySemi})
	if err != nil {
		return nil, err
	}
	w, c := pair.Caller{Pair: p.ID, Role: "opencode"}, pair.Caller{Pair: p.ID, Role: "codex"}
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(folder, f), []byte("square\n"), 0o644); err != nil {
			return nil, err
		}
	}
	steps := []struct {
		what string
		do   func() error
	}{
		{"the writer's claim", func() error { _, err := svc.Claim(ctx, w, "I know the mesh code"); return err }},
		{"a letter to the writer", func() error { _, err := svc.Send(ctx, c, "the tips are square\nat the harbor", nil); return err }},
		{"the writer reads", func() error { _, err := svc.Read(ctx, w, pair.ReadInput{}); return err }},
		{"a letter to the critic", func() error { _, err := svc.Send(ctx, w, "looking", nil); return err }},
		{"a finding", func() error { _, err := svc.Note(ctx, c, pair.NoteFinding, "Backoff(0) is untested"); return err }},
		{"a plan", func() error { _, err := svc.Note(ctx, w, pair.NotePlan, "round them in the mesh"); return err }},
		{"a task", func() error { return task(ctx, svc, c, pair.TaskInput{Action: pair.TaskAdd, Text: "test the harbor"}) }},
		{"a second task", func() error { return task(ctx, svc, c, pair.TaskInput{Action: pair.TaskAdd, Text: "test the rift"}) }},
		{"a third task", func() error { return task(ctx, svc, c, pair.TaskInput{Action: pair.TaskAdd, Text: "still open"}) }},
		{"a task done", func() error { return task(ctx, svc, w, pair.TaskInput{Action: pair.TaskDo, N: 1}) }},
		{"a task dropped", func() error {
			return task(ctx, svc, c, pair.TaskInput{Action: pair.TaskDrop, N: 2, Reason: "the same as #1"})
		}},
		{"to the plan", func() error { _, err := svc.Advance(ctx, w, pair.PhasePlan, "scoped"); return err }},
		{"to the code", func() error { _, err := svc.Advance(ctx, w, pair.PhaseCode, ""); return err }},
		{"a patch applied", func() error {
			a, err := svc.Propose(ctx, c, []pair.ProposedFile{{Path: "a.txt", Content: "round\n"}}, "round a")
			if err != nil {
				return err
			}
			if _, err := svc.Verify(ctx, w, pair.PatchRef{N: a.Patch.N}); err != nil {
				return err
			}
			_, err = svc.Applied(ctx, w, pair.PatchRef{N: a.Patch.N}, true, "applied cleanly")
			return err
		}},
		{"a patch sealed", func() error {
			_, err := svc.Propose(ctx, c, []pair.ProposedFile{{Path: "b.txt", Content: "round\n"}}, "round b")
			return err
		}},
		{"a patch reserved", func() error { _, err := svc.Reserve(ctx, c, "the rift next"); return err }},
		{"evidence passed", func() error {
			_, err := svc.AddEvidence(ctx, w, pair.EvidenceTests, "go test ./... ok", true)
			return err
		}},
		{"evidence failed", func() error {
			_, err := svc.AddEvidence(ctx, c, pair.EvidenceLint, "go vet: one finding", false)
			return err
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			return nil, fmt.Errorf("fill pair %s: %s: %w", p.ID, s.what, err)
		}
	}
	// A refusal: the critic may not take write authority from the writer.
	if _, err := svc.Claim(ctx, c, "let me"); err == nil {
		return nil, fmt.Errorf("fill pair %s: a second claim was taken", p.ID)
	}
	return p, nil
}

func task(ctx context.Context, svc *pair.Service, c pair.Caller, in pair.TaskInput) error {
	_, err := svc.ChangeTask(ctx, c, in)
	return err
}
