package postgres

import (
	"context"
	"errors"

	"desk"

	"github.com/jackc/pgx/v5"
)

// SetParent makes an issue part of another one, or of none.
func (db *DB) SetParent(ctx context.Context, id string, parent *string, actor string) (*desk.Issue, error) {
	actor = desk.CleanActor(actor, desk.OwnerActor)
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error { return tx.setParent(r, parent, actor) })
}

func (tx *Tx) setParent(r *row, parent *string, actor string) error {
	var old *row
	if r.parentID != 0 {
		var err error
		if old, err = issueByRowID(tx.ctx, tx, r.parentID); err != nil {
			return err
		}
	}
	if parent == nil {
		if old == nil {
			return nil
		}
		if err := tx.exec(`UPDATE issues SET parent_id = NULL, updated_at = $1 WHERE id = $2`, tx.ts, r.rowid); err != nil {
			return err
		}
		r.parentID, r.Parent = 0, nil
		if _, err := tx.activity(r, actor, desk.ActParent, desk.ParentDetail(nil, &old.ID)); err != nil {
			return err
		}
		_, err := tx.activity(old, actor, desk.ActChild, desk.ChildDetail("removed", r.ID))
		return err
	}
	p, err := issueByKey(tx.ctx, tx, *parent)
	if err != nil {
		return err
	}
	var oldID *string
	if old != nil {
		oldID = &old.ID
	}
	if same, err := desk.CheckParent(&r.Issue, &p.Issue, oldID); err != nil || same {
		return err
	}
	contains, err := tx.contains(r.rowid, p.parentID)
	if err != nil {
		return err
	}
	if contains {
		return desk.ErrParentLoop(&r.Issue, &p.Issue)
	}
	if err := tx.exec(`UPDATE issues SET parent_id = $1, updated_at = $2 WHERE id = $3`, p.rowid, tx.ts, r.rowid); err != nil {
		return err
	}
	r.parentID, r.Parent = p.rowid, &p.ID
	if _, err := tx.activity(r, actor, desk.ActParent, desk.ParentDetail(&p.ID, oldID)); err != nil {
		return err
	}
	if old != nil {
		if _, err := tx.activity(old, actor, desk.ActChild, desk.ChildDetail("removed", r.ID)); err != nil {
			return err
		}
	}
	_, err = tx.activity(p, actor, desk.ActChild, desk.ChildDetail("added", r.ID))
	return err
}

// contains reports whether walking up the parents from row up meets row
// id.
func (tx *Tx) contains(id, up int64) (bool, error) {
	for hops := 0; up != 0 && hops < 10000; hops++ {
		if up == id {
			return true, nil
		}
		var next *int64
		if err := tx.queryRow(`SELECT parent_id FROM issues WHERE id = $1`, up).Scan(&next); err != nil {
			return false, err
		}
		up = 0
		if next != nil {
			up = *next
		}
	}
	return false, nil
}

// Merge folds sources into target.
func (db *DB) Merge(ctx context.Context, target string, sources []string, actor string) (*desk.MergeResult, error) {
	actor = desk.CleanActor(actor, desk.OwnerActor)
	if len(sources) == 0 {
		return nil, desk.CheckMergeTarget(&desk.Issue{ID: target}, nil)
	}
	res := &desk.MergeResult{}
	err := db.update(ctx, func(tx *Tx) error {
		t, err := issueByKey(ctx, tx, target)
		if err != nil {
			return err
		}
		if err := desk.CheckMergeTarget(&t.Issue, sources); err != nil {
			return err
		}
		res.Target = t.ID
		seen := map[int64]bool{}
		for _, key := range sources {
			s, err := issueByKey(ctx, tx, key)
			if err != nil {
				return err
			}
			if err := desk.CheckMergeSource(&t.Issue, &s.Issue, false); err != nil {
				return err
			}
			if seen[s.rowid] {
				continue
			}
			contains, err := tx.contains(s.rowid, t.parentID)
			if err != nil {
				return err
			}
			if err := desk.CheckMergeSource(&t.Issue, &s.Issue, contains); err != nil {
				return err
			}
			seen[s.rowid] = true
			if err := tx.merge(t, s, actor); err != nil {
				return err
			}
			res.Merged = append(res.Merged, s.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Issue, err = db.Issue(ctx, res.Target); err != nil {
		return nil, err
	}
	return res, nil
}

func (tx *Tx) merge(t, s *row, actor string) error {
	for _, table := range []string{"comments", "attachments", "activity"} {
		if err := tx.exec(`UPDATE `+table+` SET issue_id = $1, merged_from = coalesce(merged_from, $2) WHERE issue_id = $2`,
			t.rowid, s.rowid); err != nil {
			return err
		}
	}
	if err := tx.exec(`UPDATE issues SET merged_into = $1 WHERE merged_into = $2`, t.rowid, s.rowid); err != nil {
		return err
	}
	var children []int64
	err := eachRow(tx.ctx, tx, `SELECT id FROM issues WHERE parent_id = $1 ORDER BY id`, []any{s.rowid}, func(rs pgx.Rows) error {
		var id int64
		err := rs.Scan(&id)
		children = append(children, id)
		return err
	})
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := tx.exec(`UPDATE issues SET parent_id = $1 WHERE id = $2`, t.rowid, c); err != nil {
			return err
		}
		if cr, err := issueByRowID(tx.ctx, tx, c); err == nil {
			tx.touch(cr)
		}
	}
	if err := tx.exec(`UPDATE issues SET merged_into = $1, status = 'closed', closed_at = $2, updated_at = $3 WHERE id = $4`,
		t.rowid, desk.MergeClosedAt(&s.Issue, tx.ts), tx.ts, s.rowid); err != nil {
		return err
	}
	if _, err := tx.activity(s, actor, desk.ActMergedInto, desk.MergedIntoDetail(&s.Issue, &t.Issue, children)); err != nil {
		return err
	}
	if err := tx.exec(`UPDATE issues SET updated_at = $1 WHERE id = $2`, tx.ts, t.rowid); err != nil {
		return err
	}
	_, err = tx.activity(t, actor, desk.ActMerged, desk.MergedDetail(&s.Issue))
	return err
}

// Unmerge undoes the merge of id into its target.
func (db *DB) Unmerge(ctx context.Context, id, actor string) (*desk.UnmergeResult, error) {
	actor = desk.CleanActor(actor, desk.OwnerActor)
	res := &desk.UnmergeResult{}
	err := db.update(ctx, func(tx *Tx) error {
		s, err := issueByKey(ctx, tx, id)
		if err != nil {
			return err
		}
		if s.mergedID == 0 {
			return desk.ErrNotMerged(s.ID)
		}
		t, err := issueByRowID(ctx, tx, s.mergedID)
		if err != nil {
			return err
		}
		res.Source, res.Target = s.ID, t.ID
		var detail string
		err = tx.queryRow(`SELECT detail FROM activity WHERE issue_id = $1 AND action = 'merged_into' ORDER BY id DESC LIMIT 1`, s.rowid).Scan(&detail)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		prev, children := desk.UnmergeRecord(detail)
		for _, table := range []string{"comments", "attachments", "activity"} {
			if err := tx.exec(`UPDATE `+table+` SET issue_id = $1, merged_from = NULL WHERE issue_id = $2 AND merged_from = $1`,
				s.rowid, t.rowid); err != nil {
				return err
			}
		}
		for _, c := range children {
			if err := tx.exec(`UPDATE issues SET parent_id = $1 WHERE id = $2 AND parent_id = $3`, s.rowid, c, t.rowid); err != nil {
				return err
			}
			if cr, err := issueByRowID(ctx, tx, c); err == nil {
				tx.touch(cr)
			}
		}
		var closed *string
		if desk.IsDone(prev) {
			closed = &tx.ts
		}
		if err := tx.exec(`UPDATE issues SET merged_into = NULL, status = $1, closed_at = $2, updated_at = $3 WHERE id = $4`,
			prev, closed, tx.ts, s.rowid); err != nil {
			return err
		}
		s.Status, s.mergedID, s.MergedInto = prev, 0, nil
		sd, td := desk.UnmergedDetails(&s.Issue, &t.Issue, prev)
		if _, err := tx.activity(s, actor, desk.ActUnmerged, sd); err != nil {
			return err
		}
		if err := tx.exec(`UPDATE issues SET updated_at = $1 WHERE id = $2`, tx.ts, t.rowid); err != nil {
			return err
		}
		_, err = tx.activity(t, actor, desk.ActUnmerged, td)
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.Issue, err = db.Issue(ctx, res.Source); err != nil {
		return nil, err
	}
	return res, nil
}
