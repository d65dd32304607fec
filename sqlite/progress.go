package sqlite

import (
	"context"
	"strings"

	"desk"
)

// ProgressResult answers Progress: the issue as it stands after the change
// (its status, plan progress and counters) and the comment it added, if any.
type ProgressResult struct {
	Issue     *desk.Issue
	CommentID int64 // 0 when no text was given
}

// Progress records an agent's progress on an issue in one transaction: a
// change of plan step n (when p is not nil) and a short comment (when text
// is not empty). Both go through the same rules as UpdateStep and
// AddComment; either both land or neither. It returns the issue's row
// without re-reading its comments and timeline, so it stays cheap on an
// issue with a long history.
func (db *DB) Progress(ctx context.Context, id string, n int, p *desk.StepPatch, text, actor string) (*ProgressResult, error) {
	hasText := strings.TrimSpace(text) != ""
	if hasText {
		if err := desk.CheckAuthor(actor); err != nil {
			return nil, err // the text is a comment, and signed as one
		}
	}
	actor = cleanActor(actor, desk.OwnerActor)
	if p == nil && !hasText {
		return nil, desk.Errorf(desk.Invalid, "give a step to change, a text to post, or both")
	}
	if len(text) > desk.MaxCommentText {
		return nil, desk.Errorf(desk.Invalid, "text: longer than %d characters", desk.MaxCommentText)
	}
	if p != nil {
		if err := desk.NormalizeStepPatch(p); err != nil {
			return nil, err
		}
	}
	res := &ProgressResult{}
	err := db.update(ctx, func(tx *Tx) error {
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
