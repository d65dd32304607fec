package sqlite

import (
	"context"

	"desk"
)

// ProgressResult answers Progress (desk.ProgressResult, which every
// store answers).
type ProgressResult = desk.ProgressResult

// Progress records an agent's progress on an issue in one transaction: a
// change of plan step n (when p is not nil) and a short comment (when text
// is not empty). Both go through the same rules as UpdateStep and
// AddComment; either both land or neither. It returns the issue's row
// without re-reading its comments and timeline, so it stays cheap on an
// issue with a long history.
func (db *DB) Progress(ctx context.Context, id string, n int, p *desk.StepPatch, text, actor string) (*ProgressResult, error) {
	actor, hasText, err := desk.CheckProgress(p, text, actor)
	if err != nil {
		return nil, err
	}
	res := &ProgressResult{}
	err = db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		if p != nil {
			if err := tx.updateStep(r, n, *p, actor); err != nil {
				return err
			}
		}
		if hasText {
			if res.CommentID, err = tx.addComment(r, desk.CommentInput{Author: actor, Text: text}, nil); err != nil {
				return err
			}
			r.CommentCount++
		}
		is := r.Issue
		res.Issue = &is
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
