package sqlite

import (
	"context"
	"database/sql"
	"strconv"

	"desk"
)

// Changes returns feed rows after f.After, in order.
func (db *DB) Changes(ctx context.Context, f desk.ChangeFilter) ([]*desk.Change, error) {
	f.Limit = desk.ChangesLimit(f.Limit)
	query := `SELECT seq, project, issue, type, ref_id, action, actor, verdict, version, created_at FROM changes WHERE seq > ?`
	args := []any{f.After}
	if f.Project != "" {
		query += ` AND project = ?`
		args = append(args, f.Project)
	}
	query += ` ORDER BY seq LIMIT ?`
	args = append(args, f.Limit)
	st, err := db.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*desk.Change
	for rows.Next() {
		var c desk.Change
		var issue, verdict sql.NullString
		if err := rows.Scan(&c.Seq, &c.Project, &issue, &c.Type, &c.ID, &c.Action, &c.Actor, &verdict, &c.Version, &c.At); err != nil {
			return nil, err
		}
		if issue.Valid {
			c.Issue = &issue.String
		}
		if verdict.Valid {
			c.Verdict = &verdict.String
		}
		out = append(out, &c)
	}
	return out, rows.Err()
}

// LastSeq returns the newest feed row's sequence number.
func (db *DB) LastSeq(ctx context.Context) (int64, error) {
	return feedSeq(ctx, db.pool())
}

func itoa(i int) string { return strconv.Itoa(i) }

// compile-time check that DB offers every service.
var _ desk.Service = (*DB)(nil)
