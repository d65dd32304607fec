package postgres

import (
	"context"

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
		if err := tx.savePlan(r, plan); err != nil {
			return err
		}
		_, err = tx.activity(r, actor, desk.ActPlan, detail)
		return err
	})
}

func (tx *Tx) savePlan(r *row, plan desk.Plan) error {
	pr := plan.Progress()
	r.Plan, r.Progress = plan, pr
	return tx.exec(`UPDATE issues SET plan = $1, plan_done = $2, plan_total = $3, updated_at = $4 WHERE id = $5`,
		jsonText(plan), pr.Done, pr.Total, tx.ts, r.rowid)
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
	if err := tx.savePlan(r, c.Plan); err != nil {
		return err
	}
	if _, err := tx.activity(r, actor, desk.ActPlan, c.Detail); err != nil {
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
