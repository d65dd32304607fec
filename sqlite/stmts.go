package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// stmtCache keeps prepared statements of a connection pool by their text.
// SQLite compiles a statement, with every trigger it fires, each time it is
// prepared, and the driver prepares on every call: a comment's write spent
// about half its time compiling SQL it had compiled before.
//
// A statement cannot be prepared on the pool while a transaction holds the
// only connection (the write pool has one), so a statement seen inside a
// transaction is only noted there, and prepared once the transaction ends.
type stmtCache struct {
	db     *sql.DB
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	wanted map[string]bool
}

// maxCachedStmts bounds the cache; the store's queries are a few dozen
// texts, and one built from its arguments is simply not kept.
const maxCachedStmts = 200

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}, wanted: map[string]bool{}}
}

// cacheable reports whether query is one plain statement: text with more
// than one statement (a schema script) runs as it is.
func cacheable(query string) bool {
	if strings.ContainsRune(query, ';') {
		return false
	}
	q := strings.ToUpper(strings.TrimSpace(query))
	for _, verb := range []string{"SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "REPLACE"} {
		if strings.HasPrefix(q, verb) {
			return true
		}
	}
	return false
}

// lookup returns the prepared statement of query, or nil after noting that
// it is wanted.
func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.stmts[query]; st != nil {
		return st
	}
	if len(c.stmts)+len(c.wanted) < maxCachedStmts && cacheable(query) {
		c.wanted[query] = true
	}
	return nil
}

// prepareWanted prepares the statements noted since the last call. Call it
// when this goroutine holds no connection of the pool.
func (c *stmtCache) prepareWanted(ctx context.Context) {
	c.mu.Lock()
	if len(c.wanted) == 0 {
		c.mu.Unlock()
		return
	}
	queries := make([]string, 0, len(c.wanted))
	for q := range c.wanted {
		queries = append(queries, q)
	}
	c.wanted = map[string]bool{}
	c.mu.Unlock()
	for _, q := range queries {
		if st, err := c.db.PrepareContext(ctx, q); err == nil {
			c.keep(q, st)
		} // else it keeps running unprepared, and reports its own error
	}
}

// keep stores st as query's statement and returns the statement kept: st,
// or the one another goroutine prepared first (st is then closed).
func (c *stmtCache) keep(query string, st *sql.Stmt) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev := c.stmts[query]; prev != nil {
		st.Close()
		return prev
	}
	c.stmts[query] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.stmts {
		st.Close()
		delete(c.stmts, q)
	}
}

// The write transaction's statements and one-row queries go through the
// cache: every helper that takes a *Tx (or a queryer holding one) gets
// prepared statements. Queries that return rows to iterate do not: one
// prepared statement cannot serve a second use of the same text while the
// first one's rows are still open.

// ExecContext runs a statement of the transaction.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := tx.db.writeStmts.lookup(query); st != nil {
		return tx.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.Tx.ExecContext(ctx, query, args...)
}

// QueryRowContext runs a query of the transaction that returns one row.
func (tx *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := tx.db.writeStmts.lookup(query); st != nil {
		return tx.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.Tx.QueryRowContext(ctx, query, args...)
}

// readStmt returns the read pool's prepared statement of query, preparing
// it on first use. It is for queries run on the pool itself, outside any
// transaction, such as the feed's, which a process following the feed
// runs after every commit anyone makes. A statement of the pool is safe
// for concurrent use: each use takes a connection of its own.
func (db *DB) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c := db.readStmts
	c.mu.Lock()
	st := c.stmts[query]
	c.mu.Unlock()
	if st != nil {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return c.keep(query, st), nil
}

// pool returns a queryer that runs each query on the read pool, outside
// any transaction, through the pool's prepared statements (readStmt). It
// is for one-off reads of constant texts, such as the issue a write
// answers with or the project a handoff names: compiling them on every
// call was a fifth of an agent's get_handoff. A one-shot process runs
// them as they are, as its read transactions do.
func (db *DB) pool() queryer {
	if db.oneShot {
		return db.read
	}
	return readPool{db}
}

type readPool struct{ db *DB }

func (p readPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.db.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p readPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.db.readStmt(ctx, query)
	if err != nil {
		// A text that does not compile: running it as it is reports
		// SQLite's error when the row is scanned.
		return p.db.read.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// readTx is a read transaction whose queries run the read pool's prepared
// statements: a detail or a list runs a dozen queries, and compiling them
// again on every read was a fifth of a tool call's work.
//
// A prepared statement serves one query at a time on its connection, and a
// transaction may run a query while the rows of another of the same text
// are still open (rows are read in loops). So each text runs prepared once
// per transaction and as it is after that; the second use of a text in one
// read is rare, and costs what every use did before.
type readTx struct {
	*sql.Tx
	stmts *stmtCache // nil: every query runs as it is (a one-shot process)
	used  map[string]bool

	seq     int64 // the feed's last position in the snapshot, once read (see feedSeq)
	seqRead bool
}

// feedSeq returns the feed's last position as q sees it. A read
// transaction's snapshot does not move, so it is read once per
// transaction: a search reads it after the list's index has.
func feedSeq(ctx context.Context, q queryer) (int64, error) {
	tx, read := q.(*readTx)
	if read && tx.seqRead {
		return tx.seq, nil
	}
	var seq int64
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq); err != nil {
		return 0, err
	}
	if read {
		tx.seq, tx.seqRead = seq, true
	}
	return seq, nil
}

// prepared returns the transaction's use of query's prepared statement, or
// nil when the query should run as it is.
func (tx *readTx) prepared(ctx context.Context, query string) *sql.Stmt {
	if tx.stmts == nil || tx.used[query] {
		return nil
	}
	st := tx.stmts.lookup(query)
	if st == nil {
		return nil
	}
	if tx.used == nil {
		tx.used = make(map[string]bool, 8)
	}
	tx.used[query] = true
	return tx.Tx.StmtContext(ctx, st)
}

// QueryContext runs a query of the transaction.
func (tx *readTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := tx.prepared(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return tx.Tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query of the transaction that returns one row.
func (tx *readTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := tx.prepared(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.Tx.QueryRowContext(ctx, query, args...)
}
