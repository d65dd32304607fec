package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"desk"
)

func testPlans(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("tips"), Status: ptr("open")}, "owner")
	d, err := db.SetPlan(ctx, is.ID, []desk.Step{{Text: "Round the tips"}, {Text: "Clamp to ground"}}, ptr("stage shot 12"), "claude")
	if err != nil {
		t.Fatal(err)
	}
	if d.Progress != (desk.Progress{Done: 0, Total: 2}) || d.Plan.Verification != "stage shot 12" || d.Status != "open" {
		t.Fatalf("%+v %+v %s", d.Progress, d.Plan, d.Status)
	}
	d, err = db.UpdateStep(ctx, is.ID, 1, desk.StepPatch{State: ptr("doing")}, "claude")
	if err != nil || d.Status != "in_progress" {
		t.Fatalf("a started step did not move the issue: %v %s", err, d.Status)
	}
	d, err = db.UpdateStep(ctx, is.ID, 1, desk.StepPatch{State: ptr("done"), Commit: ptr("5ea28d6")}, "claude")
	if err != nil || d.Progress.Done != 1 || d.Plan.Steps[0].Commit != "5ea28d6" {
		t.Fatal(err)
	}
	// Re-sending the plan with one more step keeps the tick.
	d, err = db.SetPlan(ctx, is.ID, []desk.Step{{Text: "Round the tips"}, {Text: "Clamp to ground"}, {Text: "Screenshot"}}, nil, "claude")
	if err != nil || d.Plan.Steps[0].State != "done" || d.Progress.Total != 3 || d.Plan.Verification != "stage shot 12" {
		t.Fatalf("%v %+v", err, d.Plan)
	}
	if _, err := db.UpdateStep(ctx, is.ID, 2, desk.StepPatch{State: ptr("dropped")}, "claude"); err != nil {
		t.Fatal(err)
	}
	d, err = db.UpdateStep(ctx, is.ID, 3, desk.StepPatch{State: ptr("done"), Note: ptr("see shot")}, "claude")
	if err != nil || d.Status != "auto_check" {
		t.Fatalf("finished plan did not move to auto_check: %v %s", err, d.Status)
	}
	full, _ := db.Issue(ctx, is.ID)
	last := full.Activity[len(full.Activity)-1]
	var det map[string]any
	json.Unmarshal(last.Detail, &det)
	if last.Action != "status" || det["reason"] == nil {
		t.Fatalf("last entry %s %s", last.Action, last.Detail)
	}
	t.Run("ErrStepOutOfRange", func(t *testing.T) {
		_, err := db.UpdateStep(ctx, is.ID, 9, desk.StepPatch{State: ptr("done")}, "claude")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrBadState", func(t *testing.T) {
		_, err := db.UpdateStep(ctx, is.ID, 1, desk.StepPatch{State: ptr("finished")}, "claude")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrNoPlan", func(t *testing.T) {
		other := MustIssue(t, db, desk.IssueFields{Title: ptr("x")}, "owner")
		_, err := db.UpdateStep(ctx, other.ID, 1, desk.StepPatch{State: ptr("done")}, "claude")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ClearCommitAndNote", func(t *testing.T) {
		d, err := db.UpdateStep(ctx, is.ID, 1, desk.StepPatch{Commit: ptr(""), Note: ptr("")}, "claude")
		if err != nil || d.Plan.Steps[0].Commit != "" {
			t.Fatalf("%v %+v", err, d.Plan.Steps[0])
		}
	})
}
