package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"desk"
)

// CreateIssue files an issue in a project.
func (db *DB) CreateIssue(ctx context.Context, slug string, f desk.IssueFields, o desk.CreateOptions) (*desk.IssueDetail, error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	if f.Title == nil {
		return nil, desk.Errorf(desk.Invalid, "title: required")
	}
	author := cleanActor(o.Author, desk.OwnerActor)
	files, err := checkAttachments(o.Attachments, desk.MaxAttachment)
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
			if err := tx.queryRow(`SELECT count(*) FROM issues WHERE project_id = ? AND external_ref = ?`, p.id, *f.ExternalRef).Scan(&n); err != nil {
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

// createIssue inserts a new issue with its "created" activity; the
// issue's defaults and first status are desk.NewIssue's.
func (tx *Tx) createIssue(p *projectRow, f desk.IssueFields, author string, agent bool) (*row, error) {
	is, detail, err := desk.NewIssue(&p.Project, p.nextNumber, f, author, agent)
	if err != nil {
		return nil, err
	}
	r := &row{Issue: *is, projectID: p.id, prefix: p.Prefix}
	var closed any
	if desk.IsDone(r.Status) {
		closed = tx.ts
	}
	var build any
	if r.Build != nil {
		build = jsonText(r.Build)
	}
	res, err := tx.exec(`INSERT INTO issues (project_id, number, title, body, kind, status, priority, area, tags, location, seed,
		source, external_ref, size, milestone, build, created_at, updated_at, closed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.id, r.Number, r.Title, r.Body, r.Kind, r.Status, r.Priority, r.Area, jsonText(r.Tags), jsonText(r.Location),
		r.Location.Seed, r.Source, r.ExternalRef, r.Size, r.Milestone, build, tx.ts, tx.ts, closed)
	if err != nil {
		return nil, fmt.Errorf("insert issue: %w", err)
	}
	r.rowid, _ = res.LastInsertId()
	if _, err := tx.exec(`UPDATE projects SET next_number = next_number + 1 WHERE id = ?`, p.id); err != nil {
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
	actor = cleanActor(actor, desk.OwnerActor)
	return db.writeIssue(ctx, id, func(tx *Tx, r *row) error { return tx.updateIssue(r, f, actor) })
}

// writeIssue runs fn on the issue id stands for (following merges) in a
// write transaction, and answers with the issue as it is then.
func (db *DB) writeIssue(ctx context.Context, id string, fn func(tx *Tx, r *row) error) (*desk.Issue, error) {
	var key string
	err := db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		key = r.ID
		return fn(tx, r)
	})
	if err != nil {
		return nil, err
	}
	return db.issueRow(ctx, key)
}

func (tx *Tx) updateIssue(r *row, f desk.IssueFields, actor string) error {
	e, err := desk.EditIssue(&r.Issue, f, actor, func() (bool, error) {
		var n int
		err := tx.queryRow(`SELECT count(*) FROM activity WHERE issue_id = ? AND action = 'edited' AND instr(detail, ?) > 0`,
			r.rowid, desk.OwnerOriginalMarker).Scan(&n)
		return n > 0, err
	})
	if err != nil {
		return err
	}
	if e.Detail != nil {
		if _, err := tx.exec(`UPDATE issues SET title = ?, body = ?, kind = ?, priority = ?, area = ?, source = ?,
			external_ref = ?, size = ?, milestone = ?, tags = ?, updated_at = ? WHERE id = ?`,
			r.Title, r.Body, r.Kind, r.Priority, r.Area, r.Source, r.ExternalRef, r.Size, r.Milestone,
			jsonText(r.Tags), tx.ts, r.rowid); err != nil {
			return err
		}
		if e.LocationChanged {
			if err := tx.saveLocation(r, r.Location); err != nil {
				return err
			}
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

// saveLocation stores a location and its seed column.
func (tx *Tx) saveLocation(r *row, loc desk.Location) error {
	r.Location = loc
	_, err := tx.exec(`UPDATE issues SET location = ?, seed = ?, updated_at = ? WHERE id = ?`, jsonText(loc), loc.Seed, tx.ts, r.rowid)
	return err
}

// SetStatus moves an issue to status.
func (db *DB) SetStatus(ctx context.Context, id, status, actor string) (*desk.Issue, error) {
	status, err := desk.NormalizeStatus(status)
	if err != nil {
		return nil, err
	}
	actor = cleanActor(actor, desk.OwnerActor)
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
	var closed, buildText any
	if r.ClosedAt != nil {
		closed = *r.ClosedAt
	}
	if r.Build != nil {
		buildText = jsonText(r.Build)
	}
	if _, err := tx.exec(`UPDATE issues SET status = ?, closed_at = ?, build = ?, updated_at = ? WHERE id = ?`,
		to, closed, buildText, tx.ts, r.rowid); err != nil {
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
		if err := tx.queryRow(`SELECT count(*) FROM issues WHERE merged_into = ?`, r.rowid).Scan(&merged); err != nil {
			return err
		}
		if merged > 0 {
			return desk.ErrHoldsMerged(r.ID, merged)
		}
		rows, err := tx.QueryContext(ctx, `SELECT stored_path FROM attachments WHERE issue_id = ?`, r.rowid)
		if err != nil {
			return err
		}
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return err
			}
			tx.dropFiles = append(tx.dropFiles, p)
		}
		rows.Close()
		if r.parentID != 0 {
			if parent, err := issueByRowID(ctx, tx, r.parentID); err == nil {
				tx.touch(parent)
			}
		}
		if _, err := tx.exec(`DELETE FROM issues WHERE id = ?`, r.rowid); err != nil {
			return err
		}
		return tx.feed(desk.DeletedChange(&r.Issue, actor), r.rowid)
	})
}

// issueRow reads an issue as a write answers it: its own fields, following
// merges.
func (db *DB) issueRow(ctx context.Context, key string) (*desk.Issue, error) {
	r, _, err := resolve(ctx, db.pool(), key)
	if err != nil {
		return nil, err
	}
	return &r.Issue, db.withClaim(ctx, db.pool(), r)
}

// Issue returns an issue with everything that hangs off it.
func (db *DB) Issue(ctx context.Context, id string) (*desk.IssueDetail, error) {
	var d *desk.IssueDetail
	err := db.view(ctx, func(tx *readTx) error {
		r, from, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := db.withClaim(ctx, tx, r); err != nil {
			return err
		}
		h, parent := db.index.current(ctx, tx, r.projectID, r.rowid, r.parentID)
		d, err = db.detail(ctx, tx, r, h, parent)
		if d != nil {
			d.RedirectedFrom = from
		}
		return err
	})
	return d, err
}

// detail reads what hangs off an issue. h is the issue's head in the
// index when the index matches the read's snapshot (see issueIndex.current)
// and parent its parent's: the parts are kept on h and reused while both
// stay the same. The slices of a detail may be shared; nothing may change them.
func (db *DB) detail(ctx context.Context, q queryer, r *row, h, parent *head) (*desk.IssueDetail, error) {
	parts, err := detailPartsOf(ctx, q, r, h, parent)
	if err != nil {
		return nil, err
	}
	d := &desk.IssueDetail{Issue: r.Issue}
	d.Comments, d.Attachments, d.Activity = parts.comments, parts.attachments, parts.activity
	if h != nil {
		// Parts kept on the index are read again: their JSON is worth keeping.
		d.Lists = parts.lists()
	}
	d.Children, d.MergedSources, d.ParentInfo = parts.children, parts.mergedSources, parts.parentInfo
	d.Commands = commandsAt(parts.commands, db.Now())
	d.Landings = desk.LandingsOf(parts.activity)
	return d, nil
}

// detailPartsOf returns the parts of r's detail: kept on h, extended
// from what an earlier version of the issue had (a busy issue gains a
// comment every few seconds, and its hundreds of older ones stay as they
// were), or read whole.
func detailPartsOf(ctx context.Context, q queryer, r *row, h, parent *head) (*detailParts, error) {
	if h == nil {
		return readDetailParts(ctx, q, r)
	}
	if p := h.cache.detail.Load(); p != nil && p.parent == parent {
		return p, nil
	}
	var parts *detailParts
	var err error
	if prev := h.cache.prev; prev != nil && prev.parent == parent {
		if parts, err = extendDetailParts(ctx, q, r, prev); err != nil {
			return nil, err
		}
	}
	if parts == nil {
		if parts, err = readDetailParts(ctx, q, r); err != nil {
			return nil, err
		}
	}
	parts.parent = parent
	h.cache.detail.Store(parts)
	return parts, nil
}

// extendDetailParts appends to prev what was added to the issue since:
// comments, files and timeline entries with higher ids. It returns nil when
// the issue changed otherwise (a merge moved older rows in, a file was
// deleted, a file was added to an older comment), which the counts tell.
func extendDetailParts(ctx context.Context, q queryer, r *row, prev *detailParts) (*detailParts, error) {
	// The lists are in id order: their last ids are where the new rows start.
	files, err := attachments(ctx, q, r, `a.issue_id = ? AND a.id > ?`, r.rowid, lastID(prev.attachments, func(a *desk.Attachment) int64 { return a.ID }))
	if err != nil {
		return nil, err
	}
	byComment := filesByComment(files)
	cs, err := comments(ctx, q, r, byComment, `c.issue_id = ? AND c.id > ?`, r.rowid, lastID(prev.comments, func(c *desk.Comment) int64 { return c.ID }))
	if err != nil {
		return nil, err
	}
	fresh := map[int64]bool{}
	for _, c := range cs {
		fresh[c.ID] = true
	}
	for id := range byComment {
		if !fresh[id] {
			return nil, nil // a file for a comment read before
		}
	}
	if len(prev.comments)+len(cs) != r.CommentCount || len(prev.attachments)+len(files) != r.AttachmentCount {
		return nil, nil
	}
	acts, err := activities(ctx, q, r, `a.issue_id = ? AND a.id > ?`, r.rowid, lastID(prev.activity, func(a *desk.Activity) int64 { return a.ID }))
	if err != nil {
		return nil, err
	}
	n, err := activityCount(ctx, q, r)
	if err != nil {
		return nil, err
	}
	if n != len(prev.activity)+len(acts) {
		return nil, nil
	}
	d := &detailParts{
		comments:    slices.Concat(prev.comments, cs),
		attachments: slices.Concat(prev.attachments, files),
		activity:    slices.Concat(prev.activity, acts),
		commands:    prev.commands,
	}
	if slices.ContainsFunc(acts, func(a *desk.Activity) bool {
		return a.Action == desk.ActCommandSent || a.Action == desk.ActCommandDelivered
	}) {
		if d.commands, err = issueCommands(ctx, q, r); err != nil {
			return nil, err
		}
	}
	if l := prev.json.Load(); l != nil {
		// The earlier version's JSON, with the new entries written after it.
		d.json.Store(l.Extend(d.comments, d.attachments, d.activity, len(cs), len(files), len(acts)))
	}
	d.children, d.mergedSources, d.parentInfo, err = readRelations(ctx, q, r)
	return d, err
}

// readDetailParts reads what hangs off an issue.
func readDetailParts(ctx context.Context, q queryer, r *row) (*detailParts, error) {
	d := &detailParts{}
	var err error
	if d.commands, err = issueCommands(ctx, q, r); err != nil {
		return nil, err
	}
	if d.attachments, err = attachments(ctx, q, r, `a.issue_id = ?`, r.rowid); err != nil {
		return nil, err
	}
	if d.comments, err = comments(ctx, q, r, filesByComment(d.attachments), ""); err != nil {
		return nil, err
	}
	if d.activity, err = activities(ctx, q, r, `a.issue_id = ?`, r.rowid); err != nil {
		return nil, err
	}
	d.children, d.mergedSources, d.parentInfo, err = readRelations(ctx, q, r)
	return d, err
}

// filesByComment groups the files of comments by their comment.
func filesByComment(files []*desk.Attachment) map[int64][]*desk.Attachment {
	by := map[int64][]*desk.Attachment{}
	for _, a := range files {
		if a.CommentID != nil {
			by[*a.CommentID] = append(by[*a.CommentID], a)
		}
	}
	return by
}

// activityCount counts an issue's timeline entries.
func activityCount(ctx context.Context, q queryer, r *row) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM activity WHERE issue_id = ?`, r.rowid).Scan(&n)
	return n, err
}

// lastID is the id of a list's last entry, 0 for an empty list.
func lastID[T any](list []*T, id func(*T) int64) int64 {
	if len(list) == 0 {
		return 0
	}
	return id(list[len(list)-1])
}

// readRelations reads what an issue is linked to: its children, the
// issues merged into it and its parent. Few rows, read again with every
// change of the issue.
func readRelations(ctx context.Context, q queryer, r *row) (children []desk.ChildInfo, merged []desk.MergedSource, parent *desk.ParentInfo, err error) {
	children, merged = []desk.ChildInfo{}, []desk.MergedSource{}
	// child_count, kept by triggers, says whether there are any to read.
	if r.ChildCount > 0 {
		err = eachRow(ctx, q, `SELECT number, title, status, kind, priority, plan_done, plan_total FROM issues
			WHERE parent_id = ? AND merged_into IS NULL ORDER BY number`, []any{r.rowid}, func(rs *sql.Rows) error {
			var c desk.ChildInfo
			var n int64
			if err := rs.Scan(&n, &c.Title, &c.Status, &c.Kind, &c.Priority, &c.Progress.Done, &c.Progress.Total); err != nil {
				return err
			}
			c.ID = r.key(n)
			children = append(children, c)
			return nil
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	err = eachRow(ctx, q, `SELECT i.number, i.title, coalesce((SELECT max(a.created_at) FROM activity a
		WHERE a.issue_id = i.id AND a.action = 'merged_into'), i.updated_at) FROM issues i WHERE i.merged_into = ? ORDER BY i.number`,
		[]any{r.rowid}, func(rs *sql.Rows) error {
			var m desk.MergedSource
			var n int64
			if err := rs.Scan(&n, &m.Title, &m.MergedAt); err != nil {
				return err
			}
			m.ID = r.key(n)
			merged = append(merged, m)
			return nil
		})
	if err != nil {
		return nil, nil, nil, err
	}
	if r.parentID != 0 {
		var pi desk.ParentInfo
		if err := q.QueryRowContext(ctx, `SELECT title, status FROM issues WHERE id = ?`, r.parentID).Scan(&pi.Title, &pi.Status); err == nil {
			pi.ID = *r.Parent
			parent = &pi
		}
	}
	return children, merged, parent, nil
}

// cleanActor is desk.CleanActor.
func cleanActor(actor, def string) string { return desk.CleanActor(actor, def) }
