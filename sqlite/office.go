package sqlite

import (
	"context"

	"desk"
)

// OfficeChanged appends a feed row saying that the office's layout or its
// seat choices (what: "layout" or "seats") reached revision, so that every
// open office reads them again. The office keeps both in files of the data
// folder (package office); the row follows the file's replace, so nothing
// is announced that is not saved.
func (db *DB) OfficeChanged(ctx context.Context, what string, revision int64) error {
	return db.update(ctx, func(tx *Tx) error {
		return tx.feed(desk.Change{Type: desk.ChangeOffice, ID: revision, Action: what, Actor: "owner"}, 0)
	})
}
