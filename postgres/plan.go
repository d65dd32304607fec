package postgres

import (
	"context"
	"encoding/json"

	"desk"
)

// SetPlan replaces an issue's plan steps (desk.NewPlan).
func (db *DB) SetPlan(ctx context.Context, id string, steps []desk.Step, verification *string, actor string) (*desk.Issue, error) {
	actor = desk.CleanActor(actor, desk.OwnerActor)
	verification, err := desk.NormalizeVerification(verification)
	if err != nil {
		return nil, err
	}
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error {
		plan, detail, err := desk.NewPlan(r.Plan, steps, verification, tx.ts)
		if err != nil {
			return err
		}
		return tx.savePlan(r, plan, actor, detail)
	})
}

// savePlan stores r's new plan and its "plan" timeline entry (detail) in
// one statement: one round trip under the writers' lock.
func (tx *Tx) savePlan(r *row, plan desk.Plan, actor string, detail any) error {
	b, err := json.Marshal(detail)
	if err != nil {
		return err
	}
	pr := plan.Progress()
	r.Plan, r.Progress = plan, pr
	var id int64
	if err := tx.queryRow(`WITH u AS (UPDATE issues SET plan = $1, plan_done = $2, plan_total = $3, updated_at = $4 WHERE id = $5)
		INSERT INTO activity (issue_id, actor, action, detail, created_at) VALUES ($5, $6, $7, $8, $4) RETURNING id`,
		jsonText(plan), pr.Done, pr.Total, tx.ts, r.rowid, actor, desk.ActPlan, string(b)).Scan(&id); err != nil {
		return err
	}
	tx.activityFed(r, id, actor, desk.ActPlan)
	return nil
}

// UpdateStep changes one plan step and moves the issue's status as the
// plan rules say (desk.ChangeStep).
func (db *DB) UpdateStep(ctx context.Context, id string, n int, p desk.StepPatch, actor string) (*desk.Issue, error) {
	actor = desk.CleanActor(actor, desk.OwnerActor)
	if err := desk.NormalizeStepPatch(&p); err != nil {
		return nil, err
	}
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error { return tx.updateStep(r, n, p, actor) })
}

// updateStep changes plan step n of r by the plan's rules, with the
// status the step moves the issue to.
func (tx *Tx) updateStep(r *row, n int, p desk.StepPatch, actor string) error {
	c, err := desk.ChangeStep(&r.Issue, n, p, tx.ts)
	if err != nil {
		return err
	}
	if err := tx.savePlan(r, c.Plan, actor, c.Detail); err != nil {
		return err
	}
	if c.Status == "" {
		return nil
	}
	proj, err := projectByID(tx.ctx, tx, r.projectID)
	if err != nil {
		return err
	}
	return tx.setStatus(r, proj, c.Status, actor, c.Reason)
}
