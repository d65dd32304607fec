package sqlite

import (
	"context"
	"database/sql"

	"desk"
)

// SetParent makes an issue part of another one, or of none.
func (db *DB) SetParent(ctx context.Context, id string, parent *string, actor string) (*desk.Issue, error) {
	actor = cleanActor(actor, desk.OwnerActor)
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
		if _, err := tx.exec(`UPDATE issues SET parent_id = NULL, updated_at = ? WHERE id = ?`, tx.ts, r.rowid); err != nil {
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
	// Walk up from the new parent: meeting r means r would contain itself.
	for up, hops := p.parentID, 0; up != 0 && hops < 10000; hops++ {
		if up == r.rowid {
			return desk.ErrParentLoop(&r.Issue, &p.Issue)
		}
		if err := tx.queryRow(`SELECT coalesce(parent_id, 0) FROM issues WHERE id = ?`, up).Scan(&up); err != nil {
			return err
		}
	}
	if _, err := tx.exec(`UPDATE issues SET parent_id = ?, updated_at = ? WHERE id = ?`, p.rowid, tx.ts, r.rowid); err != nil {
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

// Merge folds sources into target.
func (db *DB) Merge(ctx context.Context, target string, sources []string, actor string) (*desk.MergeResult, error) {
	actor = cleanActor(actor, desk.OwnerActor)
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
			contains := false
			for up, hops := t.parentID, 0; up != 0 && hops < 10000 && !contains; hops++ {
				contains = up == s.rowid
				if err := tx.queryRow(`SELECT coalesce(parent_id, 0) FROM issues WHERE id = ?`, up).Scan(&up); err != nil {
					return err
				}
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
		if _, err := tx.exec(`UPDATE `+table+` SET issue_id = ?, merged_from = coalesce(merged_from, ?) WHERE issue_id = ?`,
			t.rowid, s.rowid, s.rowid); err != nil {
			return err
		}
	}
	// Earlier merges into the source now point at the target.
	if _, err := tx.exec(`UPDATE issues SET merged_into = ? WHERE merged_into = ?`, t.rowid, s.rowid); err != nil {
		return err
	}
	var children []int64
	rows, err := tx.QueryContext(tx.ctx, `SELECT id FROM issues WHERE parent_id = ?`, s.rowid)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		children = append(children, id)
	}
	rows.Close()
	for _, c := range children {
		if _, err := tx.exec(`UPDATE issues SET parent_id = ? WHERE id = ?`, t.rowid, c); err != nil {
			return err
		}
		if cr, err := issueByRowID(tx.ctx, tx, c); err == nil {
			tx.touch(cr)
		}
	}
	closed := desk.MergeClosedAt(&s.Issue, tx.ts)
	if _, err := tx.exec(`UPDATE issues SET merged_into = ?, status = 'closed', closed_at = ?, updated_at = ? WHERE id = ?`,
		t.rowid, closed, tx.ts, s.rowid); err != nil {
		return err
	}
	if _, err := tx.activity(s, actor, desk.ActMergedInto, desk.MergedIntoDetail(&s.Issue, &t.Issue, children)); err != nil {
		return err
	}
	if _, err := tx.exec(`UPDATE issues SET updated_at = ? WHERE id = ?`, tx.ts, t.rowid); err != nil {
		return err
	}
	_, err = tx.activity(t, actor, desk.ActMerged, desk.MergedDetail(&s.Issue))
	return err
}

// Unmerge undoes the merge of id into its target.
func (db *DB) Unmerge(ctx context.Context, id, actor string) (*desk.UnmergeResult, error) {
	actor = cleanActor(actor, desk.OwnerActor)
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
		// What the merge recorded: the status to go back to and the
		// children it moved.
		var detail string
		err = tx.queryRow(`SELECT detail FROM activity WHERE issue_id = ? AND action = 'merged_into' ORDER BY id DESC LIMIT 1`, s.rowid).Scan(&detail)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		var rec struct {
			PrevStatus string
			Children   []int64
		}
		rec.PrevStatus, rec.Children = desk.UnmergeRecord(detail)
		for _, table := range []string{"comments", "attachments", "activity"} {
			if _, err := tx.exec(`UPDATE `+table+` SET issue_id = ?, merged_from = NULL WHERE issue_id = ? AND merged_from = ?`,
				s.rowid, t.rowid, s.rowid); err != nil {
				return err
			}
		}
		for _, c := range rec.Children {
			if _, err := tx.exec(`UPDATE issues SET parent_id = ? WHERE id = ? AND parent_id = ?`, s.rowid, c, t.rowid); err != nil {
				return err
			}
			if cr, err := issueByRowID(ctx, tx, c); err == nil {
				tx.touch(cr)
			}
		}
		var closed any
		if desk.IsDone(rec.PrevStatus) {
			closed = tx.ts
		}
		if _, err := tx.exec(`UPDATE issues SET merged_into = NULL, status = ?, closed_at = ?, updated_at = ? WHERE id = ?`,
			rec.PrevStatus, closed, tx.ts, s.rowid); err != nil {
			return err
		}
		s.Status, s.mergedID, s.MergedInto = rec.PrevStatus, 0, nil
		sd, td := desk.UnmergedDetails(&s.Issue, &t.Issue, rec.PrevStatus)
		if _, err := tx.activity(s, actor, desk.ActUnmerged, sd); err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE issues SET updated_at = ? WHERE id = ?`, tx.ts, t.rowid); err != nil {
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
