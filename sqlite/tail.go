package sqlite

import (
	"context"
	"database/sql"

	"desk"
)

// IssueTail is an issue with only the newest part of its history: what an
// agent reads, where the owner's page reads everything.
type IssueTail struct {
	*desk.IssueDetail
	// EarlierComments and EarlierActivity count what was left out.
	EarlierComments int
	EarlierActivity int
}

// IssueTail returns an issue as Issue does (following merges), but with
// only its newest nComments comments and nActivity timeline entries, and
// only the files of those comments. An issue with hundreds of comments
// then costs what a young one costs: the rows left out are counted, not
// read.
func (db *DB) IssueTail(ctx context.Context, id string, nComments, nActivity int) (*IssueTail, error) {
	nComments, nActivity = max(nComments, 0), max(nActivity, 0)
	var out *IssueTail
	err := db.view(ctx, func(tx *sql.Tx) error {
		r, from, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		d := &desk.IssueDetail{Issue: r.Issue, RedirectedFrom: from, Comments: []*desk.Comment{}, Activity: []*desk.Activity{}}
		out = &IssueTail{IssueDetail: d}

		// The newest comments, read newest first and turned around, then
		// the files of those comments and of the issue itself.
		if nComments > 0 {
			if d.Comments, err = comments(ctx, tx, r, nil, `c.id IN (SELECT id FROM comments WHERE issue_id = ? ORDER BY id DESC LIMIT ?)`, r.rowid, nComments); err != nil {
				return err
			}
		}
		first := int64(1 << 62)
		if len(d.Comments) > 0 {
			first = d.Comments[0].ID
		}
		if d.Attachments, err = attachments(ctx, tx, r, `a.issue_id = ? AND (a.comment_id IS NULL OR a.comment_id >= ?)`, r.rowid, first); err != nil {
			return err
		}
		files := map[int64][]*desk.Attachment{}
		for _, a := range d.Attachments {
			if a.CommentID != nil {
				files[*a.CommentID] = append(files[*a.CommentID], a)
			}
		}
		for _, c := range d.Comments {
			if fs := files[c.ID]; fs != nil {
				c.Attachments = fs
			}
		}
		out.EarlierComments = max(r.CommentCount-len(d.Comments), 0)

		var total int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM activity WHERE issue_id = ?`, r.rowid).Scan(&total); err != nil {
			return err
		}
		if d.Activity, err = tailActivity(ctx, tx, r, nActivity); err != nil {
			return err
		}
		out.EarlierActivity = total - len(d.Activity)
		if err := issueLinks(ctx, tx, r, d); err != nil {
			return err
		}
		d.Commands, err = db.issueCommands(ctx, tx, r)
		return err
	})
	return out, err
}

// tailActivity reads an issue's newest n timeline entries, oldest first.
func tailActivity(ctx context.Context, q queryer, r *row, n int) ([]*desk.Activity, error) {
	out := []*desk.Activity{}
	if n == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT a.id, a.actor, a.action, a.detail, a.created_at, mf.number
		FROM activity a LEFT JOIN issues mf ON mf.id = a.merged_from WHERE a.issue_id = ? ORDER BY a.id DESC LIMIT ?`, r.rowid, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var a desk.Activity
		var detail string
		var mf sql.NullInt64
		if err := rows.Scan(&a.ID, &a.Actor, &a.Action, &detail, &a.CreatedAt, &mf); err != nil {
			return nil, err
		}
		a.Detail = []byte(detail)
		if mf.Valid {
			k := r.key(mf.Int64)
			a.MergedFrom = &k
		}
		out = append(out, &a)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, rows.Err()
}

// issueLinks reads what an issue is linked to: its children, the issues
// merged into it and its parent, as Issue shows them.
func issueLinks(ctx context.Context, q queryer, r *row, d *desk.IssueDetail) error {
	d.Children, d.MergedSources = []desk.ChildInfo{}, []desk.MergedSource{}
	// child_count, kept by triggers, says whether there are any to read.
	if r.ChildCount > 0 {
		rows, err := q.QueryContext(ctx, `SELECT number, title, status, kind, priority, plan_done, plan_total FROM issues
			WHERE parent_id = ? AND merged_into IS NULL ORDER BY number`, r.rowid)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c desk.ChildInfo
			var n int64
			if err := rows.Scan(&n, &c.Title, &c.Status, &c.Kind, &c.Priority, &c.Progress.Done, &c.Progress.Total); err != nil {
				rows.Close()
				return err
			}
			c.ID = r.key(n)
			d.Children = append(d.Children, c)
		}
		rows.Close()
	}
	rows, err := q.QueryContext(ctx, `SELECT i.number, i.title, coalesce((SELECT max(a.created_at) FROM activity a
		WHERE a.issue_id = i.id AND a.action = 'merged_into'), i.updated_at) FROM issues i WHERE i.merged_into = ? ORDER BY i.number`, r.rowid)
	if err != nil {
		return err
	}
	for rows.Next() {
		var m desk.MergedSource
		var n int64
		if err := rows.Scan(&n, &m.Title, &m.MergedAt); err != nil {
			rows.Close()
			return err
		}
		m.ID = r.key(n)
		d.MergedSources = append(d.MergedSources, m)
	}
	rows.Close()
	if r.parentID != 0 {
		var pi desk.ParentInfo
		if err := q.QueryRowContext(ctx, `SELECT title, status FROM issues WHERE id = ?`, r.parentID).Scan(&pi.Title, &pi.Status); err == nil {
			pi.ID = *r.Parent
			d.ParentInfo = &pi
		}
	}
	return nil
}
