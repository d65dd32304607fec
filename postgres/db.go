// Package postgres is desk's team store: every record the embedded desk
// keeps (projects, issues, comments, files' descriptions, timelines,
// plans, handoffs, builds, the game command queue, agent sessions and the
// change feed) in one PostgreSQL database that any number of desk servers
// share, through pgx.
//
// It implements the same services as package sqlite under the same rules
// (those live in package desk) and passes the same test suite (package
// storetest). Writes take one lock of the database for their transaction,
// as the embedded store's writes take SQLite's, so the change feed grows
// in commit order and every reader that resumes after a position misses
// nothing; replicas hear of each other's writes through LISTEN/NOTIFY,
// and the feed table stays the truth when a notification is missed.
// Attachments' bytes go to a desk.Blobs (a folder, or S3), written before
// the row that names them.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"desk"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure Open.
type Options struct {
	// Blobs keeps attachments' bytes. Required.
	Blobs desk.Blobs
	// MaxConns bounds the pool (default pgxpool's: the larger of 4 and the
	// number of CPUs).
	MaxConns int32
	// Logger gets the feed follower's reconnections; nil discards.
	Logger *slog.Logger
}

// DB is the team store on one PostgreSQL database. It implements
// desk.Service and agent.Store, and is safe for concurrent use.
type DB struct {
	pool  *pgxpool.Pool
	blobs desk.Blobs
	log   *slog.Logger
	url   string

	// Now returns the current time; tests replace it.
	Now func() time.Time
}

// Open connects to the database at url (postgres://...), brings its schema
// up to date, and returns the store. A database that cannot be reached, or
// whose applied migrations differ from this desk's, stops it with the
// reason.
func Open(ctx context.Context, dbURL string, o Options) (*DB, error) {
	if o.Blobs == nil {
		return nil, errors.New("postgres: no object store for attachments")
	}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("database URL %s: %w", Redact(dbURL), err)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", Redact(dbURL), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", Redact(dbURL), err)
	}
	ms, err := Migrations()
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := migrate(ctx, pool, ms); err != nil {
		pool.Close()
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &DB{pool: pool, blobs: o.Blobs, log: log, url: dbURL, Now: time.Now}, nil
}

// Redact returns a database URL without its password, for messages and
// logs.
func Redact(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil || u.User == nil {
		if err != nil {
			return "(an unreadable database URL)"
		}
		return dbURL
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// Pool returns the connection pool, for the stores that share the database.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Blobs returns the object store of the attachments.
func (db *DB) Blobs() desk.Blobs { return db.blobs }

// writeLock is the advisory lock every write transaction holds: writes go
// one at a time, across every replica, as on the embedded store, which
// keeps the feed's order the commit order.
const writeLock int64 = 0x6465736b77726974 // "deskwrit"

// WriteLock is the advisory lock of the writers, for a tool that writes
// to the tables in a transaction of its own (desk migrate): holding it,
// its writes go between the store's, never among them.
const WriteLock = writeLock

// feedChannel is the LISTEN/NOTIFY channel of the change feed; a payload
// is the newest seq of the write.
const feedChannel = "desk_feed"

// update runs fn in a write transaction and commits it with the feed rows
// fn recorded. Blobs fn wrote are removed again when it fails, and blobs
// it dropped are removed once it commits.
//
// The writers' lock is held from its grant to the commit, and every other
// write of every replica waits for it, so the transaction keeps its round
// trips to the server under the lock few: BEGIN goes with the lock's
// request, and the feed rows, the notification and the COMMIT go in one
// batch (tx.commit).
func (db *DB) update(ctx context.Context, fn func(tx *Tx) error) error {
	return db.write(ctx, nil, fn)
}

// lockedRead is a read a write sends with its lock's request, so that it
// runs as soon as the lock is granted and its answer comes back with the
// grant's: one round trip under the lock fewer.
type lockedRead struct {
	sql  string
	args []any
	scan func(pgx.Row) error
}

// write is update with a first read that goes with the lock (none when
// first is nil).
func (db *DB) write(ctx context.Context, first *lockedRead, fn func(tx *Tx) error) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	// A connection left inside a transaction (a failed rollback, a
	// cancelled call) is closed by the pool on release, never reused.
	defer conn.Release()
	tx := newTx(ctx, db, conn)
	fail := func(err error) error {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
		}
		tx.rollbackBlobs()
		return err
	}
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SELECT pg_advisory_xact_lock($1)`, writeLock)
	if first != nil {
		b.Queue(first.sql, first.args...)
	}
	br := conn.SendBatch(ctx, b)
	_, err = br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err != nil {
		br.Close()
		return fail(fmt.Errorf("begin write: %w", err))
	}
	if first != nil {
		if err := first.scan(br.QueryRow()); err != nil {
			br.Close()
			return fail(err)
		}
	}
	if err := br.Close(); err != nil {
		return fail(fmt.Errorf("begin write: %w", err))
	}
	tx.stamp()
	if err := fn(tx); err != nil {
		return fail(err)
	}
	if err := tx.commit(); err != nil {
		return fail(err)
	}
	tx.commitBlobs()
	return nil
}

// view runs fn in a read-only transaction that sees one snapshot.
func (db *DB) view(ctx context.Context, fn func(q querier) error) error {
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	return fn(tx)
}

// querier is what reads need: a transaction or the pool.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func notFound(format string, args ...any) error {
	return desk.Errorf(desk.NotFound, format, args...)
}

// isUnique reports whether err is a unique constraint violation.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// escapeLike quotes the wildcards of a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// compile-time check that DB offers every service.
var _ desk.Service = (*DB)(nil)
