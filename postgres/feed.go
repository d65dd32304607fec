package postgres

import (
	"context"
	"errors"
	"time"

	"desk"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// Changes returns feed rows after f.After, in order.
func (db *DB) Changes(ctx context.Context, f desk.ChangeFilter) ([]*desk.Change, error) {
	return changes(ctx, db.pool, f)
}

func changes(ctx context.Context, q querier, f desk.ChangeFilter) ([]*desk.Change, error) {
	f.Limit = desk.ChangesLimit(f.Limit)
	query := `SELECT seq, project, issue, type, ref_id, action, actor, verdict, version, created_at FROM changes WHERE seq > $1`
	args := []any{f.After}
	if f.Project != "" {
		query += ` AND project = $3`
		args = append(args, f.Limit, f.Project)
	} else {
		args = append(args, f.Limit)
	}
	query += ` ORDER BY seq LIMIT $2`
	var out []*desk.Change
	err := eachRow(ctx, q, query, args, func(rs pgx.Rows) error {
		var c desk.Change
		if err := rs.Scan(&c.Seq, &c.Project, &c.Issue, &c.Type, &c.ID, &c.Action, &c.Actor, &c.Verdict, &c.Version, &c.At); err != nil {
			return err
		}
		out = append(out, &c)
		return nil
	})
	return out, err
}

// LastSeq returns the newest feed row's sequence number.
func (db *DB) LastSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := db.pool.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq)
	return seq, err
}

// FeedApplicationName names the connection Watch listens on, for
// operators reading pg_stat_activity.
const FeedApplicationName = "desk feed"

// watchPoll is how long Watch waits for a notification before it reads
// the feed anyway: the table is the truth, and a notification lost with a
// connection must cost no more than this.
const watchPoll = time.Second

// Watch calls fn with every batch of feed rows committed after seq after,
// by any replica, until ctx ends. It listens on the feed's channel on a
// connection of its own and reads the table on every notification, on
// every commit of this process, and at least once a second; a dropped
// connection is opened again and reading resumes from the last row handed
// over, so nothing is missed and nothing is handed over twice.
func (db *DB) Watch(ctx context.Context, after int64, fn func([]*desk.Change)) error {
	pos := after
	catchUp := func() error {
		for {
			cs, err := changes(ctx, db.pool, desk.ChangeFilter{After: pos, Limit: 1000})
			if err != nil {
				return err
			}
			if len(cs) == 0 {
				return nil
			}
			pos = cs[len(cs)-1].Seq
			fn(cs)
			if len(cs) < 1000 {
				return nil
			}
		}
	}
	backoff := 50 * time.Millisecond
	for {
		err := db.listen(ctx, catchUp)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		db.log.Warn("the change feed's connection failed; connecting again", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listen holds one LISTEN connection and calls catchUp whenever the feed
// may have grown, until the connection fails or ctx ends.
func (db *DB) listen(ctx context.Context, catchUp func() error) error {
	cfg, err := pgx.ParseConfig(db.url)
	if err != nil {
		return err
	}
	// A wait that times out only moves the connection's deadline: the
	// default handler would send the server a cancel request, a new
	// connection, on every poll.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	cfg.RuntimeParams["application_name"] = FeedApplicationName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+feedChannel); err != nil {
		return err
	}
	for {
		if err := catchUp(); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, watchPoll)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && !pgconn.Timeout(err) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
}
