// Package teammove copies an embedded desk (its SQLite file and its data
// folder's attachments) into a team store (PostgreSQL and an object
// store), verifies the copy, and can run again to add what changed.
//
// The copy is driven by one list of tables (Tables): each is copied with
// the columns both sides have, row ids kept, so that every link between
// rows holds. A row already in the team store is updated when it differs
// and left alone when not, so a second run adds only what changed. The
// objects of the attachments are stored before the rows that name them.
package teammove

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"desk"
	"desk/office"
	"desk/postgres"

	"github.com/jackc/pgx/v5"
)

// Table is one table a move copies. Later names columns that point into
// the same table (an issue's parent): they are set in a second pass, once
// every row exists. From names the desk's column of a team store's column
// where the two differ.
type Table struct {
	Name  string
	Later []string
	From  map[string]string
}

// source is the desk's name of the team store's column c.
func (t Table) source(c string) string {
	if s, ok := t.From[c]; ok {
		return s
	}
	return c
}

// attachments is the table of the attachments, whose key column names
// their objects.
var attachments = Table{Name: "attachments", From: map[string]string{"key": "stored_path"}}

// Tables are the tables a move copies, parents before children. A table
// the source lacks (an older desk) or the team store lacks (a part not on
// the team server yet) is skipped; a new table is added here, in one place.
var Tables = []Table{
	{Name: "projects"},
	{Name: "issues", Later: []string{"parent_id", "merged_into"}},
	{Name: "comments"},
	attachments,
	{Name: "activity"},
	{Name: "commands"},
	{Name: "handoffs"},
	{Name: "changes"},
	{Name: "agent_sessions"},
	{Name: "agent_session_keys"},
	{Name: "agent_events"},
	{Name: "agent_session_issues"},
	{Name: "issue_claims"},
	{Name: "pairs"},
	{Name: "pair_members"},
	{Name: "pair_events"},
	{Name: "pair_letters"},
	{Name: "pair_notes"},
	{Name: "pair_tasks"},
	{Name: "pair_patches"},
	{Name: "pair_evidence"},
	{Name: "office_docs"},
	{Name: "managed_sessions"},
	// The code tables, once the team store has them (see package code).
	{Name: "code_repos"},
	{Name: "code_changes"},
	{Name: "code_change_intents"},
	{Name: "code_refs"},
	{Name: "change_log"},
	{Name: "code_open_changes"},
	{Name: "code_git_commits"},
}

// TableReport is what a move did to one table and what it found after.
type TableReport struct {
	Table    string `json:"table"`
	Rows     int    `json:"rows"`     // in the source
	Written  int    `json:"written"`  // added or changed by this run
	Checksum string `json:"checksum"` // of the rows, the same on both sides
}

// Report answers Move.
type Report struct {
	Tables  []TableReport `json:"tables"`
	Objects int           `json:"objects"` // objects stored by this run
	Office  int           `json:"office"`  // office documents written by this run
	Skipped []string      `json:"skipped"` // tables one side does not have
}

// Source is the local desk a move reads (or an export writes): its
// database, the object store of its attachments (the data folder) and
// the office's documents (its files in the data folder; nil leaves the
// office out).
type Source struct {
	DB     *sql.DB
	Blobs  desk.Blobs
	Office office.Backend
}

// Move copies src into dst, then checks that every table holds the same
// rows on both sides (counts and checksums). It fails, naming the table,
// when they differ.
func Move(ctx context.Context, src Source, dst *postgres.DB) (*Report, error) {
	rep := &Report{Skipped: []string{}}
	n, err := copyObjects(ctx, src, dst)
	if err != nil {
		return nil, err
	}
	rep.Objects = n
	var plans []*plan
	for _, t := range Tables {
		p, err := planTable(ctx, src.DB, dst, t)
		if err != nil {
			return nil, err
		}
		if p == nil {
			rep.Skipped = append(rep.Skipped, t.Name)
			continue
		}
		plans = append(plans, p)
	}
	tx, err := dst.Pool().Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("the team database: %w", err)
	}
	defer tx.Rollback(ctx)
	// One writer at a time, as the store's own writes take it.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, postgres.WriteLock); err != nil {
		return nil, err
	}
	written := map[string]int{}
	for _, p := range plans {
		if written[p.table.Name], err = p.copy(ctx, src.DB, tx); err != nil {
			return nil, err
		}
	}
	for _, p := range plans {
		if err := p.resetSequence(ctx, tx); err != nil {
			return nil, err
		}
	}
	// The office's documents go in the same transaction, with no feed row
	// of their own: the feed copied is the desk's, and the check compares
	// it row for row.
	rep.Office, err = copyOffice(ctx, src.Office, dst.Office(), func(doc office.Doc, b []byte, revision int64) error {
		_, err := tx.Exec(ctx, `INSERT INTO office_docs (name, body, revision, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (name) DO UPDATE SET body = excluded.body, revision = excluded.revision, updated_at = excluded.updated_at`,
			string(doc), string(b), revision, desk.FormatTime(time.Now()))
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("commit the copy: %w", err)
	}
	if err := dst.Reindex(ctx, nil, nil); err != nil {
		return nil, fmt.Errorf("rebuild the search words: %w", err)
	}
	for _, p := range plans {
		tr, err := p.verify(ctx, src.DB, dst)
		if err != nil {
			return nil, err
		}
		tr.Written = written[p.table.Name]
		rep.Tables = append(rep.Tables, *tr)
	}
	return rep, nil
}

// copyObjects stores every attachment's object the team store lacks,
// before any row names it.
func copyObjects(ctx context.Context, src Source, dst *postgres.DB) (int, error) {
	rows, err := src.DB.QueryContext(ctx, `SELECT DISTINCT `+quote(attachments.source("key"))+` FROM attachments`)
	if err != nil {
		return 0, fmt.Errorf("read the attachments: %w", err)
	}
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return 0, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		r, _, err := dst.Blobs().Open(ctx, k)
		if err == nil {
			r.Close()
			continue // stored by an earlier run: keys are never written twice
		}
		if desk.ErrorCode(err) != desk.NotFound {
			return n, fmt.Errorf("the object store: %w", err)
		}
		data, err := src.Blobs.Get(ctx, k)
		if err != nil {
			return n, fmt.Errorf("attachment %s: %w", k, err)
		}
		if err := dst.Blobs().Put(ctx, k, data); err != nil {
			return n, fmt.Errorf("store attachment %s: %w", k, err)
		}
		n++
	}
	return n, nil
}

// plan is how one table is copied: the columns both sides have, the
// primary key, and the target's types.
type plan struct {
	table Table
	cols  []string
	key   []string
	types map[string]string // the team store's data types by column
}

// planTable reads both sides' columns of t; nil when one side lacks it.
func planTable(ctx context.Context, src *sql.DB, dst *postgres.DB, t Table) (*plan, error) {
	srcCols := map[string]bool{}
	rows, err := src.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, t.Name)
	if err != nil {
		return nil, fmt.Errorf("read %s's columns: %w", t.Name, err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return nil, err
		}
		srcCols[c] = true
	}
	rows.Close()
	if len(srcCols) == 0 {
		return nil, nil
	}
	p := &plan{table: t, types: map[string]string{}}
	prs, err := dst.Pool().Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, t.Name)
	if err != nil {
		return nil, err
	}
	for prs.Next() {
		var c, typ string
		if err := prs.Scan(&c, &typ); err != nil {
			prs.Close()
			return nil, err
		}
		p.types[c] = typ
		if srcCols[t.source(c)] {
			p.cols = append(p.cols, c)
		}
	}
	prs.Close()
	if len(p.types) == 0 {
		return nil, nil
	}
	krs, err := dst.Pool().Query(ctx, `SELECT a.attname FROM pg_index x
		JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY(x.indkey)
		WHERE x.indrelid = to_regclass(quote_ident($1)) AND x.indisprimary ORDER BY array_position(x.indkey, a.attnum)`, t.Name)
	if err != nil {
		return nil, err
	}
	for krs.Next() {
		var c string
		if err := krs.Scan(&c); err != nil {
			krs.Close()
			return nil, err
		}
		p.key = append(p.key, c)
	}
	krs.Close()
	if len(p.key) == 0 {
		return nil, fmt.Errorf("table %s has no primary key in the team store", t.Name)
	}
	return p, nil
}

// sourceCols names cols as the desk's table names them, quoted.
func (p *plan) sourceCols(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = quote(p.table.source(c))
	}
	return out
}

// value converts a SQLite value for a column of the team store.
func (p *plan) value(col string, v any) any {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case int64:
		if p.types[col] == "boolean" {
			return x != 0
		}
	}
	return v
}

// copy upserts every source row: a row that is new is added, one that
// differs is brought up to date, one that is the same is left alone (and
// not counted). The columns in Later go in a second pass.
func (p *plan) copy(ctx context.Context, src *sql.DB, tx pgx.Tx) (int, error) {
	first := slices.DeleteFunc(slices.Clone(p.cols), func(c string) bool { return slices.Contains(p.table.Later, c) })
	n, err := p.upsert(ctx, src, tx, first, true)
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
		m, err := p.upsert(ctx, src, tx, append(slices.Clone(p.key), later...), false)
		if err != nil {
			return 0, err
		}
		n = max(n, m)
	}
	return n, nil
}

func (p *plan) upsert(ctx context.Context, src *sql.DB, tx pgx.Tx, cols []string, insert bool) (int, error) {
	rows, err := src.QueryContext(ctx, `SELECT `+strings.Join(p.sourceCols(cols), ", ")+` FROM `+quote(p.table.Name))
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", p.table.Name, err)
	}
	defer rows.Close()
	var set, differ []string
	for _, c := range cols {
		if !slices.Contains(p.key, c) {
			set = append(set, quote(c)+" = excluded."+quote(c))
			differ = append(differ, "t."+quote(c)+" IS DISTINCT FROM excluded."+quote(c))
		}
	}
	ph := make([]string, len(cols))
	for i := range cols {
		ph[i] = "$" + strconv.Itoa(i+1)
	}
	var stmt string
	if insert {
		stmt = `INSERT INTO ` + quote(p.table.Name) + ` AS t (` + strings.Join(quoteAll(cols), ", ") + `) VALUES (` + strings.Join(ph, ", ") + `)
			ON CONFLICT (` + strings.Join(quoteAll(p.key), ", ") + `) DO `
		if len(set) == 0 {
			stmt += "NOTHING"
		} else {
			stmt += "UPDATE SET " + strings.Join(set, ", ") + " WHERE " + strings.Join(differ, " OR ")
		}
	} else {
		var where []string
		for i, k := range p.key {
			where = append(where, quote(k)+" = $"+strconv.Itoa(i+1))
		}
		var sets, diffs []string
		for i, c := range cols[len(p.key):] {
			n := "$" + strconv.Itoa(len(p.key)+i+1)
			sets = append(sets, quote(c)+" = "+n)
			diffs = append(diffs, quote(c)+" IS DISTINCT FROM "+n)
		}
		stmt = `UPDATE ` + quote(p.table.Name) + ` SET ` + strings.Join(sets, ", ") + ` WHERE ` + strings.Join(where, " AND ") +
			` AND (` + strings.Join(diffs, " OR ") + `)`
	}
	n := 0
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	batch := &pgx.Batch{}
	flush := func() error {
		if batch.Len() == 0 {
			return nil
		}
		res := tx.SendBatch(ctx, batch)
		for i := 0; i < batch.Len(); i++ {
			tag, err := res.Exec()
			if err != nil {
				res.Close()
				return fmt.Errorf("copy into %s: %w", p.table.Name, err)
			}
			n += int(tag.RowsAffected())
		}
		batch = &pgx.Batch{}
		return res.Close()
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		args := make([]any, len(cols))
		for i, c := range cols {
			args[i] = p.value(c, vals[i])
		}
		batch.Queue(stmt, args...)
		if batch.Len() >= 500 {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return n, flush()
}

// resetSequence moves a serial key's sequence past the rows copied, so
// that the store's next row takes a fresh id.
func (p *plan) resetSequence(ctx context.Context, tx pgx.Tx) error {
	if len(p.key) != 1 {
		return nil
	}
	var seq *string
	if err := tx.QueryRow(ctx, `SELECT pg_get_serial_sequence(quote_ident($1), $2)`, p.table.Name, p.key[0]).Scan(&seq); err != nil || seq == nil {
		return err
	}
	_, err := tx.Exec(ctx, `SELECT setval($1, greatest((SELECT coalesce(max(`+quote(p.key[0])+`), 0) FROM `+quote(p.table.Name)+`), 1))`, *seq)
	return err
}

// verify counts and checksums the table's rows on both sides.
func (p *plan) verify(ctx context.Context, src *sql.DB, dst *postgres.DB) (*TableReport, error) {
	q := `SELECT ` + strings.Join(quoteAll(p.cols), ", ") + ` FROM ` + quote(p.table.Name)
	srcN, srcSum, err := checksumSQL(ctx, src, `SELECT `+strings.Join(p.sourceCols(p.cols), ", ")+` FROM `+quote(p.table.Name), len(p.cols))
	if err != nil {
		return nil, fmt.Errorf("checksum %s in the source: %w", p.table.Name, err)
	}
	dstN, dstSum, err := checksumPG(ctx, dst, q, len(p.cols))
	if err != nil {
		return nil, fmt.Errorf("checksum %s in the team store: %w", p.table.Name, err)
	}
	if srcN != dstN || srcSum != dstSum {
		return nil, fmt.Errorf("table %s differs after the copy: %d rows (checksum %s) in the desk, %d (%s) in the team store",
			p.table.Name, srcN, srcSum, dstN, dstSum)
	}
	return &TableReport{Table: p.table.Name, Rows: srcN, Checksum: srcSum}, nil
}

// rowSum adds up the SHA-256 of every row's values as text, in any order
// of the rows: the same rows give the same sum on either side.
type rowSum struct {
	n   int
	sum *big.Int
}

func newRowSum() *rowSum { return &rowSum{sum: new(big.Int)} }

func (s *rowSum) add(vals []any) {
	h := sha256.New()
	for _, v := range vals {
		h.Write([]byte(canonical(v)))
		h.Write([]byte{0x1f})
	}
	s.sum.Add(s.sum, new(big.Int).SetBytes(h.Sum(nil)))
	s.n++
}

func (s *rowSum) String() string {
	b := s.sum.Bytes()
	h := sha256.Sum256(b)
	return fmt.Sprintf("%x", h[:12])
}

// canonical is a value as text, alike whichever database read it.
func canonical(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00"
	case []byte:
		return string(x)
	case string:
		return x
	case bool:
		if x {
			return "1"
		}
		return "0"
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func checksumSQL(ctx context.Context, db *sql.DB, q string, ncols int) (int, string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	s := newRowSum()
	vals := make([]any, ncols)
	ptrs := make([]any, ncols)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, "", err
		}
		s.add(vals)
	}
	return s.n, s.String(), rows.Err()
}

func checksumPG(ctx context.Context, db *postgres.DB, q string, ncols int) (int, string, error) {
	rows, err := db.Pool().Query(ctx, q)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	s := newRowSum()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return 0, "", err
		}
		if len(vals) != ncols {
			return 0, "", errors.New("column count changed")
		}
		s.add(vals)
	}
	return s.n, s.String(), rows.Err()
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quote(n)
	}
	return out
}
