package sqlite

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"desk"
)

// Watch calls fn with every batch of feed rows committed after seq after,
// by this process or any other on the same folder, until ctx ends. It wakes
// on this process's own commits at once, on other processes' commits when
// the file system reports a write to the database, and polls as a fallback
// where no such report comes.
func (db *DB) Watch(ctx context.Context, after int64, fn func([]*desk.Change)) error {
	poll := 250 * time.Millisecond
	var events <-chan fsnotify.Event
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		if err := w.Add(db.dir); err == nil {
			events = w.Events
		} else {
			poll = 10 * time.Millisecond
		}
	} else {
		poll = 10 * time.Millisecond
	}
	wal, main := filepath.Base(db.path)+"-wal", filepath.Base(db.path)
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for {
		committed := db.Committed()
		for {
			changes, err := db.Changes(ctx, desk.ChangeFilter{After: after, Limit: 1000})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				break // a transient read error: try again on the next wake
			}
			if len(changes) == 0 {
				break
			}
			after = changes[len(changes)-1].Seq
			fn(changes)
			if len(changes) < 1000 {
				break
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(poll)
	wait:
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-committed:
		case <-timer.C:
		case ev, ok := <-events:
			if !ok {
				events, poll = nil, 10*time.Millisecond
				break
			}
			if name := filepath.Base(ev.Name); name != wal && name != main {
				goto wait
			}
		}
	}
}
