package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"desk"
)

// Bulk loading: rows with given numbers, times and authors, for imports (a
// Pair Desk data folder, a desk export) and for the benchmark's dataset
// generator.
//
// The service methods apply the rules of the data model to one change at a
// time and stamp it with the current time. A load instead writes history as
// it happened: an issue that was passed a year ago arrives passed, with its
// comments, verdicts and activity at their original times. It therefore
// checks only what keeps the desk readable (known enum values, valid JSON,
// unique numbers) and trusts the caller with the rest.
//
// A load is one write transaction: it lands whole or not at all, and every
// other process keeps reading the state before it until it commits. The
// counters lists show (comment and attachment counts, last verdict,
// children done) are kept by the schema's triggers as rows arrive; the
// project's next issue number is raised past the highest number loaded.
// Each loaded issue gets one feed row (type issue, action "imported"), so a
// running server's lists and live views pick the load up; comments and
// activity get none, because they are history, not news for the agents.
//
// How to call it, for an importer or a generator:
//
//	stats, err := db.Load(ctx, sqlite.LoadOptions{RebuildSearchIndex: true}, func(l *sqlite.Loader) error {
//		pid, err := l.Project(sqlite.LoadProject{Project: desk.Project{Slug: "mygame", Name: "MyGame", Prefix: "MG"}})
//		if err != nil {
//			return err
//		}
//		// Every issue of the project first (parents and merge targets are
//		// named by key and joined up at the end) ...
//		id, err := l.Issue(pid, &desk.Issue{Number: 1, Title: "Lava tips are square", Kind: "bug",
//			Status: "open", Priority: "p2", Source: "owner", CreatedAt: "2026-09-01T10:00:00.000Z"})
//		if err != nil {
//			return err
//		}
//		// ... then what hangs off them, oldest first (the last verdict is
//		// the last one inserted).
//		_, err = l.Comment(id, &desk.Comment{Author: "owner", Text: "still square", CreatedAt: "2026-09-02T09:00:00.000Z"})
//		return err
//	})
//
// Issues, comments and activity cost a few microseconds each: a generator
// writes 100,000 issues and 1,000,000 comments in one call. For a load that
// is large next to the desk it fills (a generator filling an empty desk),
// set RebuildSearchIndex: indexing everything once at the end is several
// times faster than row by row. A generator that wants to bound the size of
// one transaction calls Load once per project.

// LoadOptions tune a load.
type LoadOptions struct {
	// RebuildSearchIndex drops the search index for the load and builds it
	// again from every row before the commit. Leave it unset for a small
	// load into a large desk, where updating the index row by row is
	// cheaper than rebuilding it whole.
	RebuildSearchIndex bool
	// Names, when set, gives the random bytes of attachment file names in
	// place of crypto/rand, so that a generator's load comes out the same
	// byte for byte every time.
	Names io.Reader
}

// LoadStats counts what a load wrote.
type LoadStats struct {
	Projects    int `json:"projects"`
	Issues      int `json:"issues"`
	Comments    int `json:"comments"`
	Attachments int `json:"attachments"`
	Activity    int `json:"activity"`
	Commands    int `json:"commands"`
	Handoffs    int `json:"handoffs"`
	// UnresolvedLinks counts parents and merge targets named by a key that
	// no loaded issue has; they are left out.
	UnresolvedLinks int `json:"unresolved_links"`
}

// LoadProject is a project as Loader.Project takes it: the domain project
// (slug, name, prefix, created_at, default_seed, notify, lead, build,
// builds_enabled) and the counters a service write would keep.
type LoadProject struct {
	desk.Project
	// NextNumber is the number the next new issue gets; it is raised past
	// the highest number loaded. 0 means just past it.
	NextNumber int `json:"next_number"`
	// BuildsCount is how many builds the project has published (0: the
	// current build's number, if any).
	BuildsCount int `json:"builds_count"`
	// NotifySet says Notify was given; without it a zero Notify means every
	// event on, as for a new project.
	NotifySet bool `json:"-"`
}

// Loader writes rows inside one load. Its methods return the new row ids
// that later rows refer to. A Loader is valid only inside the function
// given to Load and is not safe for concurrent use.
type Loader struct {
	tx       *Tx
	projects map[int64]*loadedProject
	keys     map[string]int64 // issue key → row id, for the issues of this load
	links    []pendingLink
	stmts    map[string]*sql.Stmt
	stats    LoadStats
	names    io.Reader // the random bytes of attachment file names
}

type loadedProject struct {
	slug, prefix string
	maxNumber    int
	nextNumber   int
}

type pendingLink struct {
	rowid          int64
	parent, merged string
}

// Load runs fn in one write transaction with a Loader, then joins up the
// parents and merge targets it named, raises the projects' next numbers,
// appends the feed rows and commits. When fn or any step fails nothing is
// written, files included.
func (db *DB) Load(ctx context.Context, o LoadOptions, fn func(*Loader) error) (*LoadStats, error) {
	var stats LoadStats
	err := db.update(ctx, func(tx *Tx) error {
		l := &Loader{tx: tx, projects: map[int64]*loadedProject{}, keys: map[string]int64{}, stmts: map[string]*sql.Stmt{}, names: o.Names}
		if l.names == nil {
			l.names = rand.Reader
		}
		defer l.close()
		if o.RebuildSearchIndex {
			if _, err := tx.exec(DropSearchIndexSQL()); err != nil {
				return fmt.Errorf("load: drop the search index: %w", err)
			}
		}
		if err := fn(l); err != nil {
			return err
		}
		if err := l.finish(); err != nil {
			return err
		}
		if o.RebuildSearchIndex {
			if _, err := tx.exec(searchIndexSQL); err != nil {
				return fmt.Errorf("load: build the search index: %w", err)
			}
		}
		stats = l.stats
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &stats, nil
}

func (l *Loader) close() {
	for _, s := range l.stmts {
		s.Close()
	}
}

// exec runs one of the loader's statements, prepared once per load.
func (l *Loader) exec(query string, args ...any) (int64, error) {
	st := l.stmts[query]
	if st == nil {
		var err error
		if st, err = l.tx.PrepareContext(l.tx.ctx, query); err != nil {
			return 0, err
		}
		l.stmts[query] = st
	}
	res, err := st.ExecContext(l.tx.ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Now returns the load's timestamp, used for rows given without a time.
func (l *Loader) Now() string { return l.tx.ts }

// Stats returns what the load has written so far.
func (l *Loader) Stats() LoadStats { return l.stats }

// ProjectID returns the row id of an existing project, for callers that
// decide what to load by what the desk already has.
func (l *Loader) ProjectID(slug string) (int64, bool, error) {
	var id int64
	err := l.tx.queryRow(`SELECT id FROM projects WHERE slug = ?`, slug).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	return id, err == nil, err
}

// Project creates a project and returns its row id. Conflict when the slug
// or the prefix is taken.
func (l *Loader) Project(p LoadProject) (int64, error) {
	np := desk.NewProject{Slug: p.Slug, Name: p.Name, Prefix: p.Prefix}
	if err := np.Normalize(); err != nil {
		return 0, err
	}
	var n int
	if err := l.tx.queryRow(`SELECT count(*) FROM projects WHERE slug = ? OR prefix = ?`, np.Slug, np.Prefix).Scan(&n); err != nil {
		return 0, err
	}
	if n > 0 {
		return 0, desk.Errorf(desk.Conflict, "a project with slug %q or prefix %s exists already", np.Slug, np.Prefix)
	}
	created := l.time(p.CreatedAt)
	notify := p.Notify
	if notify == (desk.Notify{}) && !p.NotifySet {
		notify = desk.DefaultNotify
	}
	var lead, build any
	if p.Lead != nil && *p.Lead != "" {
		lead = *p.Lead
	}
	count := p.BuildsCount
	if p.Build != nil {
		b := *p.Build
		b.Local = nil
		build = jsonText(b)
		count = max(count, b.Number)
	}
	enabled := p.BuildsEnabled || p.Build != nil
	id, err := l.exec(`INSERT INTO projects (slug, name, prefix, next_number, default_seed, notify, lead, build, builds_count,
		builds_enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		np.Slug, np.Name, np.Prefix, max(p.NextNumber, 1), p.DefaultSeed, jsonText(notify), lead, build, count,
		enabled, created, created)
	if err != nil {
		return 0, fmt.Errorf("load project %s: %w", np.Slug, err)
	}
	l.projects[id] = &loadedProject{slug: np.Slug, prefix: np.Prefix, nextNumber: p.NextNumber}
	l.stats.Projects++
	return id, nil
}

// Issue inserts an issue of a project created by this load and returns its
// row id. It uses the issue's number, fields, plan, build stamp and times;
// Parent and MergedInto name other issues of the load by key and are joined
// up when the load ends. Counters and ids derived from other rows are
// ignored: the database computes them.
func (l *Loader) Issue(projectID int64, is *desk.Issue) (int64, error) {
	p := l.projects[projectID]
	if p == nil {
		return 0, desk.Errorf(desk.Invalid, "load: project %d was not created by this load", projectID)
	}
	key := desk.IssueKey(p.prefix, is.Number)
	title := desk.CollapseSpace(is.Title)
	switch {
	case is.Number < 1:
		return 0, desk.Errorf(desk.Invalid, "load: an issue of %s has number %d", p.slug, is.Number)
	case title == "":
		return 0, desk.Errorf(desk.Invalid, "load %s: the title is empty", key)
	}
	for _, c := range []struct {
		field, v string
		set      []string
	}{{"kind", is.Kind, desk.Kinds}, {"status", is.Status, desk.Statuses}, {"priority", is.Priority, desk.Priorities}, {"source", is.Source, desk.Sources}} {
		if err := desk.CheckEnum(c.field, c.v, c.set); err != nil {
			return 0, desk.Errorf(desk.Invalid, "load %s: %s", key, desk.ErrorMessage(err))
		}
	}
	if is.Size != "" && !desk.OneOf(is.Size, desk.Sizes) {
		return 0, desk.Errorf(desk.Invalid, "load %s: size %q is not one of S, M, L", key, is.Size)
	}
	tags := is.Tags
	if tags == nil {
		tags = []string{}
	}
	loc := is.Location
	loc.SyncCommand()
	var build any
	if is.Build != nil {
		b := *is.Build
		b.Local = nil
		build = jsonText(b)
	}
	plan, pr := "{}", desk.Progress{}
	if len(is.Plan.Steps) > 0 || is.Plan.Verification != "" {
		plan, pr = jsonText(is.Plan), is.Plan.Progress()
	}
	created := l.time(is.CreatedAt)
	updated := created
	if is.UpdatedAt != "" {
		updated = l.time(is.UpdatedAt)
	}
	var closed any
	if is.ClosedAt != nil && *is.ClosedAt != "" {
		closed = l.time(*is.ClosedAt)
	}
	id, err := l.exec(`INSERT INTO issues (project_id, number, title, body, kind, status, priority, area, tags, location, seed,
		source, external_ref, size, milestone, build, plan, plan_done, plan_total, created_at, updated_at, closed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		projectID, is.Number, title, is.Body, is.Kind, is.Status, is.Priority, is.Area, jsonText(tags), jsonText(loc), loc.Seed,
		is.Source, is.ExternalRef, is.Size, is.Milestone, build, plan, pr.Done, pr.Total, created, updated, closed)
	if err != nil {
		if isUnique(err) {
			return 0, desk.Errorf(desk.Conflict, "load: %s appears twice", key)
		}
		return 0, fmt.Errorf("load %s: %w", key, err)
	}
	l.keys[key] = id
	p.maxNumber = max(p.maxNumber, is.Number)
	if (is.Parent != nil && *is.Parent != "") || (is.MergedInto != nil && *is.MergedInto != "") {
		pl := pendingLink{rowid: id}
		if is.Parent != nil {
			pl.parent = strings.ToUpper(strings.TrimSpace(*is.Parent))
		}
		if is.MergedInto != nil {
			pl.merged = strings.ToUpper(strings.TrimSpace(*is.MergedInto))
		}
		l.links = append(l.links, pl)
	}
	if _, err := l.exec(`INSERT INTO changes (project, issue_id, issue, type, action, actor, created_at) VALUES (?, ?, ?, ?, 'imported', 'import', ?)`,
		p.slug, id, key, desk.ChangeIssue, l.tx.ts); err != nil {
		return 0, err
	}
	l.tx.fed[id] = true
	l.stats.Issues++
	return id, nil
}

// IssueID returns the row id of an issue loaded by this load, by key.
func (l *Loader) IssueID(key string) (int64, bool) {
	id, ok := l.keys[strings.ToUpper(strings.TrimSpace(key))]
	return id, ok
}

// mergedFrom resolves a merged_from key of this load; "" and nil are none.
func (l *Loader) mergedFrom(key *string) (any, error) {
	if key == nil || *key == "" {
		return nil, nil
	}
	id, ok := l.IssueID(*key)
	if !ok {
		return nil, desk.Errorf(desk.Invalid, "load: merged_from %s is not an issue of this load", *key)
	}
	return id, nil
}

// Comment inserts a comment on an issue of this load; MergedFrom names an
// issue of the load by key. Insert an issue's comments oldest first.
func (l *Loader) Comment(issueID int64, c *desk.Comment) (int64, error) {
	var verdict any
	if c.Verdict != nil && *c.Verdict != "" {
		if !desk.OneOf(*c.Verdict, desk.Verdicts) {
			return 0, desk.Errorf(desk.Invalid, "load: verdict %q is not passed or failed", *c.Verdict)
		}
		verdict = *c.Verdict
	}
	mf, err := l.mergedFrom(c.MergedFrom)
	if err != nil {
		return 0, err
	}
	id, err := l.exec(`INSERT INTO comments (issue_id, author, text, verdict, created_at, merged_from) VALUES (?, ?, ?, ?, ?, ?)`,
		issueID, orDefault(c.Author, desk.OwnerActor), c.Text, verdict, l.time(c.CreatedAt), mf)
	if err != nil {
		return 0, fmt.Errorf("load comment: %w", err)
	}
	l.stats.Comments++
	return id, nil
}

// Activity inserts a timeline entry; Detail must be a JSON object (nil
// means {}). The children a merge moved (merged_into's "children") may be
// given as keys of this load, as Dump writes them; they are stored as the
// row ids an unmerge needs.
func (l *Loader) Activity(issueID int64, a *desk.Activity) (int64, error) {
	detail := strings.TrimSpace(string(a.Detail))
	if detail == "" || detail == "null" {
		detail = "{}"
	}
	if !json.Valid([]byte(detail)) {
		return 0, desk.Errorf(desk.Invalid, "load: the %s activity's detail is not JSON", a.Action)
	}
	if strings.TrimSpace(a.Action) == "" {
		return 0, desk.Errorf(desk.Invalid, "load: an activity entry has no action")
	}
	mf, err := l.mergedFrom(a.MergedFrom)
	if err != nil {
		return 0, err
	}
	if a.Action == desk.ActMergedInto {
		detail = l.childRows(detail)
	}
	id, err := l.exec(`INSERT INTO activity (issue_id, actor, action, detail, created_at, merged_from) VALUES (?, ?, ?, ?, ?, ?)`,
		issueID, orDefault(a.Actor, desk.OwnerActor), a.Action, detail, l.time(a.CreatedAt), mf)
	if err != nil {
		return 0, fmt.Errorf("load activity: %w", err)
	}
	l.stats.Activity++
	return id, nil
}

// Attachment stores a file's bytes under attachments/<project>/<yyyy-mm of
// its time>/ with a random name and records it on an issue (and one of its
// comments when a.CommentID is set, to a comment row id of this load). The
// filename is cleaned; the size is what data held. The file is removed
// again if the load fails.
func (l *Loader) Attachment(issueID int64, a *desk.Attachment, data io.Reader) (int64, error) {
	var slug string
	if err := l.tx.queryRow(`SELECT p.slug FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = ?`, issueID).Scan(&slug); err != nil {
		return 0, fmt.Errorf("load attachment: issue row %d: %w", issueID, err)
	}
	created := l.time(a.CreatedAt)
	month := created[:7]
	name := desk.CleanFilename(a.Filename)
	var rnd [16]byte
	if _, err := io.ReadFull(l.names, rnd[:]); err != nil {
		return 0, err
	}
	ext := strings.ToLower(filepath.Ext(name))
	if len(ext) > 10 || strings.ContainsAny(ext, " /\\") {
		ext = ""
	}
	rel := "attachments/" + slug + "/" + month + "/" + hex.EncodeToString(rnd[:]) + ext
	abs := l.tx.db.attachmentPath(rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return 0, fmt.Errorf("load attachment: %w", err)
	}
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, fmt.Errorf("load attachment: %w", err)
	}
	l.tx.newFiles = append(l.tx.newFiles, rel)
	size, err := io.Copy(f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("load attachment %s: %w", name, err)
	}
	mime := a.Mime
	if mime == "" {
		mime = "application/octet-stream"
	}
	var cid any
	if a.CommentID != nil {
		cid = *a.CommentID
	}
	mf, err := l.mergedFrom(a.MergedFrom)
	if err != nil {
		return 0, err
	}
	id, err := l.exec(`INSERT INTO attachments (issue_id, comment_id, filename, mime, size, stored_path, created_at, merged_from)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, issueID, cid, name, mime, size, rel, created, mf)
	if err != nil {
		return 0, fmt.Errorf("load attachment %s: %w", name, err)
	}
	l.stats.Attachments++
	return id, nil
}

// Command inserts a game command of a project, for an issue row (0: none).
// An empty ExpiresAt is CreatedAt plus desk.CommandTTL.
func (l *Loader) Command(projectID, issueID int64, c *desk.Command) (int64, error) {
	if strings.TrimSpace(c.Command) == "" {
		return 0, desk.Errorf(desk.Invalid, "load: a game command is empty")
	}
	created := l.time(c.CreatedAt)
	expires := c.ExpiresAt
	if expires == "" {
		t, _ := time.Parse(desk.TimeLayout, created)
		expires = desk.FormatTime(t.Add(desk.CommandTTL))
	}
	var issue, delivered, client any
	if issueID != 0 {
		issue = issueID
	}
	if c.DeliveredAt != nil && *c.DeliveredAt != "" {
		delivered = l.time(*c.DeliveredAt)
	}
	if c.Client != nil {
		client = *c.Client
	}
	id, err := l.exec(`INSERT INTO commands (project_id, issue_id, command, created_by, created_at, expires_at, delivered_at, client)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, projectID, issue, c.Command, orDefault(c.CreatedBy, desk.OwnerActor), created, l.time(expires), delivered, client)
	if err != nil {
		return 0, fmt.Errorf("load command: %w", err)
	}
	l.stats.Commands++
	return id, nil
}

// Handoff inserts one handoff version of a project; Version 0 takes the
// next one. Conflict when the version exists.
func (l *Loader) Handoff(projectID int64, h *desk.Handoff) (int64, error) {
	v := h.Version
	if v <= 0 {
		if err := l.tx.queryRow(`SELECT coalesce(max(version), 0) + 1 FROM handoffs WHERE project_id = ?`, projectID).Scan(&v); err != nil {
			return 0, err
		}
	}
	id, err := l.exec(`INSERT INTO handoffs (project_id, version, markdown, author, note, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		projectID, v, h.Markdown, orDefault(h.Author, desk.OwnerActor), h.Note, l.time(h.CreatedAt))
	if err != nil {
		if isUnique(err) {
			return 0, desk.Errorf(desk.Conflict, "load: handoff version %d appears twice", v)
		}
		return 0, fmt.Errorf("load handoff: %w", err)
	}
	l.stats.Handoffs++
	return id, nil
}

// finish joins up parents and merge targets, raises next numbers and
// announces each project.
func (l *Loader) finish() error {
	for _, pl := range l.links {
		var parent, merged any
		if pl.parent != "" {
			if id, ok := l.keys[pl.parent]; ok && id != pl.rowid {
				parent = id
			} else {
				l.stats.UnresolvedLinks++
			}
		}
		if pl.merged != "" {
			if id, ok := l.keys[pl.merged]; ok && id != pl.rowid {
				merged = id
			} else {
				l.stats.UnresolvedLinks++
			}
		}
		if parent == nil && merged == nil {
			continue
		}
		if _, err := l.exec(`UPDATE issues SET parent_id = ?, merged_into = ? WHERE id = ?`, parent, merged, pl.rowid); err != nil {
			return fmt.Errorf("load: link issues: %w", err)
		}
	}
	// In project order, so that the same load writes the same feed.
	ids := make([]int64, 0, len(l.projects))
	for id := range l.projects {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := l.projects[id]
		next := max(p.nextNumber, p.maxNumber+1, 1)
		if _, err := l.tx.exec(`UPDATE projects SET next_number = ? WHERE id = ?`, next, id); err != nil {
			return err
		}
		if err := l.tx.projectChange(p.slug, "imported", "import"); err != nil {
			return err
		}
	}
	return nil
}

// time returns a stored time in desk's layout: given ones are normalized,
// missing ones are the load's own time.
func (l *Loader) time(s string) string {
	if s == "" {
		return l.tx.ts
	}
	if len(s) == len(desk.TimeLayout) && s[len(s)-1] == 'Z' && s[10] == 'T' {
		return s
	}
	if t, err := desk.ParseTime(s); err == nil {
		return desk.FormatTime(t)
	}
	return s
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s == "" {
		return def
	}
	return s
}

// childRows turns the issue keys in a merged_into detail's children into
// row ids of this load.
func (l *Loader) childRows(detail string) string {
	var m map[string]any
	if json.Unmarshal([]byte(detail), &m) != nil {
		return detail
	}
	list, ok := m["children"].([]any)
	if !ok {
		return detail
	}
	out := make([]any, 0, len(list))
	for _, v := range list {
		if k, ok := v.(string); ok {
			if id, ok := l.IssueID(k); ok {
				out = append(out, id)
			}
			continue
		}
		out = append(out, v)
	}
	m["children"] = out
	return jsonText(m)
}

// Dump is one project as it is stored, in the form Load takes back: the
// inverse of a load, for exports. Row ids are left out or replaced by keys,
// except the ids of comments, which attachments name.
type Dump struct {
	Project  LoadProject     `json:"project"`
	Issues   []*DumpIssue    `json:"issues"`
	Commands []*desk.Command `json:"commands"`
	Handoffs []*desk.Handoff `json:"handoffs"`
}

// DumpIssue is an issue with everything that hangs off it, merged issues
// included. Attachment.Path is the file's path in the data folder.
type DumpIssue struct {
	desk.Issue
	Comments    []*desk.Comment    `json:"comments"`
	Attachments []*desk.Attachment `json:"attachments"`
	Activity    []*desk.Activity   `json:"activity"`
}

// Dump reads a whole project in one snapshot: every issue (merged ones too)
// by number, their comments, attachments and activity in the order they
// were written, the game commands and every handoff version.
func (db *DB) Dump(ctx context.Context, slug string) (*Dump, error) {
	d := &Dump{Issues: []*DumpIssue{}, Commands: []*desk.Command{}, Handoffs: []*desk.Handoff{}}
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		var count int
		if err := tx.QueryRowContext(ctx, `SELECT builds_count FROM projects WHERE id = ?`, p.id).Scan(&count); err != nil {
			return err
		}
		d.Project = LoadProject{Project: p.Project, NextNumber: p.nextNumber, BuildsCount: count, NotifySet: true}
		d.Project.Counts = nil
		rows, err := tx.QueryContext(ctx, issueSelect(true)+`WHERE i.project_id = ? ORDER BY i.number`, p.id)
		if err != nil {
			return err
		}
		byRow := map[int64]*DumpIssue{}
		keys := map[int64]string{}
		for rows.Next() {
			r, err := scanIssue(rows)
			if err != nil {
				rows.Close()
				return err
			}
			di := &DumpIssue{Issue: r.Issue, Comments: []*desk.Comment{}, Attachments: []*desk.Attachment{}, Activity: []*desk.Activity{}}
			d.Issues = append(d.Issues, di)
			byRow[r.rowid] = di
			keys[r.rowid] = r.ID
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		key := func(id sql.NullInt64) *string {
			if k, ok := keys[id.Int64]; ok && id.Valid {
				return &k
			}
			return nil
		}
		err = dumpRows(ctx, tx, `SELECT c.issue_id, c.id, c.author, c.text, c.verdict, c.created_at, c.merged_from
			FROM comments c JOIN issues i ON i.id = c.issue_id WHERE i.project_id = ? ORDER BY c.id`, []any{p.id}, func(rows *sql.Rows) error {
			var c desk.Comment
			var issue int64
			var verdict sql.NullString
			var mf sql.NullInt64
			if err := rows.Scan(&issue, &c.ID, &c.Author, &c.Text, &verdict, &c.CreatedAt, &mf); err != nil {
				return err
			}
			if verdict.Valid {
				c.Verdict = &verdict.String
			}
			c.MergedFrom, c.Attachments = key(mf), []*desk.Attachment{}
			byRow[issue].Comments = append(byRow[issue].Comments, &c)
			return nil
		})
		if err != nil {
			return err
		}
		err = dumpRows(ctx, tx, `SELECT a.issue_id, a.id, a.comment_id, a.filename, a.mime, a.size, a.stored_path, a.created_at, a.merged_from
			FROM attachments a JOIN issues i ON i.id = a.issue_id WHERE i.project_id = ? ORDER BY a.id`, []any{p.id}, func(rows *sql.Rows) error {
			var a desk.Attachment
			var issue int64
			var cid, mf sql.NullInt64
			if err := rows.Scan(&issue, &a.ID, &cid, &a.Filename, &a.Mime, &a.Size, &a.Path, &a.CreatedAt, &mf); err != nil {
				return err
			}
			if cid.Valid {
				a.CommentID = &cid.Int64
			}
			a.MergedFrom, a.Issue = key(mf), keys[issue]
			a.URL, a.IsImage = fmt.Sprintf("/api/attachments/%d", a.ID), desk.IsImageMime(a.Mime)
			byRow[issue].Attachments = append(byRow[issue].Attachments, &a)
			return nil
		})
		if err != nil {
			return err
		}
		err = dumpRows(ctx, tx, `SELECT a.issue_id, a.actor, a.action, a.detail, a.created_at, a.merged_from
			FROM activity a JOIN issues i ON i.id = a.issue_id WHERE i.project_id = ? ORDER BY a.id`, []any{p.id}, func(rows *sql.Rows) error {
			var a desk.Activity
			var issue int64
			var detail string
			var mf sql.NullInt64
			if err := rows.Scan(&issue, &a.Actor, &a.Action, &detail, &a.CreatedAt, &mf); err != nil {
				return err
			}
			if a.Action == desk.ActMergedInto {
				detail = childKeys(detail, keys)
			}
			a.Detail, a.MergedFrom = json.RawMessage(detail), key(mf)
			byRow[issue].Activity = append(byRow[issue].Activity, &a)
			return nil
		})
		if err != nil {
			return err
		}
		if d.Commands, err = db.queryCommands(ctx, tx, commandSelect+`WHERE c.project_id = ? ORDER BY c.id`, p.id); err != nil {
			return err
		}
		return dumpRows(ctx, tx, `SELECT version, markdown, author, note, created_at FROM handoffs WHERE project_id = ? ORDER BY version`,
			[]any{p.id}, func(rows *sql.Rows) error {
				h := &desk.Handoff{Project: p.Slug}
				if err := rows.Scan(&h.Version, &h.Markdown, &h.Author, &h.Note, &h.CreatedAt); err != nil {
					return err
				}
				d.Handoffs = append(d.Handoffs, h)
				return nil
			})
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// childKeys turns the row ids in a merged_into detail's children into keys.
func childKeys(detail string, keys map[int64]string) string {
	var m map[string]any
	if json.Unmarshal([]byte(detail), &m) != nil {
		return detail
	}
	list, ok := m["children"].([]any)
	if !ok {
		return detail
	}
	out := make([]any, 0, len(list))
	for _, v := range list {
		if f, ok := v.(float64); ok {
			if k, ok := keys[int64(f)]; ok {
				out = append(out, k)
				continue
			}
		}
		out = append(out, v)
	}
	m["children"] = out
	return jsonText(m)
}

func dumpRows(ctx context.Context, q queryer, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
