package sqlite

import (
	"context"
	"sync"
	"sync/atomic"
)

// A long-lived process (the server, an agent's MCP server) copies the
// WAL's pages into the database in the background. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold: that write
// copies a thousand pages and syncs two files before it can answer, and
// was the slowest of every hundred writes. Such a process turns it off on
// its write connection (wal_autocheckpoint(0), see dsn) and, every
// checkpointEvery commits of its own, runs a PASSIVE checkpoint on one of
// its read connections. A passive checkpoint never takes the write lock,
// so writes go on while it copies; it copies what every process has
// written. A one-shot process keeps SQLite's own: it writes little, and
// the last connection to close checkpoints anyway.

// checkpointEvery is how many commits of this process pass between its
// checkpoints: a comment writes a handful of pages, so this keeps the WAL
// near SQLite's own threshold of a thousand pages.
const checkpointEvery = 100

type checkpointer struct {
	commits atomic.Int64
	running atomic.Bool
	wg      sync.WaitGroup
}

// committed counts a commit, and starts a checkpoint on db's read pool when
// one is due and none runs.
func (c *checkpointer) committed(db *DB) {
	if c.commits.Add(1)%checkpointEvery != 0 || !c.running.CompareAndSwap(false, true) {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer c.running.Store(false)
		// A checkpoint that cannot finish (a reader still on old pages)
		// leaves the rest for the next one.
		_, _ = db.read.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
	}()
}

// wait waits for a running checkpoint, before the store closes.
func (c *checkpointer) wait() { c.wg.Wait() }
