package postgres

import (
	"context"
	"errors"

	"desk"
	"desk/office"

	"github.com/jackc/pgx/v5"
)

// Office returns the backend of the office view's documents in the
// database: every replica reads and changes the same layout and seat
// choices, and each change's feed row is written in its transaction, so
// that every open office, on any replica, hears of it.
func (db *DB) Office() office.Backend { return officeDocs{db} }

// officeDocs is the office's backend in table office_docs.
type officeDocs struct{ db *DB }

var _ office.Backend = officeDocs{}

// Where names the table.
func (o officeDocs) Where(doc office.Doc) string {
	return "the database's office_docs (" + string(doc) + ")"
}

// Read returns doc's body, or nil.
func (o officeDocs) Read(ctx context.Context, doc office.Doc) ([]byte, error) {
	return readOfficeDoc(ctx, o.db.pool, doc)
}

func readOfficeDoc(ctx context.Context, q querier, doc office.Doc) ([]byte, error) {
	var body string
	err := q.QueryRow(ctx, `SELECT body FROM office_docs WHERE name = $1`, string(doc)).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []byte(body), nil
}

// Change runs fn in a write transaction, which holds the writers' lock:
// no other change, on any replica, reads or writes until it commits.
func (o officeDocs) Change(ctx context.Context, fn func(office.Tx) error) error {
	return o.db.update(ctx, func(tx *Tx) error { return fn(officeTx{tx}) })
}

type officeTx struct{ tx *Tx }

func (t officeTx) Read(doc office.Doc) ([]byte, error) { return readOfficeDoc(t.tx.ctx, t.tx, doc) }

// Write replaces doc and records its feed row: what the embedded desk
// announces after saving its file, announced here in the same commit.
func (t officeTx) Write(doc office.Doc, b []byte, revision int64) error {
	if err := t.tx.exec(`INSERT INTO office_docs (name, body, revision, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (name) DO UPDATE SET body = excluded.body, revision = excluded.revision, updated_at = excluded.updated_at`,
		string(doc), string(b), revision, t.tx.ts); err != nil {
		return err
	}
	t.tx.feed(desk.Change{Type: desk.ChangeOffice, ID: revision, Action: string(doc), Actor: desk.OwnerActor}, 0)
	return nil
}
