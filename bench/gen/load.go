package gen

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"desk"
	"desk/sqlite"
)

// write stores the model in the empty data folder dir: the store makes the
// schema, one transaction loads every row in time order (row ids follow
// time, as on a desk in use), the files go next to it, and the store
// builds its search index on the next open.
func (m *model) write(ctx context.Context, dir string) error {
	db, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		return err
	}
	path := db.Path()
	if err := db.Close(); err != nil {
		return err
	}
	q := url.Values{}
	// A fresh folder has nothing to protect: no journal, no syncs and a
	// cache that holds the whole load keep it from rewriting pages.
	for _, p := range []string{"foreign_keys(1)", "locking_mode(EXCLUSIVE)", "journal_mode(OFF)", "synchronous(OFF)", "cache_size(-1048576)", "temp_store(MEMORY)"} {
		q.Add("_pragma", p)
	}
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return err
	}
	conn.SetMaxOpenConns(1)
	defer conn.Close()
	// Indexing every row as it arrives costs several times more than
	// building the index once; the store rebuilds a missing index on open.
	if _, err := conn.ExecContext(ctx, sqlite.DropSearchIndexSQL()); err != nil {
		return fmt.Errorf("drop search index: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx, dir, m.seed)
	if err != nil {
		return err
	}
	defer w.close()
	if err := w.projects(m); err != nil {
		return err
	}
	if err := w.issues(m.issues); err != nil {
		return err
	}
	for _, e := range m.events {
		if err := w.event(e); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return err
	}
	if err := conn.Close(); err != nil {
		return err
	}
	if err := writeFiles(dir, w.files); err != nil {
		return err
	}
	db, err = sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		return err
	}
	return db.Close()
}

// writer holds the prepared statements of the load.
type writer struct {
	ctx   context.Context
	tx    *sql.Tx
	dir   string
	names *rng
	stmts map[string]*sql.Stmt
	files []pendingFile
}

// pendingFile is an attachment's bytes waiting to be written.
type pendingFile struct {
	rel  string
	data []byte
}

var loadSQL = map[string]string{
	"project": `INSERT INTO projects (id, slug, name, prefix, next_number, default_seed, lead, build, builds_count, builds_enabled, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"issue": `INSERT INTO issues (id, project_id, number, title, body, kind, status, priority, area, tags, location, seed, source,
		external_ref, size, milestone, build, plan, plan_done, plan_total, parent_id, merged_into, created_at, updated_at, closed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"comment":    `INSERT INTO comments (issue_id, author, text, verdict, created_at, merged_from) VALUES (?, ?, ?, ?, ?, ?)`,
	"attachment": `INSERT INTO attachments (issue_id, comment_id, filename, mime, size, stored_path, created_at, merged_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	"activity":   `INSERT INTO activity (issue_id, actor, action, detail, created_at, merged_from) VALUES (?, ?, ?, ?, ?, ?)`,
	"command": `INSERT INTO commands (project_id, issue_id, command, created_by, created_at, expires_at, delivered_at, client)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	"handoff": `INSERT INTO handoffs (project_id, version, markdown, author, note, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
	"change": `INSERT INTO changes (project, issue_id, issue, type, ref_id, action, actor, verdict, version, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
}

func newWriter(ctx context.Context, tx *sql.Tx, dir string, seed uint64) (*writer, error) {
	w := &writer{ctx: ctx, tx: tx, dir: dir, names: newRNG(seed, 0x66696c65), stmts: map[string]*sql.Stmt{}}
	for name, q := range loadSQL {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
		w.stmts[name] = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

func (w *writer) exec(name string, args ...any) (int64, error) {
	res, err := w.stmts[name].ExecContext(w.ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("insert %s: %w", name, err)
	}
	return res.LastInsertId()
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain values are generated
	}
	return string(b)
}

// null turns zero values into SQL NULL.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func rowOf(is *issue) any {
	if is == nil {
		return nil
	}
	return is.rowid
}

func (w *writer) projects(m *model) error {
	for _, p := range m.projects {
		var build any
		count, enabled := 0, 0
		updated := p.created
		if n := p.buildAt(deskEnd); n > 0 {
			b := p.build(n)
			build, count, enabled = jsonText(b), n, 1
			updated = p.created + day + int64(n-1)*p.buildEvery
		}
		if _, err := w.exec("project", p.index+1, p.slug, p.name, p.prefix, len(p.issues)+1, p.defaultSeed, nullStr(p.lead),
			build, count, enabled, stamp(p.created), stamp(updated)); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) issues(issues []*issue) error {
	for _, is := range issues {
		var build, closed any
		if is.build != nil {
			build = jsonText(is.build)
		}
		if is.closed != 0 {
			closed = stamp(is.closed)
		}
		pr := is.plan.Progress()
		if _, err := w.exec("issue", is.rowid, is.proj.index+1, is.number, is.title, is.body, is.kind, is.status, is.priority,
			is.areaName, jsonText(is.tags), jsonText(is.loc), is.loc.Seed, is.source, is.externalRef, is.size, is.milestone,
			build, jsonText(is.plan), pr.Done, pr.Total, rowOf(is.parent), rowOf(is.merged),
			stamp(is.created), stamp(is.updated), closed); err != nil {
			return err
		}
	}
	return nil
}

// event writes one timeline row with its files, its command and its feed
// row. The feed names the issue the row was written on, which for rows a
// merge moved later is the duplicate.
func (w *writer) event(e *event) error {
	ts := stamp(e.at)
	if e.kind == evHandoff {
		id, err := w.exec("handoff", e.proj.index+1, e.ver, e.text, e.actor, e.note, ts)
		if err != nil {
			return err
		}
		_, err = w.exec("change", e.proj.slug, nil, nil, desk.ChangeHandoff, id, "handoff", e.actor, nil, e.ver, ts)
		return err
	}
	written := e.on
	if e.from != nil {
		written = e.from
	}
	switch e.kind {
	case evComment:
		id, err := w.exec("comment", e.on.rowid, e.actor, e.text, nullStr(e.verdict), ts, rowOf(e.from))
		if err != nil {
			return err
		}
		action := "comment"
		if e.verdict != "" {
			action = "verdict"
		}
		if err := w.change(written, desk.ChangeComment, id, action, e.actor, e.verdict, ts); err != nil {
			return err
		}
		for _, f := range e.files {
			if err := w.file(e, f, id); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range e.files {
		if err := w.file(e, f, nil); err != nil {
			return err
		}
		e.detail["attachment"] = f.rowid
	}
	if e.cmd != nil {
		c := e.cmd
		if e.action == desk.ActCommandSent {
			var delivered, client any
			if c.delivered != 0 {
				delivered, client = stamp(c.delivered), c.client
			}
			id, err := w.exec("command", e.on.proj.index+1, e.on.rowid, c.text, e.actor, ts, stamp(e.at+10*minute), delivered, client)
			if err != nil {
				return err
			}
			c.rowid = id
		}
		e.detail["command_id"] = c.rowid
	}
	id, err := w.exec("activity", e.on.rowid, e.actor, e.action, jsonText(e.detail), ts, rowOf(e.from))
	if err != nil {
		return err
	}
	return w.change(written, desk.ChangeActivity, id, e.action, e.actor, "", ts)
}

func (w *writer) change(is *issue, typ string, id int64, action, actor, verdict, ts string) error {
	_, err := w.exec("change", is.proj.slug, is.rowid, is.key(), typ, id, action, actor, nullStr(verdict), 0, ts)
	return err
}

// writeFiles writes the attachments' bytes. Files are made of a small set
// of pictures, and creating a file with data costs this file system
// thirty times what a hard link costs, so each picture is written once and
// the other files with its bytes are links to it: deleting one attachment
// still removes only its own name.
func writeFiles(dir string, files []pendingFile) error {
	made := map[string]bool{}
	first := map[*byte]string{}
	for _, f := range files {
		abs := filepath.Join(dir, filepath.FromSlash(f.rel))
		if d := filepath.Dir(abs); !made[d] {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return err
			}
			made[d] = true
		}
		if src, ok := first[&f.data[0]]; ok {
			if err := os.Link(src, abs); err == nil {
				continue
			}
		}
		if err := os.WriteFile(abs, f.data, 0o600); err != nil {
			return err
		}
		first[&f.data[0]] = abs
	}
	return nil
}

// file records an attachment under attachments/<project>/<yyyy-mm>/ with a
// name drawn from the seed; its bytes are written after the commit.
func (w *writer) file(e *event, f *file, commentID any) error {
	ext := ".png"
	if f.mime == "image/jpeg" {
		ext = ".jpg"
	}
	rel := filepath.ToSlash(filepath.Join("attachments", e.on.proj.slug, time.UnixMilli(e.at).UTC().Format("2006-01"), hexOf(w.names.next(), 32)+ext))
	w.files = append(w.files, pendingFile{rel, f.data})
	id, err := w.exec("attachment", e.on.rowid, commentID, f.name, f.mime, len(f.data), rel, stamp(e.at), rowOf(e.from))
	if err != nil {
		return err
	}
	f.rowid = id
	return nil
}
