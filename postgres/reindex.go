package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Reindex rebuilds the search words of the issues and comments whose row
// ids are given (all of them with nil), for rows written by a copy rather
// than by the store's own writes.
func (db *DB) Reindex(ctx context.Context, issues, comments []int64) error {
	return db.update(ctx, func(tx *Tx) error {
		where, args := "", []any{}
		if issues != nil {
			where, args = " WHERE i.id = ANY($1)", []any{issues}
		}
		var rows []*row
		err := eachRow(ctx, tx, issueSelect(true)+where, args, func(rs pgx.Rows) error {
			r, err := scanIssue(rs)
			rows = append(rows, r)
			return err
		})
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := tx.reindex(r); err != nil {
				return err
			}
		}
		where, args = "", []any{}
		if comments != nil {
			where, args = " WHERE id = ANY($1)", []any{comments}
		}
		type text struct {
			id int64
			s  string
		}
		var cs []text
		err = eachRow(ctx, tx, `SELECT id, text FROM comments`+where, args, func(rs pgx.Rows) error {
			var c text
			err := rs.Scan(&c.id, &c.s)
			cs = append(cs, c)
			return err
		})
		if err != nil {
			return err
		}
		for _, c := range cs {
			if err := tx.exec(`UPDATE comments SET words = to_tsvector('desk_search', $2) WHERE id = $1`, c.id, searchWords(c.s)); err != nil {
				return err
			}
		}
		return nil
	})
}
