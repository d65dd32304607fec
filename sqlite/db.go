// Package sqlite is desk's embedded store: one SQLite file in WAL mode in the
// data folder, attachments beside it, every rule of the data model applied in
// one transaction per write, and the change feed appended in that same
// transaction.
//
// Several processes open the same folder at once (the server, CLI commands,
// one MCP server per agent, hooks); SQLite's locking keeps them consistent
// and the feed tells each what the others wrote.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"desk"
	"desk/folder"

	msqlite "modernc.org/sqlite"
)

// FileName is the database's file name inside the data folder.
const FileName = "desk.sqlite"

// DB is the store of one data folder. It implements desk.Service. A DB is
// safe for concurrent use.
type DB struct {
	dir  string
	path string

	write *sql.DB // one connection: this process writes one transaction at a time
	read  *sql.DB // a small pool of query-only connections

	writeStmts *stmtCache // the write transactions' prepared statements

	readStmts *stmtCache // the read pool's prepared statements (see readStmt, readTx)
	oneShot   bool       // Options.OneShot: reads prepare nothing to keep

	// Now returns the current time; tests replace it.
	Now func() time.Time

	index     *issueIndex
	overviews overviewCache
	searches  searchCache
	lists     keptLists
	rowsByID  keptRowsByID // for searches
	// textMatches is kept by searches; see textMatches.
	textMatches textMatches

	checkpoints *checkpointer // nil in a one-shot process (see checkpoint.go)

	blobs desk.Blobs // the attachments' bytes (Options.Blobs)

	mu      sync.Mutex
	commits []chan struct{} // closed after every commit of this process
}

// Options tune Open.
type Options struct {
	// NoCreate refuses to create the data folder or the database: read-only
	// commands and hooks never leave a desk behind where there was none.
	NoCreate bool
	// Readers is the size of the read pool (default 4).
	Readers int
	// CacheKiB is SQLite's page cache per connection (default 8 MiB for
	// the write connection and 4 MiB per reader); small processes such as
	// an MCP server or a hook lower it.
	CacheKiB int
	// Blobs keeps the attachments' bytes; nil keeps them in the data
	// folder (package folder), under attachments/.
	Blobs desk.Blobs
	// OneShot is for a process that opens the desk for one command and
	// exits (the CLI): its reads map the file rather than copy each page
	// into a page cache that would never be read again, which saves a fifth
	// of a list's time. A long-lived process keeps the cache, which serves
	// its repeated reads faster than the map.
	OneShot bool
}

// ErrNoDesk is returned by Open with NoCreate when the folder holds no desk.
var ErrNoDesk = errors.New("no desk in this folder")

func init() {
	// An os.File closed anywhere in this process (a backup reading the
	// folder, say) must not strip SQLite's locks on the database; OFD locks
	// survive it. Where they are unavailable SQLite keeps POSIX locks.
	_, _ = msqlite.OFDLocking(true)
	// fdatasync is as durable as fsync for a commit and often twice as fast.
	_, _ = msqlite.Fdatasync(true)
}

// Open opens (creating unless o.NoCreate) the desk in folder dir and brings
// its schema up to date.
func Open(ctx context.Context, dir string, o Options) (*DB, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(abs, FileName)
	if o.NoCreate {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%w: %s", ErrNoDesk, abs)
		}
	} else if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	if o.Readers <= 0 {
		o.Readers = 4
	}
	db := &DB{dir: abs, path: path, Now: time.Now, oneShot: o.OneShot, blobs: o.Blobs}
	if db.blobs == nil {
		db.blobs = folder.New(abs)
	}
	if !o.OneShot {
		db.checkpoints = &checkpointer{}
	}
	wcache, rcache := 8192, 4096
	if o.CacheKiB > 0 {
		wcache, rcache = o.CacheKiB, o.CacheKiB
	}
	if db.write, err = sql.Open("sqlite", dsn(path, false, wcache, o.OneShot)); err != nil {
		return nil, err
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	db.write.SetConnMaxIdleTime(0)
	db.writeStmts = newStmtCache(db.write)
	if db.read, err = sql.Open("sqlite", dsn(path, true, rcache, o.OneShot)); err != nil {
		db.write.Close()
		return nil, err
	}
	db.readStmts = newStmtCache(db.read)
	db.read.SetMaxOpenConns(o.Readers)
	db.read.SetMaxIdleConns(o.Readers)
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	db.index = newIssueIndex(db)
	return db, nil
}

// dsn builds the connection string: WAL, foreign keys, a busy timeout long
// enough to wait out any other process's write, writes that take the write
// lock when they begin (so they never fail halfway on a lock upgrade).
func dsn(path string, readOnly bool, cacheKiB int, oneShot bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", cacheKiB))
	q.Add("_pragma", "temp_store(MEMORY)")
	if oneShot {
		q.Add("_pragma", "mmap_size(268435456)")
	}
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		if !oneShot {
			q.Add("_pragma", "wal_autocheckpoint(0)") // see checkpoint.go
		}
		// Once the connection is set up (switching a new file to WAL may
		// wait for another process), the writer waits for the write lock
		// in beginWrite, not in SQLite.
		q.Add("_pragma", "busy_timeout(5)")
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Dir returns the data folder.
func (db *DB) Dir() string { return db.dir }

// ReadDB returns the pool of query-only connections, for a tool that
// reads whole tables (desk migrate).
func (db *DB) ReadDB() *sql.DB { return db.read }

// WriteDB returns the writer's connection, for a tool that fills a new,
// closed-to-others desk table by table (desk backup --db); the desk's
// caches know nothing of what it writes, so open the desk again after.
func (db *DB) WriteDB() *sql.DB { return db.write }

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error {
	if db.checkpoints != nil {
		db.checkpoints.wait()
	}
	if db.writeStmts != nil {
		db.writeStmts.close()
	}
	if db.readStmts != nil {
		db.readStmts.close()
	}
	var errs []error
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	if db.write != nil {
		errs = append(errs, db.write.Close())
	}
	return errors.Join(errs...)
}

// Committed returns a channel that is closed after the next commit this
// process makes, so a live view in the same process hears of it at once
// instead of at its next poll.
func (db *DB) Committed() <-chan struct{} {
	db.mu.Lock()
	defer db.mu.Unlock()
	ch := make(chan struct{})
	db.commits = append(db.commits, ch)
	return ch
}

func (db *DB) signalCommit() {
	db.mu.Lock()
	chs := db.commits
	db.commits = nil
	db.mu.Unlock()
	for _, ch := range chs {
		close(ch)
	}
}

// update runs fn in a write transaction and commits it, appending the feed
// rows fn recorded. Every exported write goes through here.
func (db *DB) update(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	tx := newTx(ctx, db, sqlTx)
	if err := fn(tx); err != nil {
		sqlTx.Rollback()
		tx.rollbackFiles()
		return err
	}
	if err := tx.finish(); err != nil {
		sqlTx.Rollback()
		tx.rollbackFiles()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		tx.rollbackFiles()
		return fmt.Errorf("commit: %w", err)
	}
	tx.commitFiles()
	db.signalCommit()
	if db.checkpoints != nil {
		db.checkpoints.committed(db)
	}
	db.writeStmts.prepareWanted(ctx)
	return nil
}

// writeWait is how long a write waits for other processes' writes before
// it gives up.
const writeWait = 30 * time.Second

// beginWrite takes the database's write lock. SQLite's own busy handler
// backs off to 100 ms sleeps, and under twenty writers a waiter can starve
// behind the ones that keep arriving; short random sleeps keep every
// process in the race, and the deadline is generous because a write
// holds the lock for a millisecond or two.
func (db *DB) beginWrite(ctx context.Context) (*sql.Tx, error) {
	deadline := time.Now().Add(writeWait)
	for {
		tx, err := db.write.BeginTx(ctx, nil)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return tx, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(500+rand.IntN(3000)) * time.Microsecond):
		}
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *msqlite.Error
	if errors.As(err, &se) {
		return se.Code()&0xff == 5 // SQLITE_BUSY
	}
	return strings.Contains(err.Error(), "SQLITE_BUSY")
}

// view runs fn in a read transaction: every query in it sees one snapshot.
func (db *DB) view(ctx context.Context, fn func(tx *readTx) error) error {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	rt := &readTx{Tx: tx}
	if !db.oneShot {
		rt.stmts = db.readStmts
	}
	err = fn(rt)
	tx.Rollback()
	if rt.stmts != nil {
		rt.stmts.prepareWanted(ctx)
	}
	return err
}

// isUnique reports whether err is a UNIQUE constraint failure.
func isUnique(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

func notFound(format string, args ...any) error {
	return desk.Errorf(desk.NotFound, format, args...)
}
