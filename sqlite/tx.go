package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"desk"
)

// Tx is one write transaction. It carries one "now" for every row it writes,
// the feed rows it will append, and the files it wrote or will delete, so
// that the files follow the transaction's fate.
type Tx struct {
	*sql.Tx
	db  *DB
	ctx context.Context
	now time.Time
	ts  string // now in desk.TimeLayout

	// fed holds the issues that got a feed row; finish gives every other
	// touched issue an "issue" row so that caches of it are refreshed.
	fed     map[int64]bool
	touched map[int64]touchedIssue

	newFiles  []string // object keys written in this transaction; removed if it fails
	dropFiles []string // object keys removed once it commits
}

type touchedIssue struct {
	project, key string
}

func newTx(ctx context.Context, db *DB, tx *sql.Tx) *Tx {
	now := db.Now().UTC()
	return &Tx{
		Tx: tx, db: db, ctx: ctx,
		now: now, ts: desk.FormatTime(now),
		fed: map[int64]bool{}, touched: map[int64]touchedIssue{},
	}
}

func (tx *Tx) exec(query string, args ...any) (sql.Result, error) {
	return tx.ExecContext(tx.ctx, query, args...)
}

func (tx *Tx) queryRow(query string, args ...any) *sql.Row {
	return tx.QueryRowContext(tx.ctx, query, args...)
}

// feed appends a change feed row.
func (tx *Tx) feed(c desk.Change, issueRowID int64) error {
	var issue any
	if c.Issue != nil {
		issue = *c.Issue
	}
	var issueID any
	if issueRowID != 0 {
		issueID = issueRowID
		tx.fed[issueRowID] = true
	}
	_, err := tx.exec(`INSERT INTO changes (project, issue_id, issue, type, ref_id, action, actor, verdict, version, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Project, issueID, issue, c.Type, c.ID, c.Action, c.Actor, c.Verdict, c.Version, tx.ts)
	return err
}

// touch records that an issue changed without an activity or comment row
// of its own (its counters, a move by a merge).
func (tx *Tx) touch(is *row) {
	tx.touched[is.rowid] = touchedIssue{is.Project, is.ID}
}

// activity records a timeline entry on an issue and its feed row.
func (tx *Tx) activity(is *row, actor, action string, detail any) (int64, error) {
	b, err := json.Marshal(detail)
	if err != nil {
		return 0, err
	}
	res, err := tx.exec(`INSERT INTO activity (issue_id, actor, action, detail, created_at) VALUES (?, ?, ?, ?, ?)`,
		is.rowid, actor, action, string(b), tx.ts)
	if err != nil {
		return 0, err
	}
	id, _ := res.LastInsertId()
	key := is.ID
	return id, tx.feed(desk.Change{Project: is.Project, Issue: &key, Type: desk.ChangeActivity, ID: id, Action: action, Actor: actor}, is.rowid)
}

// projectChange records a write that concerns a project but no issue (a
// setting, a build): live views refresh after it.
func (tx *Tx) projectChange(slug, action, actor string) error {
	return tx.feed(desk.Change{Project: slug, Type: desk.ChangeProject, Action: action, Actor: actor}, 0)
}

// finish appends the feed rows of touched issues that have none yet.
func (tx *Tx) finish() error {
	for id, t := range tx.touched {
		if tx.fed[id] {
			continue
		}
		key := t.key
		if err := tx.feed(desk.Change{Project: t.project, Issue: &key, Type: desk.ChangeIssue, Action: "updated"}, id); err != nil {
			return err
		}
	}
	return nil
}

func (tx *Tx) rollbackFiles() {
	for _, k := range tx.newFiles {
		tx.db.blobs.Delete(context.WithoutCancel(tx.ctx), k)
	}
}

func (tx *Tx) commitFiles() {
	for _, k := range tx.dropFiles {
		tx.db.blobs.Delete(context.WithoutCancel(tx.ctx), k)
	}
}
