package postgres

import (
	"context"
	"fmt"
	"time"

	"desk"

	"github.com/jackc/pgx/v5"
)

// CreateIssue files an issue in a project.
func (db *DB) CreateIssue(ctx context.Context, slug string, f desk.IssueFields, o desk.CreateOptions) (*desk.IssueDetail, error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	if f.Title == nil {
		return nil, desk.Errorf(desk.Invalid, "title: required")
	}
	author := desk.CleanActor(o.Author, desk.OwnerActor)
	files, err := desk.CheckAttachments(o.Attachments, desk.MaxAttachment)
	if err != nil {
		return nil, err
	}
	var key string
	err = db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		if o.SkipDuplicate && f.ExternalRef != nil && *f.ExternalRef != "" {
			var n int
			if err := tx.queryRow(`SELECT count(*) FROM issues WHERE project_id = $1 AND external_ref = $2`, p.id, *f.ExternalRef).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
		}
		r, err := tx.createIssue(p, f, author, o.Agent)
		if err != nil {
			return err
		}
		if len(files) > 0 {
			if _, err := tx.addAttachments(r, nil, files, author, true); err != nil {
				return err
			}
		}
		key = r.ID
		return nil
	})
	if err != nil || key == "" {
		return nil, err
	}
	return db.Issue(ctx, key)
}

// createIssue inserts a new issue with its "created" activity; its
// defaults and first status are desk.NewIssue's.
func (tx *Tx) createIssue(p *projectRow, f desk.IssueFields, author string, agent bool) (*row, error) {
	is, detail, err := desk.NewIssue(&p.Project, p.nextNumber, f, author, agent)
	if err != nil {
		return nil, err
	}
	r := &row{Issue: *is, projectID: p.id, prefix: p.Prefix}
	r.CreatedAt, r.UpdatedAt = tx.ts, tx.ts
	var closed *string
	if desk.IsDone(r.Status) {
		closed = &tx.ts
		r.ClosedAt = closed
	}
	var build *string
	if r.Build != nil {
		b := jsonText(r.Build)
		build = &b
	}
	err = tx.queryRow(`INSERT INTO issues (project_id, number, title, body, kind, status, priority, area, tags, location, seed,
		source, external_ref, size, milestone, build, created_at, updated_at, closed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id`,
		p.id, r.Number, r.Title, r.Body, r.Kind, r.Status, r.Priority, r.Area, jsonText(r.Tags), jsonText(r.Location),
		r.Location.Seed, r.Source, r.ExternalRef, r.Size, r.Milestone, build, tx.ts, tx.ts, closed).Scan(&r.rowid)
	if err != nil {
		return nil, fmt.Errorf("insert issue: %w", err)
	}
	if err := tx.reindex(r); err != nil {
		return nil, err
	}
	if err := tx.exec(`UPDATE projects SET next_number = next_number + 1 WHERE id = $1`, p.id); err != nil {
		return nil, err
	}
	p.nextNumber++
	if _, err := tx.activity(r, author, desk.ActCreated, detail); err != nil {
		return nil, err
	}
	if f.Parent != nil && *f.Parent != nil {
		if err := tx.setParent(r, *f.Parent, author); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// UpdateIssue changes the given fields of an issue.
func (db *DB) UpdateIssue(ctx context.Context, id string, f desk.IssueFields, actor string) (*desk.Issue, error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	actor = desk.CleanActor(actor, desk.OwnerActor)
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error { return tx.updateIssue(r, f, actor) })
}

// writeIssue runs fn on the issue id stands for (following merges) in a
// write transaction, and answers with the issue as it is then.
func (db *DB) writeIssue(ctx context.Context, id string, fn func(tx *Tx, r *row) error) (*desk.Issue, error) {
	var key string
	err := db.updateIssue(ctx, id, func(tx *Tx, r *row) error {
		key = r.ID
		return fn(tx, r)
	})
	if err != nil {
		return nil, err
	}
	r, _, err := resolve(ctx, db.pool, key)
	if err != nil {
		return nil, err
	}
	return &r.Issue, db.withClaim(ctx, db.pool, r)
}

func (tx *Tx) updateIssue(r *row, f desk.IssueFields, actor string) error {
	e, err := desk.EditIssue(&r.Issue, f, actor, func() (bool, error) {
		var n int
		err := tx.queryRow(`SELECT count(*) FROM activity WHERE issue_id = $1 AND action = 'edited' AND strpos(detail, $2) > 0`,
			r.rowid, desk.OwnerOriginalMarker).Scan(&n)
		return n > 0, err
	})
	if err != nil {
		return err
	}
	if e.Detail != nil {
		if err := tx.exec(`UPDATE issues SET title = $1, body = $2, kind = $3, priority = $4, area = $5, source = $6,
			external_ref = $7, size = $8, milestone = $9, tags = $10, location = $11, seed = $12, updated_at = $13 WHERE id = $14`,
			r.Title, r.Body, r.Kind, r.Priority, r.Area, r.Source, r.ExternalRef, r.Size, r.Milestone,
			jsonText(r.Tags), jsonText(r.Location), r.Location.Seed, tx.ts, r.rowid); err != nil {
			return err
		}
		if err := tx.reindex(r); err != nil {
			return err
		}
		if _, err := tx.activity(r, actor, desk.ActEdited, e.Detail); err != nil {
			return err
		}
	}
	if f.Parent != nil {
		if err := tx.setParent(r, *f.Parent, actor); err != nil {
			return err
		}
	}
	if f.Status != nil && *f.Status != r.Status {
		p, err := projectByID(tx.ctx, tx, r.projectID)
		if err != nil {
			return err
		}
		if err := tx.setStatus(r, p, *f.Status, actor, ""); err != nil {
			return err
		}
	}
	return nil
}

// SetStatus moves an issue to status.
func (db *DB) SetStatus(ctx context.Context, id, status, actor string) (*desk.Issue, error) {
	status, err := desk.NormalizeStatus(status)
	if err != nil {
		return nil, err
	}
	actor = desk.CleanActor(actor, desk.OwnerActor)
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error {
		if r.Status == status {
			return nil
		}
		p, err := projectByID(ctx, tx, r.projectID)
		if err != nil {
			return err
		}
		return tx.setStatus(r, p, status, actor, "")
	})
}

// setStatus moves r to status to under desk.ChangeStatus's rules.
func (tx *Tx) setStatus(r *row, p *projectRow, to, actor, reason string) error {
	detail, err := desk.ChangeStatus(&r.Issue, &p.Project, to, actor, reason, tx.ts)
	if err != nil {
		return err
	}
	var build *string
	if r.Build != nil {
		b := jsonText(r.Build)
		build = &b
	}
	if err := tx.exec(`UPDATE issues SET status = $1, closed_at = $2, build = $3, updated_at = $4 WHERE id = $5`,
		to, r.ClosedAt, build, tx.ts, r.rowid); err != nil {
		return err
	}
	_, err = tx.activity(r, actor, desk.ActStatus, detail)
	return err
}

// DeleteIssue removes an issue with its comments, activity and files.
func (db *DB) DeleteIssue(ctx context.Context, id, actor string) error {
	return db.update(ctx, func(tx *Tx) error {
		r, err := issueByKey(ctx, tx, id)
		if err != nil {
			return err
		}
		var merged int
		if err := tx.queryRow(`SELECT count(*) FROM issues WHERE merged_into = $1`, r.rowid).Scan(&merged); err != nil {
			return err
		}
		if merged > 0 {
			return desk.ErrHoldsMerged(r.ID, merged)
		}
		err = eachRow(ctx, tx, `SELECT key FROM attachments WHERE issue_id = $1`, []any{r.rowid}, func(rs pgx.Rows) error {
			var k string
			err := rs.Scan(&k)
			tx.dropBlobs = append(tx.dropBlobs, k)
			return err
		})
		if err != nil {
			return err
		}
		if r.parentID != 0 {
			if parent, err := issueByRowID(ctx, tx, r.parentID); err == nil {
				tx.touch(parent)
			}
		}
		if err := tx.exec(`DELETE FROM issues WHERE id = $1`, r.rowid); err != nil {
			return err
		}
		tx.feed(desk.DeletedChange(&r.Issue, actor), r.rowid)
		return nil
	})
}

// Issue returns an issue with everything that hangs off it.
func (db *DB) Issue(ctx context.Context, id string) (*desk.IssueDetail, error) {
	var d *desk.IssueDetail
	err := db.view(ctx, func(q querier) error {
		r, from, err := resolve(ctx, q, id)
		if err != nil {
			return err
		}
		if err := db.withClaim(ctx, q, r); err != nil {
			return err
		}
		if d, err = db.detail(ctx, q, r); err == nil {
			d.RedirectedFrom = from
		}
		return err
	})
	return d, err
}

// detail reads what hangs off an issue.
func (db *DB) detail(ctx context.Context, q querier, r *row) (*desk.IssueDetail, error) {
	d := &desk.IssueDetail{Issue: r.Issue}
	var err error
	if d.Attachments, err = attachments(ctx, q, r, `a.issue_id = $1`, r.rowid); err != nil {
		return nil, err
	}
	byComment := map[int64][]*desk.Attachment{}
	for _, a := range d.Attachments {
		if a.CommentID != nil {
			byComment[*a.CommentID] = append(byComment[*a.CommentID], a)
		}
	}
	if d.Comments, err = comments(ctx, q, r, byComment, `c.issue_id = $1`, r.rowid); err != nil {
		return nil, err
	}
	if d.Activity, err = activities(ctx, q, r); err != nil {
		return nil, err
	}
	d.Landings = desk.LandingsOf(d.Activity)
	if d.Children, d.MergedSources, d.ParentInfo, err = relations(ctx, q, r); err != nil {
		return nil, err
	}
	if d.Commands, err = db.queryCommands(ctx, q, commandSelect+`WHERE c.issue_id = $1 ORDER BY c.id DESC LIMIT 10`, r.rowid); err != nil {
		return nil, err
	}
	return d, nil
}

// comments reads the comments of r's project matching where, with their
// files.
func comments(ctx context.Context, q querier, r *row, files map[int64][]*desk.Attachment, where string, args ...any) ([]*desk.Comment, error) {
	out := []*desk.Comment{}
	err := eachRow(ctx, q, `SELECT c.id, c.author, c.text, c.verdict, c.created_at, mf.number
		FROM comments c LEFT JOIN issues mf ON mf.id = c.merged_from WHERE `+where+` ORDER BY c.id`, args, func(rs pgx.Rows) error {
		var c desk.Comment
		var mf *int
		if err := rs.Scan(&c.ID, &c.Author, &c.Text, &c.Verdict, &c.CreatedAt, &mf); err != nil {
			return err
		}
		if mf != nil {
			k := desk.IssueKey(r.prefix, *mf)
			c.MergedFrom = &k
		}
		c.Attachments = files[c.ID]
		if c.Attachments == nil {
			c.Attachments = []*desk.Attachment{}
		}
		out = append(out, &c)
		return nil
	})
	return out, err
}

// activities reads r's timeline, oldest first.
func activities(ctx context.Context, q querier, r *row) ([]*desk.Activity, error) {
	out := []*desk.Activity{}
	err := eachRow(ctx, q, `SELECT a.id, a.actor, a.action, a.detail, a.created_at, mf.number
		FROM activity a LEFT JOIN issues mf ON mf.id = a.merged_from WHERE a.issue_id = $1 ORDER BY a.id`, []any{r.rowid}, func(rs pgx.Rows) error {
		var a desk.Activity
		var detail string
		var mf *int
		if err := rs.Scan(&a.ID, &a.Actor, &a.Action, &detail, &a.CreatedAt, &mf); err != nil {
			return err
		}
		a.Detail = []byte(detail)
		if mf != nil {
			k := desk.IssueKey(r.prefix, *mf)
			a.MergedFrom = &k
		}
		out = append(out, &a)
		return nil
	})
	return out, err
}

// relations reads an issue's children, the issues merged into it and its
// parent.
func relations(ctx context.Context, q querier, r *row) (children []desk.ChildInfo, merged []desk.MergedSource, parent *desk.ParentInfo, err error) {
	children, merged = []desk.ChildInfo{}, []desk.MergedSource{}
	err = eachRow(ctx, q, `SELECT number, title, status, kind, priority, plan_done, plan_total FROM issues
		WHERE parent_id = $1 AND merged_into IS NULL ORDER BY number`, []any{r.rowid}, func(rs pgx.Rows) error {
		var c desk.ChildInfo
		var n int
		if err := rs.Scan(&n, &c.Title, &c.Status, &c.Kind, &c.Priority, &c.Progress.Done, &c.Progress.Total); err != nil {
			return err
		}
		c.ID = desk.IssueKey(r.prefix, n)
		children = append(children, c)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	err = eachRow(ctx, q, `SELECT i.number, i.title, coalesce((SELECT max(a.created_at) FROM activity a
		WHERE a.issue_id = i.id AND a.action = 'merged_into'), i.updated_at) FROM issues i WHERE i.merged_into = $1 ORDER BY i.number`,
		[]any{r.rowid}, func(rs pgx.Rows) error {
			var m desk.MergedSource
			var n int
			if err := rs.Scan(&n, &m.Title, &m.MergedAt); err != nil {
				return err
			}
			m.ID = desk.IssueKey(r.prefix, n)
			merged = append(merged, m)
			return nil
		})
	if err != nil {
		return nil, nil, nil, err
	}
	if r.parentID != 0 {
		var pi desk.ParentInfo
		if err := q.QueryRow(ctx, `SELECT title, status FROM issues WHERE id = $1`, r.parentID).Scan(&pi.Title, &pi.Status); err == nil {
			pi.ID = *r.Parent
			parent = &pi
		}
	}
	return children, merged, parent, nil
}

// now is the store's clock in UTC.
func (db *DB) now() time.Time { return db.Now().UTC() }
