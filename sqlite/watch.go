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
	// A read that a report woke and that found nothing is tried again
	// shortly, a few times; and while writes come, the feed is also read
	// every few milliseconds, so that none waits for the idle poll.
	settle := 0
	var active time.Time
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
		now := time.Now()
		if found || w.reported {
			active = now
		}
		next := w.poll
		switch {
		case found:
			settle = 0
			next = busyPoll
		case w.reported && settle < 4:
			next = time.Millisecond << settle
			settle++
		case now.Sub(active) < busyFor:
			next = busyPoll
		}
		timer.Reset(next)
		if err := w.wait(ctx, committed, timer); err != nil {
			return err
		}
	}
}

// While writes come (and for busyFor after the last), the feed is read at
// least every busyPoll.
const (
	busyPoll = 5 * time.Millisecond
	busyFor  = 2 * time.Second
)

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
