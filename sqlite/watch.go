package sqlite

import (
	"context"
	"os"
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
	hdr := openLogHeader(db.path)
	defer hdr.close()
	timer := time.NewTimer(w.poll)
	timer.Stop()
	// A commit becomes visible a moment after its last write to the log
	// file: the file system reports the write, but the wal-index that
	// makes it visible is shared memory, whose writes it does not report.
	// So after a report, and after a read that found something (a commit
	// whose report was taken with an earlier one's may not have been
	// visible yet), the feed is looked at again a few times, at 1, 2, 4, 8
	// and 16 ms. A report's look and these read the feed only when the
	// log's header moved (logHeader), which it does once a commit is
	// visible. Reading the feed at every report and every step instead
	// was a third of a busy server's CPU.
	settle := settleSteps
	why := wokeFirst
	for {
		committed := db.Committed()
		found := false
		moved := hdr.moved() // read each time: it is the mark the next look compares with
		if why == wokePoll {
			hdr.reopen() // a file replaced since would never move again
		}
		for !why.trustsLog() || moved {
			changes, err := db.Changes(ctx, desk.ChangeFilter{After: after, Limit: 1000})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				hdr.forget() // a transient read error: try again on the next wake
				break
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
		if found || why == wokeReport {
			settle = 0
		}
		next, settling := w.poll, settle < settleSteps
		if settling {
			next = time.Millisecond << settle
			settle++
		}
		var err error
		if why, err = w.wait(ctx, committed, timer, next, settling); err != nil {
			return err
		}
	}
}

// settleSteps is how many times the feed is looked at again after a report
// or a find, each wait twice the last from 1 ms: 31 ms in all.
const settleSteps = 5

// A wake's reason decides whether the feed is read: a report of a write
// and a look while writes settle read it only when the log moved; the
// first look, this process's commits and the poll always read it.
type wakeReason int

const (
	wokeFirst  wakeReason = iota
	wokeCommit            // this process committed
	wokeReport            // a write to the database's files was reported
	wokeSettle            // a look while writes settle
	wokePoll              // the poll interval passed
)

// trustsLog reports whether a wake for why reads the feed only when the
// log's header moved.
func (why wakeReason) trustsLog() bool { return why == wokeReport || why == wokeSettle }

// feedWaker waits for a reason to read the feed again.
type feedWaker struct {
	events    <-chan fsnotify.Event
	poll      time.Duration
	wal, main string // the database's file names
}

// wait returns why it returned: this process committed, the database's
// files were written, or the timer, set to fire after next, fired
// (settling says it is a look while writes settle). A commit writes the
// log file in several pieces, each reported on its own: the reports
// already queued are taken together.
func (w *feedWaker) wait(ctx context.Context, committed <-chan struct{}, timer *time.Timer, next time.Duration, settling bool) (wakeReason, error) {
	timer.Reset(next)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return wokePoll, ctx.Err()
		case <-committed:
			return wokeCommit, nil
		case <-timer.C:
			if settling {
				return wokeSettle, nil
			}
			return wokePoll, nil
		case ev, ok := <-w.events:
			if !ok {
				w.events, w.poll = nil, 10*time.Millisecond
				return wokePoll, nil
			}
			if !w.ours(ev) {
				continue
			}
			for {
				select {
				case _, ok := <-w.events:
					if ok {
						continue
					}
					w.events, w.poll = nil, 10*time.Millisecond
				default:
				}
				return wokeReport, nil
			}
		}
	}
}

func (w *feedWaker) ours(ev fsnotify.Event) bool {
	name := filepath.Base(ev.Name)
	return name == w.wal || name == w.main
}

// logHeader tells whether anything was committed since it last looked, from
// the header of the write-ahead log's index at the start of the database's
// -shm file: every commit changes it (its layout is part of SQLite's file
// format, documented in walformat.html). Reading it is one small read of a
// file. Asking SQLite instead (PRAGMA data_version) starts a read
// transaction, which took its locks with system calls and cost about as
// much as reading the feed, which after any commit anyone makes reads a
// dozen pages again. This process's commits and the poll always read the
// feed, so a header that cannot be read costs reads and loses nothing, and
// a file replaced since (the poll opens it again) delays a change by one
// poll at most.
type logHeader struct {
	path  string
	f     *os.File
	last  [logHeaderSize]byte
	known bool
}

// logHeaderSize is the size of the first copy of the wal-index header.
const logHeaderSize = 48

func openLogHeader(dbPath string) *logHeader {
	h := &logHeader{path: dbPath + "-shm"}
	h.f, _ = os.Open(h.path)
	return h
}

// reopen opens the file again when the one open is no longer the one at
// its path (or none is open).
func (h *logHeader) reopen() {
	now, err := os.Stat(h.path)
	if err != nil {
		return
	}
	if h.f != nil {
		if open, err := h.f.Stat(); err == nil && os.SameFile(open, now) {
			return
		}
		h.f.Close()
	}
	h.f, _ = os.Open(h.path)
	h.known = false
}

// moved reports whether the header changed since the last look: true on
// the first look and whenever it cannot be read.
func (h *logHeader) moved() bool {
	if h.f == nil {
		return true
	}
	var b [logHeaderSize]byte
	if n, _ := h.f.ReadAt(b[:], 0); n < len(b) {
		h.known = false
		return true
	}
	moved := !h.known || b != h.last
	h.last, h.known = b, true
	return moved
}

// forget makes the next look report a move.
func (h *logHeader) forget() { h.known = false }

func (h *logHeader) close() {
	if h.f != nil {
		h.f.Close()
	}
}
