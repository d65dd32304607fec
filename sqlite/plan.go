package sqlite

import (
	"context"
	"strings"

	"desk"
)

// SetPlan replaces an issue's plan steps.
func (db *DB) SetPlan(ctx context.Context, id string, steps []desk.Step, verification *string, actor string) (*desk.Issue, error) {
	actor = cleanActor(actor, desk.OwnerActor)
	if verification != nil {
		v := strings.TrimSpace(*verification)
		if len(v) > desk.MaxVerification {
			return nil, desk.Errorf(desk.Invalid, "verification: longer than %d characters", desk.MaxVerification)
		}
		verification = &v
	}
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error {
		norm, err := desk.NormalizeSteps(steps, r.Plan.Steps)
		if err != nil {
			return err
		}
		replaced := len(r.Plan.Steps) > 0
		plan := desk.Plan{Steps: norm, Verification: r.Plan.Verification, UpdatedAt: tx.ts}
		if verification != nil {
			plan.Verification = *verification
		}
		if err := tx.savePlan(r, plan); err != nil {
			return err
		}
		texts := make([]string, len(norm))
		for i, s := range norm {
			texts[i] = s.Text
		}
		pr := plan.Progress()
		detail := map[string]any{"op": "set", "steps": texts, "done": pr.Done, "total": pr.Total}
		if plan.Verification != "" {
			detail["verification"] = plan.Verification
		}
		if replaced {
			detail["replaced"] = true
		}
		_, err = tx.activity(r, actor, desk.ActPlan, detail)
		return err
	})
}

func (tx *Tx) savePlan(r *row, plan desk.Plan) error {
	pr := plan.Progress()
	r.Plan, r.Progress = plan, pr
	_, err := tx.exec(`UPDATE issues SET plan = ?, plan_done = ?, plan_total = ?, updated_at = ? WHERE id = ?`,
		jsonText(plan), pr.Done, pr.Total, tx.ts, r.rowid)
	return err
}

// UpdateStep changes one plan step and moves the issue's status as the
// plan rules say.
func (db *DB) UpdateStep(ctx context.Context, id string, n int, p desk.StepPatch, actor string) (*desk.Issue, error) {
	actor = cleanActor(actor, desk.OwnerActor)
	if p.State != nil {
		s := strings.ToLower(strings.TrimSpace(*p.State))
		if err := desk.CheckEnum("state", s, desk.StepStates); err != nil {
			return nil, err
		}
		p.State = &s
	}
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error { return tx.updateStep(r, n, p, actor) })
}

func (tx *Tx) updateStep(r *row, n int, p desk.StepPatch, actor string) error {
	steps := r.Plan.Steps
	if len(steps) == 0 {
		return desk.Errorf(desk.Invalid, "%s has no plan yet: write one with set_plan (CLI: desk plan %s --step ...)", r.ID, r.ID).
			WithHint("set_plan first")
	}
	if n < 1 || n > len(steps) {
		return desk.Errorf(desk.Invalid, "step %d: %s's plan has steps 1 to %d", n, r.ID, len(steps))
	}
	plan := r.Plan
	plan.Steps = append([]desk.Step(nil), steps...)
	st := &plan.Steps[n-1]
	detail := map[string]any{"op": "step", "index": n}
	from := st.State
	if p.Text != nil {
		t := desk.CollapseSpace(*p.Text)
		if t == "" || len(t) > desk.MaxStepText {
			return desk.Errorf(desk.Invalid, "text: a step's text is 1 to %d characters", desk.MaxStepText)
		}
		if t != st.Text {
			detail["old_text"] = st.Text
			st.Text = t
		}
	}
	if p.State != nil && *p.State != st.State {
		detail["from"], detail["to"] = st.State, *p.State
		st.State = *p.State
	}
	if p.Commit != nil {
		c := strings.TrimSpace(*p.Commit)
		if len(c) > desk.MaxCommit {
			return desk.Errorf(desk.Invalid, "commit: longer than %d characters", desk.MaxCommit)
		}
		st.Commit = c
		if c != "" {
			detail["commit"] = c
		}
	}
	if p.Note != nil {
		note := strings.TrimSpace(*p.Note)
		if len(note) > desk.MaxNote {
			return desk.Errorf(desk.Invalid, "note: longer than %d characters", desk.MaxNote)
		}
		st.Note = note
		if note != "" {
			detail["note"] = note
		}
	}
	plan.UpdatedAt = tx.ts
	if err := tx.savePlan(r, plan); err != nil {
		return err
	}
	pr := plan.Progress()
	detail["text"], detail["done"], detail["total"] = st.Text, pr.Done, pr.Total
	if _, err := tx.activity(r, actor, desk.ActPlan, detail); err != nil {
		return err
	}
	if p.State == nil || *p.State == from {
		return nil
	}
	next, reason := desk.StatusAfterStep(r.Status, from, *p.State, &plan)
	if next == "" {
		return nil
	}
	proj, err := projectByID(tx.ctx, tx, r.projectID)
	if err != nil {
		return err
	}
	return tx.setStatus(r, proj, next, actor, reason)
}
