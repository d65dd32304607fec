package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"desk"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Tx is one write transaction: one "now" for every row it writes, the feed
// rows it appends at its end, and the blobs it wrote or will delete, so
// that they follow the transaction's fate.
type Tx struct {
	tx  txConn
	db  *DB
	ctx context.Context
	now time.Time
	ts  string

	feedRows []feedRow
	fed      map[int64]bool
	touched  map[int64]touchedIssue

	newBlobs  []string
	dropBlobs []string
}

// txConn is the connection a write transaction runs on.
type txConn interface {
	querier
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

type feedRow struct {
	c       desk.Change
	issueID int64
}

type touchedIssue struct{ project, key string }

func newTx(ctx context.Context, db *DB, tx txConn) *Tx {
	return &Tx{tx: tx, db: db, ctx: ctx, fed: map[int64]bool{}, touched: map[int64]touchedIssue{}}
}

// stamp takes the transaction's time once it holds the writers' lock, so
// that times grow with the commit order too.
func (tx *Tx) stamp() {
	tx.now = tx.db.Now().UTC()
	tx.ts = desk.FormatTime(tx.now)
}

func (tx *Tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return tx.tx.Query(ctx, sql, args...)
}

func (tx *Tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return tx.tx.QueryRow(ctx, sql, args...)
}

func (tx *Tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return tx.tx.Exec(ctx, sql, args...)
}

func (tx *Tx) exec(sql string, args ...any) error {
	_, err := tx.tx.Exec(tx.ctx, sql, args...)
	return err
}

func (tx *Tx) queryRow(sql string, args ...any) pgx.Row { return tx.tx.QueryRow(tx.ctx, sql, args...) }

// feed records a change feed row, appended when the transaction finishes.
func (tx *Tx) feed(c desk.Change, issueRowID int64) {
	if issueRowID != 0 {
		tx.fed[issueRowID] = true
	}
	tx.feedRows = append(tx.feedRows, feedRow{c, issueRowID})
}

// touch records that an issue changed without an activity or comment row
// of its own.
func (tx *Tx) touch(r *row) { tx.touched[r.rowid] = touchedIssue{r.Project, r.ID} }

// activity records a timeline entry on an issue and its feed row.
func (tx *Tx) activity(r *row, actor, action string, detail any) (int64, error) {
	b, err := json.Marshal(detail)
	if err != nil {
		return 0, err
	}
	var id int64
	if err := tx.queryRow(`INSERT INTO activity (issue_id, actor, action, detail, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		r.rowid, actor, action, string(b), tx.ts).Scan(&id); err != nil {
		return 0, err
	}
	tx.activityFed(r, id, actor, action)
	return id, nil
}

// activityFed records the feed row of timeline entry id on r.
func (tx *Tx) activityFed(r *row, id int64, actor, action string) {
	key := r.ID
	tx.feed(desk.Change{Project: r.Project, Issue: &key, Type: desk.ChangeActivity, ID: id, Action: action, Actor: actor}, r.rowid)
}

// projectChange records a write that concerns a project but no issue.
func (tx *Tx) projectChange(slug, action, actor string) {
	tx.feed(desk.Change{Project: slug, Type: desk.ChangeProject, Action: action, Actor: actor}, 0)
}

// commit gives every touched issue without a feed row an "issue" row,
// then appends the feed rows, notifies the other replicas (who hear of it
// when the transaction commits) and commits, all in one round trip: this
// is the end of the time under the writers' lock. A failed statement
// skips the ones after it, COMMIT among them, and the caller rolls back.
func (tx *Tx) commit() error {
	for id, t := range tx.touched {
		if tx.fed[id] {
			continue
		}
		key := t.key
		tx.feed(desk.Change{Project: t.project, Issue: &key, Type: desk.ChangeIssue, Action: "updated"}, id)
	}
	b := &pgx.Batch{}
	for i, f := range tx.feedRows {
		c := f.c
		var issueID any
		if f.issueID != 0 {
			issueID = f.issueID
		}
		insert := `INSERT INTO changes (project, issue_id, issue, type, ref_id, action, actor, verdict, version, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
		args := []any{c.Project, issueID, c.Issue, c.Type, c.ID, c.Action, c.Actor, c.Verdict, c.Version, tx.ts}
		if i == len(tx.feedRows)-1 {
			// The payload is the write's newest seq.
			insert = `WITH c AS (` + insert + ` RETURNING seq) SELECT pg_notify($11, seq::text) FROM c`
			args = append(args, feedChannel)
		}
		b.Queue(insert, args...)
	}
	b.Queue(`COMMIT`)
	br := tx.tx.SendBatch(tx.ctx, b)
	for range tx.feedRows {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
	}
	if _, err := br.Exec(); err != nil {
		br.Close()
		return fmt.Errorf("commit: %w", err)
	}
	return br.Close()
}

func (tx *Tx) rollbackBlobs() {
	for _, k := range tx.newBlobs {
		tx.db.blobs.Delete(context.WithoutCancel(tx.ctx), k)
	}
}

func (tx *Tx) commitBlobs() {
	for _, k := range tx.dropBlobs {
		tx.db.blobs.Delete(context.WithoutCancel(tx.ctx), k)
	}
}
