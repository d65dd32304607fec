package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// OpenRead opens the desk in folder dir for a short-lived reader, such as a
// hook that runs before every prompt: one query-only connection, opened
// and checked at once, and a write connection that is opened only if a
// write ever comes. Every connection SQLite opens parses the whole schema
// (its search index and triggers make that a millisecond here), so a
// process that only reads pays for one instead of two.
//
// It never creates a desk: a folder without one gives ErrNoDesk. A desk
// written by an older desk is opened with Open, which brings its schema
// up to date first.
func OpenRead(ctx context.Context, dir string, cacheKiB int) (*DB, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(abs, FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNoDesk, abs)
	}
	if cacheKiB <= 0 {
		cacheKiB = 1024
	}
	db := &DB{dir: abs, path: path, Now: time.Now}
	if db.read, err = sql.Open("sqlite", dsn(path, true, cacheKiB)); err != nil {
		return nil, err
	}
	db.read.SetMaxOpenConns(1)
	db.read.SetMaxIdleConns(1)
	v, err := schemaVersion(ctx, db.read)
	if err != nil || v != SchemaVersion {
		db.read.Close()
		if err != nil {
			return nil, err
		}
		return Open(ctx, dir, Options{NoCreate: true, Readers: 1, CacheKiB: cacheKiB})
	}
	// sql.Open connects on first use: a reader that never writes never
	// opens this one.
	if db.write, err = sql.Open("sqlite", dsn(path, false, cacheKiB)); err != nil {
		db.read.Close()
		return nil, err
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	db.write.SetConnMaxIdleTime(0)
	db.writeStmts = newStmtCache(db.write)
	db.index = newIssueIndex(db)
	return db, nil
}
