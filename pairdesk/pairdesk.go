// Package pairdesk brings a Pair Desk data folder into a desk: its
// projects with their prefixes and next numbers, every issue with its id,
// comments and verdicts, attachments, activity, game commands, handoff
// versions, plans, builds and repo links, with their original times and
// authors.
//
// The source is only read: its database is opened read-only and its files
// are copied, never moved. An import is one transaction in the desk, and a
// project that the desk already has is left alone, so running it twice adds
// nothing the second time.
package pairdesk

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"desk"
	"desk/link"
	"desk/sqlite"
)

// DBName is Pair Desk's database file in its data folder.
const DBName = "desk.sqlite"

// Result counts what an import brought in and what it left alone.
type Result struct {
	sqlite.LoadStats
	// Skipped are the source's projects the desk already has.
	Skipped []string `json:"skipped"`
	// Links are the repo links added to projects.json.
	Links int `json:"links"`
	// MissingFiles are attachments whose file the source folder lacked;
	// their rows are left out.
	MissingFiles []string `json:"missing_files"`
}

// Import copies the Pair Desk data folder src into db, whose data folder is
// dataDir (for the links).
func Import(ctx context.Context, db *sqlite.DB, dataDir, src string) (*Result, error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return nil, err
	}
	dbPath := filepath.Join(src, DBName)
	if fi, err := os.Stat(dbPath); err != nil || fi.IsDir() {
		return nil, desk.Errorf(desk.NotFound, "%s has no %s: not a Pair Desk data folder", src, DBName).WithHint(
			"point at the folder that holds desk.sqlite, e.g. ~/.agent-pair-programming")
	}
	source, err := readSource(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	res := &Result{Skipped: []string{}, MissingFiles: []string{}}
	var imported []string
	stats, err := db.Load(ctx, sqlite.LoadOptions{}, func(l *sqlite.Loader) error {
		for _, p := range source.projects {
			if _, exists, err := l.ProjectID(p.Slug); err != nil {
				return err
			} else if exists {
				res.Skipped = append(res.Skipped, p.Slug)
				continue
			}
			if err := source.load(l, src, p, res); err != nil {
				return fmt.Errorf("import project %s: %w", p.Slug, err)
			}
			imported = append(imported, p.Slug)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.LoadStats = *stats
	// Links are plain files beside the database: they follow the commit.
	links, err := link.Read(src)
	if err != nil {
		return res, fmt.Errorf("the database is imported, but %s could not be read: %w", filepath.Join(src, link.FileName), err)
	}
	have, err := link.Read(dataDir)
	if err != nil {
		return res, err
	}
	known := map[string]bool{}
	for _, s := range imported {
		known[s] = true
	}
	for _, s := range res.Skipped {
		known[s] = true
	}
	paths := make([]string, 0, len(links))
	for p := range links {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if _, ok := have[p]; ok || !known[links[p]] {
			continue
		}
		if err := link.Write(dataDir, p, links[p]); err != nil {
			return res, err
		}
		res.Links++
	}
	return res, nil
}

// source is everything read from the Pair Desk database, in one snapshot.
type source struct {
	projects    []*project
	keys        map[int64]string // issue row id → key
	issues      map[int64][]*issue
	comments    map[int64][]*comment // by issue row id
	attachments map[int64][]*attachment
	activity    map[int64][]*activity
	commands    map[int64][]*command // by project row id
	handoffs    map[int64][]*desk.Handoff
}

type project struct {
	desk.Project
	id          int64
	nextNumber  int
	buildsCount int
	notifySet   bool
}

type issue struct {
	desk.Issue
	id int64
}

type comment struct {
	desk.Comment
	issueID, mergedFrom int64
}

type attachment struct {
	desk.Attachment
	issueID, commentID, mergedFrom int64
	stored                         string
}

type activity struct {
	desk.Activity
	issueID, mergedFrom int64
}

type command struct {
	desk.Command
	issueID int64
}

// readSource reads the source database read-only, in one read transaction.
func readSource(ctx context.Context, path string) (*source, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(1)"
	if _, err := os.Stat(path + "-wal"); errors.Is(err, os.ErrNotExist) {
		// No write-ahead log: no Pair Desk has the file open. Reading it
		// as immutable leaves the folder exactly as it was (a read-only
		// open would still create the -wal and -shm files).
		dsn += "&immutable=1"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer tx.Rollback()
	r := &reader{ctx: ctx, tx: tx}
	s := &source{keys: map[int64]string{}, issues: map[int64][]*issue{}, comments: map[int64][]*comment{},
		attachments: map[int64][]*attachment{}, activity: map[int64][]*activity{}, commands: map[int64][]*command{},
		handoffs: map[int64][]*desk.Handoff{}}
	if err := r.readAll(s); err != nil {
		return nil, desk.Errorf(desk.Invalid, "%s is not a Pair Desk database this desk can read: %v", path, err)
	}
	return s, nil
}

type reader struct {
	ctx context.Context
	tx  *sql.Tx
}

// columns returns the columns a table has: older Pair Desks lack the
// columns later migrations added.
func (r *reader) columns(table string) (map[string]bool, error) {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		cols[n] = true
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("no table %s", table)
	}
	return cols, rows.Err()
}

// col returns name when the table has it, else a stand-in value.
func col(cols map[string]bool, name, standIn string) string {
	if cols[name] {
		return name
	}
	return standIn + " AS " + name
}

func (r *reader) query(query string, scan func(*sql.Rows) error) error {
	rows, err := r.tx.QueryContext(r.ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (r *reader) readAll(s *source) error {
	pc, err := r.columns("projects")
	if err != nil {
		return err
	}
	prefixes := map[int64]string{}
	err = r.query(`SELECT id, slug, name, prefix, next_number, created_at, `+col(pc, "default_seed", "NULL")+`, `+
		col(pc, "notify", "'{}'")+`, `+col(pc, "build", "'{}'")+`, `+col(pc, "lead", "NULL")+` FROM projects ORDER BY id`,
		func(rows *sql.Rows) error {
			var p project
			var seed sql.NullInt64
			var notify, build, lead sql.NullString
			if err := rows.Scan(&p.id, &p.Slug, &p.Name, &p.Prefix, &p.nextNumber, &p.CreatedAt, &seed, &notify, &build, &lead); err != nil {
				return err
			}
			if seed.Valid {
				p.DefaultSeed = &seed.Int64
			}
			p.Notify = desk.DefaultNotify
			if notify.Valid {
				var n map[string]bool
				if json.Unmarshal([]byte(notify.String), &n) == nil {
					for k, v := range n {
						switch k {
						case "comments":
							p.Notify.Comments = v
						case "verdicts":
							p.Notify.Verdicts = v
						case "reports":
							p.Notify.Reports = v
						case "status":
							p.Notify.Status = v
						}
					}
				}
			}
			p.notifySet = true
			if lead.Valid && lead.String != "" {
				p.Lead = &lead.String
			}
			if build.Valid {
				var b struct {
					Current *desk.Build `json:"current"`
					Count   int         `json:"count"`
				}
				var raw map[string]json.RawMessage
				if json.Unmarshal([]byte(build.String), &raw) == nil && len(raw) > 0 {
					_ = json.Unmarshal([]byte(build.String), &b)
					p.BuildsEnabled, p.Build, p.buildsCount = true, b.Current, b.Count
				}
			}
			prefixes[p.id] = strings.ToUpper(p.Prefix)
			s.projects = append(s.projects, &p)
			return nil
		})
	if err != nil {
		return fmt.Errorf("projects: %w", err)
	}

	ic, err := r.columns("issues")
	if err != nil {
		return err
	}
	type links struct{ parent, merged sql.NullInt64 }
	pending := map[*issue]links{}
	err = r.query(`SELECT id, project_id, number, title, body, kind, status, priority, area, tags, location, source, external_ref,
		created_at, updated_at, closed_at, `+col(ic, "plan", "'{}'")+`, `+col(ic, "parent_id", "NULL")+`, `+col(ic, "merged_into", "NULL")+`, `+
		col(ic, "size", "''")+`, `+col(ic, "milestone", "''")+`, `+col(ic, "build", "'{}'")+` FROM issues ORDER BY project_id, number`,
		func(rows *sql.Rows) error {
			var is issue
			var pid int64
			var tags, loc, plan, build sql.NullString
			var closed sql.NullString
			var ln links
			var size, milestone sql.NullString
			if err := rows.Scan(&is.id, &pid, &is.Number, &is.Title, &is.Body, &is.Kind, &is.Status, &is.Priority, &is.Area, &tags, &loc,
				&is.Source, &is.ExternalRef, &is.CreatedAt, &is.UpdatedAt, &closed, &plan, &ln.parent, &ln.merged, &size, &milestone, &build); err != nil {
				return err
			}
			is.Size, is.Milestone = size.String, milestone.String
			if closed.Valid {
				is.ClosedAt = &closed.String
			}
			_ = json.Unmarshal([]byte(tags.String), &is.Tags)
			is.Location = decodeLocation(loc.String)
			_ = json.Unmarshal([]byte(plan.String), &is.Plan)
			if build.Valid && strings.TrimSpace(build.String) != "{}" && build.String != "" {
				var b desk.BuildRef
				if json.Unmarshal([]byte(build.String), &b) == nil && (b.Path != "" || b.Number > 0) {
					is.Build = &b
				}
			}
			s.keys[is.id] = desk.IssueKey(prefixes[pid], is.Number)
			s.issues[pid] = append(s.issues[pid], &is)
			if ln.parent.Valid || ln.merged.Valid {
				pending[&is] = ln
			}
			return nil
		})
	if err != nil {
		return fmt.Errorf("issues: %w", err)
	}
	for is, ln := range pending {
		if k, ok := s.keys[ln.parent.Int64]; ln.parent.Valid && ok {
			is.Parent = &k
		}
		if k, ok := s.keys[ln.merged.Int64]; ln.merged.Valid && ok {
			is.MergedInto = &k
		}
	}

	cc, err := r.columns("comments")
	if err != nil {
		return err
	}
	err = r.query(`SELECT id, issue_id, author, text, verdict, created_at, `+col(cc, "merged_from", "NULL")+` FROM comments ORDER BY id`,
		func(rows *sql.Rows) error {
			var c comment
			var verdict sql.NullString
			var mf sql.NullInt64
			if err := rows.Scan(&c.ID, &c.issueID, &c.Author, &c.Text, &verdict, &c.CreatedAt, &mf); err != nil {
				return err
			}
			if verdict.Valid && verdict.String != "" {
				c.Verdict = &verdict.String
			}
			c.mergedFrom = mf.Int64
			s.comments[c.issueID] = append(s.comments[c.issueID], &c)
			return nil
		})
	if err != nil {
		return fmt.Errorf("comments: %w", err)
	}

	ac, err := r.columns("attachments")
	if err != nil {
		return err
	}
	err = r.query(`SELECT id, issue_id, comment_id, filename, mime, size, stored_path, created_at, `+col(ac, "merged_from", "NULL")+
		` FROM attachments ORDER BY id`, func(rows *sql.Rows) error {
		var a attachment
		var cid, mf sql.NullInt64
		if err := rows.Scan(&a.ID, &a.issueID, &cid, &a.Filename, &a.Mime, &a.Size, &a.stored, &a.CreatedAt, &mf); err != nil {
			return err
		}
		a.commentID, a.mergedFrom = cid.Int64, mf.Int64
		s.attachments[a.issueID] = append(s.attachments[a.issueID], &a)
		return nil
	})
	if err != nil {
		return fmt.Errorf("attachments: %w", err)
	}

	vc, err := r.columns("activity")
	if err != nil {
		return err
	}
	err = r.query(`SELECT id, issue_id, actor, action, detail, created_at, `+col(vc, "merged_from", "NULL")+` FROM activity ORDER BY id`,
		func(rows *sql.Rows) error {
			var a activity
			var detail string
			var mf sql.NullInt64
			if err := rows.Scan(&a.ID, &a.issueID, &a.Actor, &a.Action, &detail, &a.CreatedAt, &mf); err != nil {
				return err
			}
			a.Detail, a.mergedFrom = json.RawMessage(detail), mf.Int64
			s.activity[a.issueID] = append(s.activity[a.issueID], &a)
			return nil
		})
	if err != nil {
		return fmt.Errorf("activity: %w", err)
	}

	err = r.query(`SELECT id, project_id, issue_id, command, created_by, created_at, expires_at, delivered_at, client FROM commands ORDER BY id`,
		func(rows *sql.Rows) error {
			var c command
			var pid int64
			var iid sql.NullInt64
			var delivered, client sql.NullString
			if err := rows.Scan(&c.ID, &pid, &iid, &c.Command.Command, &c.CreatedBy, &c.CreatedAt, &c.ExpiresAt, &delivered, &client); err != nil {
				return err
			}
			c.issueID = iid.Int64
			if delivered.Valid {
				c.DeliveredAt = &delivered.String
			}
			if client.Valid {
				c.Client = &client.String
			}
			s.commands[pid] = append(s.commands[pid], &c)
			return nil
		})
	if err != nil {
		return fmt.Errorf("commands: %w", err)
	}

	err = r.query(`SELECT project_id, version, markdown, author, note, created_at FROM handoffs ORDER BY project_id, version`,
		func(rows *sql.Rows) error {
			var h desk.Handoff
			var pid int64
			if err := rows.Scan(&pid, &h.Version, &h.Markdown, &h.Author, &h.Note, &h.CreatedAt); err != nil {
				return err
			}
			s.handoffs[pid] = append(s.handoffs[pid], &h)
			return nil
		})
	if err != nil {
		return fmt.Errorf("handoffs: %w", err)
	}
	return nil
}

// decodeLocation reads a stored location with desk's own rules (unknown
// keys into extra); one it cannot read is kept whole in extra rather than
// lost.
func decodeLocation(text string) desk.Location {
	if strings.TrimSpace(text) == "" || strings.TrimSpace(text) == "{}" {
		return desk.Location{}
	}
	loc, err := desk.DecodeLocation(json.RawMessage(text))
	if err == nil {
		return loc
	}
	var raw any
	if json.Unmarshal([]byte(text), &raw) != nil {
		raw = text
	}
	return desk.Location{Extra: map[string]any{"pair_desk_location": raw}}
}

// load writes one project and everything in it.
func (s *source) load(l *sqlite.Loader, src string, p *project, res *Result) error {
	pid, err := l.Project(sqlite.LoadProject{Project: p.Project, NextNumber: p.nextNumber, BuildsCount: p.buildsCount, NotifySet: p.notifySet})
	if err != nil {
		return err
	}
	ids := map[int64]int64{} // source issue row → desk row
	for _, is := range s.issues[p.id] {
		if ids[is.id], err = l.Issue(pid, &is.Issue); err != nil {
			return err
		}
	}
	key := func(id int64) *string {
		if k, ok := s.keys[id]; ok && id != 0 {
			if _, here := l.IssueID(k); here {
				return &k
			}
		}
		return nil
	}
	commentIDs, attachmentIDs, commandIDs := map[int64]int64{}, map[int64]int64{}, map[int64]int64{}
	for _, is := range s.issues[p.id] {
		for _, c := range s.comments[is.id] {
			c.MergedFrom = key(c.mergedFrom)
			if commentIDs[c.ID], err = l.Comment(ids[is.id], &c.Comment); err != nil {
				return err
			}
		}
		for _, a := range s.attachments[is.id] {
			path := a.stored
			if !filepath.IsAbs(path) {
				path = filepath.Join(src, filepath.FromSlash(path))
			}
			f, err := os.Open(path)
			if errors.Is(err, os.ErrNotExist) {
				res.MissingFiles = append(res.MissingFiles, a.stored)
				continue
			}
			if err != nil {
				return fmt.Errorf("attachment %s: %w", a.stored, err)
			}
			a.MergedFrom = key(a.mergedFrom)
			a.CommentID = nil
			if cid, ok := commentIDs[a.commentID]; ok && a.commentID != 0 {
				a.CommentID = &cid
			}
			id, err := l.Attachment(ids[is.id], &a.Attachment, f)
			f.Close()
			if err != nil {
				return err
			}
			attachmentIDs[a.ID] = id
		}
	}
	for _, c := range s.commands[p.id] {
		if commandIDs[c.ID], err = l.Command(pid, ids[c.issueID], &c.Command); err != nil {
			return err
		}
	}
	for _, is := range s.issues[p.id] {
		for _, a := range s.activity[is.id] {
			a.MergedFrom = key(a.mergedFrom)
			a.Detail = remapDetail(a.Action, a.Detail, ids, attachmentIDs, commandIDs)
			if _, err := l.Activity(ids[is.id], &a.Activity); err != nil {
				return err
			}
		}
	}
	for _, h := range s.handoffs[p.id] {
		if _, err := l.Handoff(pid, h); err != nil {
			return err
		}
	}
	return nil
}

// remapDetail points the row ids an activity entry records (the attachment
// attached, the command sent, the children a merge moved) at their new
// rows, so that an unmerge in the desk moves the right children back.
func remapDetail(action string, detail json.RawMessage, issues, attachments, commands map[int64]int64) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(detail, &m) != nil {
		return detail
	}
	remap := func(field string, ids map[int64]int64) bool {
		f, ok := m[field].(float64)
		if !ok {
			return false
		}
		if n, ok := ids[int64(f)]; ok {
			m[field] = n
			return true
		}
		return false
	}
	changed := false
	switch action {
	case desk.ActAttached:
		changed = remap("attachment", attachments)
	case desk.ActCommandSent, desk.ActCommandDelivered:
		changed = remap("command_id", commands)
	case desk.ActMergedInto:
		if list, ok := m["children"].([]any); ok {
			out := make([]int64, 0, len(list))
			for _, v := range list {
				if f, ok := v.(float64); ok {
					if n, ok := issues[int64(f)]; ok {
						out = append(out, n)
					}
				}
			}
			m["children"], changed = out, true
		}
	}
	if !changed {
		return detail
	}
	b, err := json.Marshal(m)
	if err != nil {
		return detail
	}
	return b
}
