package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

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

// createIssue inserts a new issue with its "created" activity.
func (tx *Tx) createIssue(p *projectRow, f desk.IssueFields, author string, agent bool) (*row, error) {
	str := func(v *string, def string) string {
		if v == nil {
			return def
		}
		return *v
	}
	r := &row{projectID: p.id, prefix: p.Prefix}
	r.Project = p.Slug
	r.Title = *f.Title
	r.Body = str(f.Body, "")
	def := defaultsFor(agent)
	r.Kind = str(f.Kind, def.kind)
	r.Priority = str(f.Priority, "p2")
	r.Source = str(f.Source, def.source)
	r.Area = str(f.Area, "")
	r.ExternalRef = str(f.ExternalRef, "")
	r.Size = str(f.Size, "")
	r.Milestone = str(f.Milestone, "")
	r.Tags = []string{}
	if f.Tags != nil {
		r.Tags = *f.Tags
	}
	r.Location = f.ApplyLocation(desk.Location{})
	if r.Location.Seed == nil && f.Seed == nil && p.DefaultSeed != nil && (r.Source == desk.SourceAgent || r.Kind == desk.KindCheck) {
		// Agent issues and checks land in the owner's default world; game
		// reports keep what the game sent.
		r.Location.Seed = p.DefaultSeed
	}
	r.ID = desk.IssueKey(p.Prefix, p.nextNumber)
	r.Number = p.nextNumber

	switch {
	case f.Status != nil:
		r.Status = *f.Status
		if err := desk.CheckStatusChange(author, r.Status); err != nil {
			return nil, err
		}
		if r.Status == desk.StatusToCheck && !desk.IsOwner(author) {
			if err := desk.HandoverProblem(&r.Issue, &p.Project); err != nil {
				return nil, err
			}
		}
	case agent && r.Kind == desk.KindCheck:
		// A check goes to the owner when it can; one he could not reach yet
		// waits for the agent's own verification instead.
		r.Status = desk.StatusToCheck
		if desk.HandoverProblem(&r.Issue, &p.Project) != nil {
			r.Status = desk.StatusAutoCheck
		}
	case agent:
		r.Status = desk.StatusOpen
	case r.Kind == desk.KindCheck && r.Source != desk.SourceGame:
		r.Status = desk.StatusToCheck
	default:
		r.Status = desk.StatusReported
	}
	if r.Status == desk.StatusToCheck && p.Build != nil {
		r.Build = p.Build.Ref()
	}
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
	detail := map[string]any{"status": r.Status}
	if r.Build != nil {
		detail["build"] = r.Build.Label
	}
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

type issueDefaults struct{ kind, source string }

// defaultsFor gives the kind and source of a new issue: an agent files
// checks for the owner, everyone else files bugs in their own name.
func defaultsFor(agent bool) issueDefaults {
	if agent {
		return issueDefaults{desk.KindCheck, desk.SourceAgent}
	}
	return issueDefaults{desk.KindBug, desk.SourceOwner}
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
	old := r.Issue
	changes := map[string]any{}
	var fields []string
	change := func(name string, from, to any) {
		fields = append(fields, name)
		changes[name] = map[string]any{"from": from, "to": to}
	}
	setStr := func(name string, dst *string, v *string) {
		if v != nil && *v != *dst {
			change(name, *dst, *v)
			*dst = *v
		}
	}
	setStr("title", &r.Title, f.Title)
	setStr("body", &r.Body, f.Body)
	setStr("kind", &r.Kind, f.Kind)
	setStr("priority", &r.Priority, f.Priority)
	setStr("area", &r.Area, f.Area)
	setStr("source", &r.Source, f.Source)
	setStr("external_ref", &r.ExternalRef, f.ExternalRef)
	setStr("size", &r.Size, f.Size)
	setStr("milestone", &r.Milestone, f.Milestone)
	if f.Tags != nil && strings.Join(*f.Tags, "\x00") != strings.Join(r.Tags, "\x00") {
		change("tags", r.Tags, *f.Tags)
		r.Tags = *f.Tags
	}
	locChanged := false
	if f.TouchesLocation() {
		loc := f.ApplyLocation(r.Location)
		if jsonText(loc) != jsonText(r.Location) {
			change("location", r.Location, loc)
			r.Location = loc
			locChanged = true
		}
	}
	if len(fields) > 0 {
		detail := map[string]any{"fields": fields, "changes": changes}
		if (f.Title != nil || f.Body != nil) && (changes["title"] != nil || changes["body"] != nil) &&
			!desk.IsOwner(actor) && old.Source == desk.SourceOwner {
			var n int
			if err := tx.queryRow(`SELECT count(*) FROM activity WHERE issue_id = ? AND action = 'edited' AND detail LIKE '%"owner_original"%'`, r.rowid).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				// The owner's own words stay readable after an agent
				// clarifies a terse report.
				detail["owner_original"] = map[string]string{"title": old.Title, "body": old.Body}
			}
		}
		if _, err := tx.exec(`UPDATE issues SET title = ?, body = ?, kind = ?, priority = ?, area = ?, source = ?,
			external_ref = ?, size = ?, milestone = ?, tags = ?, updated_at = ? WHERE id = ?`,
			r.Title, r.Body, r.Kind, r.Priority, r.Area, r.Source, r.ExternalRef, r.Size, r.Milestone,
			jsonText(r.Tags), tx.ts, r.rowid); err != nil {
			return err
		}
		if locChanged {
			if err := tx.saveLocation(r, r.Location); err != nil {
				return err
			}
		}
		if _, err := tx.activity(r, actor, desk.ActEdited, detail); err != nil {
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
	status = strings.ToLower(strings.TrimSpace(status))
	if err := desk.CheckEnum("status", status, desk.Statuses); err != nil {
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

// setStatus applies every rule of a status change: only the owner passes;
// an agent hands over only what the owner can check; reaching to_check
// stamps the current build; done statuses set closed_at.
func (tx *Tx) setStatus(r *row, p *projectRow, to, actor, reason string) error {
	if err := desk.CheckStatusChange(actor, to); err != nil {
		return err
	}
	if to == desk.StatusToCheck && !desk.IsOwner(actor) && reason == "" {
		if err := desk.HandoverProblem(&r.Issue, &p.Project); err != nil {
			return err
		}
	}
	from := r.Status
	detail := map[string]any{"from": from, "to": to}
	if reason != "" {
		detail["reason"] = reason
	}
	var closed any
	if desk.IsDone(to) {
		closed = tx.ts
		if r.ClosedAt != nil && desk.IsDone(from) {
			closed = *r.ClosedAt
		}
	}
	build := r.Build
	if to == desk.StatusToCheck && p.Build != nil {
		build = p.Build.Ref()
		detail["build"] = build.Label
	}
	var buildText any
	if build != nil {
		buildText = jsonText(build)
	}
	if _, err := tx.exec(`UPDATE issues SET status = ?, closed_at = ?, build = ?, updated_at = ? WHERE id = ?`,
		to, closed, buildText, tx.ts, r.rowid); err != nil {
		return err
	}
	r.Status, r.Build = to, build
	if closed != nil {
		s := closed.(string)
		r.ClosedAt = &s
	} else {
		r.ClosedAt = nil
	}
	_, err := tx.activity(r, actor, desk.ActStatus, detail)
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
			return desk.Errorf(desk.Conflict, "%s holds %d merged issue(s): unmerge them first", r.ID, merged)
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
			tx.dropFiles = append(tx.dropFiles, tx.db.attachmentPath(p))
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
		key := r.ID
		return tx.feed(desk.Change{Project: r.Project, Issue: &key, Type: desk.ChangeIssue, Action: "deleted", Actor: cleanActor(actor, desk.OwnerActor)}, r.rowid)
	})
}

// issueRow reads an issue as a write answers it: its own fields, following
// merges.
func (db *DB) issueRow(ctx context.Context, key string) (*desk.Issue, error) {
	r, _, err := resolve(ctx, db.pool(), key)
	if err != nil {
		return nil, err
	}
	return &r.Issue, nil
}

// Issue returns an issue with everything that hangs off it.
func (db *DB) Issue(ctx context.Context, id string) (*desk.IssueDetail, error) {
	var d *desk.IssueDetail
	err := db.view(ctx, func(tx *readTx) error {
		r, from, err := resolve(ctx, tx, id)
		if err != nil {
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

// cleanActor trims an actor name, caps its length and falls back to def.
func cleanActor(actor, def string) string {
	actor = desk.CollapseSpace(actor)
	if actor == "" {
		return def
	}
	if len(actor) > desk.MaxAuthor {
		actor = actor[:desk.MaxAuthor]
	}
	return actor
}
