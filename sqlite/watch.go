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
	w := &feedWaker{poll: 250 * time.Millisecond, wal: filepath.Base(db.path) + "-wal", main: filepath.Base(db.path)}
	if fw, err := fsnotify.NewWatcher(); err == nil {
		defer fw.Close()
		if err := fw.Add(db.dir); err == nil {
			w.events = fw.Events
		}
	}
	if w.events == nil {
		w.poll = 10 * time.Millisecond
	}
	timer := time.NewTimer(w.poll)
	defer timer.Stop()
	// A commit becomes visible a moment after its last write to the log
	// file: the file system reports the write, but the wal-index that
	// makes it visible is shared memory, whose writes it does not report.
	// So after a report, and after a read that found something (a commit
	// whose report was taken with an earlier one's may not have been
	// visible yet), the feed is read again shortly, a few times, at 1, 2,
	// 4, 8 and 16 ms. Reading it every few milliseconds for as long as
	// writes come instead cost a busy server more than all its requests.
	settle := settleSteps
	for {
		committed := db.Committed()
		found := false
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
			found = true
			fn(changes)
			if len(changes) < 1000 {
				break
			}
		}
		if found || w.reported {
			settle = 0
		}
		next := w.poll
		if settle < settleSteps {
			next = time.Millisecond << settle
			settle++
		}
		timer.Reset(next)
		if err := w.wait(ctx, committed, timer); err != nil {
			return err
		}
	}
}

// settleSteps is how many times the feed is read again after a report or
// a find, each wait twice the last from 1 ms: 31 ms in all.
const settleSteps = 5

// feedWaker waits for a reason to read the feed again.
type feedWaker struct {
	events    <-chan fsnotify.Event
	poll      time.Duration
	wal, main string // the database's file names
	reported  bool   // the last wait ended on a file report
}

// wait returns when this process commits, the database's files are
// written, or the poll interval passes. A commit writes the log file in
// several pieces, each reported on its own: the reports already queued are
// taken together, so that one commit costs one read of the feed.
func (w *feedWaker) wait(ctx context.Context, committed <-chan struct{}, timer *time.Timer) error {
	w.reported = false
	defer func() {
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-committed:
			return nil
		case <-timer.C:
			return nil
		case ev, ok := <-w.events:
			if !ok {
				w.events, w.poll = nil, 10*time.Millisecond
				return nil
			}
			if !w.ours(ev) {
				continue
			}
			w.reported = true
			for {
				select {
				case _, ok := <-w.events:
					if ok {
						continue
					}
					w.events, w.poll = nil, 10*time.Millisecond
				default:
				}
				return nil
			}
		}
	}
}

func (w *feedWaker) ours(ev fsnotify.Event) bool {
	name := filepath.Base(ev.Name)
	return name == w.wal || name == w.main
}
