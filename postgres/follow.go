package postgres

import (
	"context"
	"errors"
	"sync"

	"desk"
)

// follower shares one follow of the change feed (one LISTEN connection,
// Watch) among any number of watchers in this process. A pair_read that
// waits then costs the database nothing of its own: without it, every
// wait would open, and hold, a connection of its own for up to a minute.
type follower struct {
	db *DB

	mu      sync.Mutex
	subs    map[*feedSub]struct{}
	running bool
	closed  bool
	stop    context.CancelFunc
	done    chan struct{} // closed when the follow ends
}

// feedSub is one watcher's queue of the rows the follower handed over.
type feedSub struct {
	mu      sync.Mutex
	pending []*desk.Change
	wake    chan struct{} // one token: pending grew
}

func newFollower(db *DB) *follower {
	return &follower{db: db, subs: map[*feedSub]struct{}{}}
}

// watch calls fn with every batch of feed rows committed after seq after,
// until ctx ends. It reads what was committed already from the table, and
// what comes later from the shared follow, handing over each row once.
func (f *follower) watch(ctx context.Context, after int64, fn func([]*desk.Change)) error {
	sub := &feedSub{wake: make(chan struct{}, 1)}
	done, err := f.join(sub)
	if err != nil {
		return err
	}
	defer f.leave(sub)
	// The follow hands over every row committed after it began, and it
	// began before this watcher joined; the table holds every row
	// committed before the reads below. Between the two, a row may come
	// both ways: pos keeps it from being handed over twice.
	pos := after
	for {
		cs, err := changes(ctx, f.db.pool, desk.ChangeFilter{After: pos, Limit: 1000})
		if err != nil {
			return err
		}
		if len(cs) > 0 {
			pos = cs[len(cs)-1].Seq
			fn(cs)
		}
		if len(cs) < 1000 {
			break
		}
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done:
			return errFollowerClosed
		case <-sub.wake:
		}
		sub.mu.Lock()
		got := sub.pending
		sub.pending = nil
		sub.mu.Unlock()
		var fresh []*desk.Change
		for _, c := range got {
			if c.Seq > pos {
				fresh = append(fresh, c)
			}
		}
		if len(fresh) > 0 {
			pos = fresh[len(fresh)-1].Seq
			fn(fresh)
		}
	}
}

// errFollowerClosed ends the watches of a store that was closed.
var errFollowerClosed = errors.New("postgres: the store was closed")

// join adds sub, starting the follow from the feed's newest row when it
// is not running, and returns the channel closed when the follow ends.
func (f *follower) join(sub *feedSub) (<-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errFollowerClosed
	}
	if !f.running {
		seq, err := f.db.LastSeq(context.Background())
		if err != nil {
			return nil, err
		}
		ctx, stop := context.WithCancel(context.Background())
		f.running, f.stop, f.done = true, stop, make(chan struct{})
		go func(done chan struct{}) {
			defer close(done)
			f.db.Watch(ctx, seq, f.publish)
		}(f.done)
	}
	f.subs[sub] = struct{}{}
	return f.done, nil
}

func (f *follower) leave(sub *feedSub) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs, sub)
}

// publish queues a batch for every watcher.
func (f *follower) publish(cs []*desk.Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for sub := range f.subs {
		sub.mu.Lock()
		sub.pending = append(sub.pending, cs...)
		sub.mu.Unlock()
		select {
		case sub.wake <- struct{}{}:
		default:
		}
	}
}

// close stops the follow and waits for it; watchers still waiting end,
// and later ones are refused.
func (f *follower) close() {
	f.mu.Lock()
	stop, done := f.stop, f.done
	f.running, f.closed = false, true
	f.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}
