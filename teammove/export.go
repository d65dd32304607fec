package teammove

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"desk/postgres"
)

// Export copies a team store into an empty local desk, the other way from
// Move: every table of Tables both sides have, row ids kept, each
// attachment's object into dstBlobs (the desk's data folder). A backup of
// a team store is the backup of the desk it exports to, and a restore into
// a team store moves the restored desk (see package backup and desk
// backup --db).
func Export(ctx context.Context, src *postgres.DB, dst Source) (*Report, error) {
	rep := &Report{Skipped: []string{}}
	var plans []*plan
	for _, t := range Tables {
		p, err := planTable(ctx, dst.DB, src, t)
		if err != nil {
			return nil, err
		}
		if p == nil {
			rep.Skipped = append(rep.Skipped, t.Name)
			continue
		}
		plans = append(plans, p)
	}
	// The objects first, then the rows that name them.
	rows, err := src.Pool().Query(ctx, `SELECT DISTINCT key FROM attachments`)
	if err != nil {
		return nil, fmt.Errorf("read the team store's attachments: %w", err)
	}
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	for _, k := range keys {
		data, err := src.Blobs().Get(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("attachment %s: %w", k, err)
		}
		if err := dst.Blobs.Put(ctx, k, data); err != nil {
			return nil, err
		}
		rep.Objects++
	}
	tx, err := dst.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, p := range plans {
		n, err := p.exportRows(ctx, src, tx)
		if err != nil {
			return nil, err
		}
		rep.Tables = append(rep.Tables, TableReport{Table: p.table.Name, Written: n})
	}
	// The desk's triggers count as rows arrive (an issue's comments, its
	// children) on top of the counts copied: every row is set once more
	// to the team store's values.
	for _, p := range plans {
		if len(p.cols) > len(p.key) {
			if _, err := p.exportPass(ctx, src, tx, p.keyFirst(), false); err != nil {
				return nil, err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit the export: %w", err)
	}
	if rep.Office, err = copyOffice(ctx, src.Office(), dst.Office, nil); err != nil {
		return nil, err
	}
	for i, p := range plans {
		tr, err := p.verify(ctx, dst.DB, src)
		if err != nil {
			return nil, err
		}
		tr.Written = rep.Tables[i].Written
		rep.Tables[i] = *tr
	}
	return rep, nil
}

// exportRows writes the team store's rows of the table into the desk's,
// the columns in Later in a second pass.
func (p *plan) exportRows(ctx context.Context, src *postgres.DB, tx *sql.Tx) (int, error) {
	first := slices.DeleteFunc(slices.Clone(p.cols), func(c string) bool { return slices.Contains(p.table.Later, c) })
	n, err := p.exportPass(ctx, src, tx, first, true)
	if err != nil {
		return 0, err
	}
	var later []string
	for _, c := range p.table.Later {
		if slices.Contains(p.cols, c) {
			later = append(later, c)
		}
	}
	if len(later) > 0 {
		if _, err := p.exportPass(ctx, src, tx, append(slices.Clone(p.key), later...), false); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (p *plan) exportPass(ctx context.Context, src *postgres.DB, tx *sql.Tx, cols []string, insert bool) (int, error) {
	rows, err := src.Pool().Query(ctx, `SELECT `+strings.Join(quoteAll(cols), ", ")+` FROM `+quote(p.table.Name))
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", p.table.Name, err)
	}
	defer rows.Close()
	srcCols := p.sourceCols(cols) // the desk's names
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	var stmt string
	if insert {
		stmt = `INSERT OR REPLACE INTO ` + quote(p.table.Name) + ` (` + strings.Join(srcCols, ", ") + `) VALUES (` + ph + `)`
	} else {
		var sets, where []string
		for _, c := range srcCols[len(p.key):] {
			sets = append(sets, c+" = ?")
		}
		for _, k := range srcCols[:len(p.key)] {
			where = append(where, k+" = ?")
		}
		stmt = `UPDATE ` + quote(p.table.Name) + ` SET ` + strings.Join(sets, ", ") + ` WHERE ` + strings.Join(where, " AND ")
	}
	st, err := tx.PrepareContext(ctx, stmt)
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", p.table.Name, err)
	}
	defer st.Close()
	n := 0
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return 0, err
		}
		for i, v := range vals {
			if b, ok := v.(bool); ok {
				vals[i] = map[bool]int64{false: 0, true: 1}[b]
			}
		}
		if !insert {
			// SET takes the columns after the key, WHERE the key.
			vals = append(slices.Clone(vals[len(p.key):]), vals[:len(p.key)]...)
		}
		if _, err := st.ExecContext(ctx, vals...); err != nil {
			return 0, fmt.Errorf("write %s: %w", p.table.Name, err)
		}
		n++
	}
	return n, rows.Err()
}

// keyFirst is the table's columns with the key first.
func (p *plan) keyFirst() []string {
	out := slices.Clone(p.key)
	for _, c := range p.cols {
		if !slices.Contains(p.key, c) {
			out = append(out, c)
		}
	}
	return out
}
