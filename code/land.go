package code

import (
	"context"
	"errors"
	"sync"
	"time"

	"desk"
)

// Results of a landing.
const (
	ResultLanded   = "landed"   // main moved to the change, or to a new change made of it on a moved main
	ResultPresent  = "present"  // the change landed before, or main holds it already
	ResultConflict = "conflict" // main moved and the change does not merge with it: nothing moved
)

// maxLandTries bounds how often a landing reads main again after another
// writer moved it first.
const maxLandTries = 100

// LandResult is the answer of a landing.
type LandResult struct {
	Result    string     `json:"result"`
	Submitted ID         `json:"submitted"`
	Change    *ID        `json:"change"` // the change that holds the submitted one on main; nil for a conflict
	Rebased   bool       `json:"rebased"`
	Seq       int64      `json:"seq"`  // its landing's number; 0 when main held it through another landing
	Head      *ID        `json:"head"` // main after the landing
	Paths     []string   `json:"paths"`
	Conflicts []Conflict `json:"conflicts"`
}

// Land puts a change on main. When main is an ancestor of the change, main
// moves to it (with a log entry for each change of its first-parent line
// main did not have). When main moved since the change was made, the
// change merges with main over the newest change of its first-parent line
// that main holds: a clean merge makes a new change on main with the
// change's author, message, time and intents (rebased), a conflict moves
// nothing and answers the paths. main moves by compare-and-swap, with the
// log entries in the same transaction; a landing that loses the swap reads
// main again, at most maxLandTries times. by is who lands.
//
// The landings that arrive while one is under way land together, as group
// commits do: each is worked out on the main the ones before it made, in
// memory, then their objects are written in one durable batch and main
// moves once, with every entry in order. Twenty landers then pay for a
// few syncs and transactions instead of twenty.
func (r *Repository) Land(ctx context.Context, id ID, by string) (*LandResult, error) {
	row, err := r.Get(ctx, id)
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.NotFound, "no change %s in %s", id, r.Slug()).WithHint("send it and index it first (POST changes)")
	}
	if err != nil {
		return nil, err
	}
	for _, check := range r.s.LandChecks {
		if err := check(ctx, r, row, by); err != nil {
			return nil, err
		}
	}
	req := &landReq{row: row, by: by, done: make(chan landDone, 1)}
	q := r.s.landQueue(r.ID)
	q.mu.Lock()
	q.pending = append(q.pending, req)
	lead := !q.running
	q.running = true
	q.mu.Unlock()
	if lead {
		// The leader lands for everyone queued, so it must not stop when
		// its own caller goes away.
		lctx := context.WithoutCancel(ctx)
		for {
			q.mu.Lock()
			batch := q.pending
			q.pending = nil
			if len(batch) == 0 {
				q.running = false
				q.mu.Unlock()
				break
			}
			q.mu.Unlock()
			r.landBatch(lctx, batch)
		}
	}
	select {
	case d := <-req.done:
		return d.res, d.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// landReq is one landing waiting in a repository's queue.
type landReq struct {
	row  *ChangeRow
	by   string
	done chan landDone
}

type landDone struct {
	res *LandResult
	err error
}

// landQueue holds the landings of one repository that wait for the one
// under way.
type landQueue struct {
	mu      sync.Mutex
	pending []*landReq
	running bool
}

// landBatch lands a batch of requests and answers each.
func (r *Repository) landBatch(ctx context.Context, batch []*landReq) {
	answer := func(i int, res *LandResult, err error) { batch[i].done <- landDone{res, err} }
	for try := 0; try < maxLandTries; try++ {
		h, err := r.s.Store.Head(ctx, r.ID)
		if err != nil {
			for i := range batch {
				answer(i, nil, err)
			}
			return
		}
		view := r.withOverlay()
		head := h.Change
		var (
			objs    []Object
			rows    []ChangeRow
			entries []LogEntry
			results = make([]*LandResult, len(batch))
			errs    = make([]error, len(batch))
			last    = make([]int, len(batch)) // each request's last entry, -1 for none
		)
		for i, req := range batch {
			last[i] = -1
			id := req.row.ID
			if e, err := r.s.Store.Landed(ctx, r.ID, id); err != nil || e != nil {
				if e != nil {
					c := e.Change
					results[i] = &LandResult{Result: ResultPresent, Submitted: id, Change: &c, Rebased: e.Rebased, Seq: e.Seq, Head: head, Paths: []string{}, Conflicts: []Conflict{}}
				}
				errs[i] = err
				continue
			}
			p, res, err := view.planLanding(ctx, req.row, head)
			if err != nil || p == nil {
				results[i], errs[i] = res, err
				continue
			}
			objs = append(objs, p.objects...)
			for k := range p.rows {
				view.pending.rows[p.rows[k].ID] = &p.rows[k]
			}
			for _, o := range p.objects {
				view.pending.add(o)
			}
			rows = append(rows, p.rows...)
			for _, e := range p.entries {
				e.LandedBy = req.by
				entries = append(entries, e)
			}
			last[i] = len(entries) - 1
			to := p.to
			head = &to
			results[i] = res
		}
		if len(entries) == 0 {
			for i := range batch {
				answer(i, results[i], errs[i])
			}
			return
		}
		// The objects first, durable, then main with every entry.
		if _, err := r.objects.Put(ctx, objs...); err != nil {
			for i := range batch {
				answer(i, nil, err)
			}
			return
		}
		written, err := r.s.Store.MoveMain(ctx, Move{Repo: r.ID, FromRev: h.Rev, To: *head, NewChanges: rows, Entries: entries, By: batch[0].by})
		if errors.Is(err, ErrMoved) {
			continue // another process moved main: work the batch out again
		}
		if err != nil {
			for i := range batch {
				answer(i, nil, err)
			}
			return
		}
		view.publish()
		for i := range batch {
			if last[i] >= 0 {
				results[i].Seq = written[last[i]].Seq
				results[i].Head = head
			}
			answer(i, results[i], errs[i])
		}
		return
	}
	for i := range batch {
		answer(i, nil, desk.Errorf(desk.Conflict, "main of %s moved %d times while this change landed", r.Slug(), maxLandTries).WithHint("land it again"))
	}
}

// landPlan is what landing one change adds to a move: the change main
// moves to, the new changes' rows and objects (not stored yet), and the
// log entries, oldest first.
type landPlan struct {
	to      ID
	rows    []ChangeRow
	objects []Object
	entries []LogEntry
}

// planLanding works out how row lands on main at head (nil: main does not
// exist), or the answer when nothing is to move (present, conflict).
func (r *Repository) planLanding(ctx context.Context, row *ChangeRow, headID *ID) (*landPlan, *LandResult, error) {
	id := row.ID
	res := &LandResult{Submitted: id, Paths: []string{}, Conflicts: []Conflict{}}
	if headID == nil {
		line, err := r.firstParentLine(ctx, id, nil)
		if err != nil {
			return nil, nil, err
		}
		res.Result, res.Change, res.Head = ResultLanded, &id, &id
		return &landPlan{to: id, entries: line}, res, nil
	}
	head := *headID
	if ok, err := r.IsAncestor(ctx, id, head); err != nil {
		return nil, nil, err
	} else if ok {
		res.Result, res.Change, res.Head = ResultPresent, &id, &head
		return nil, res, nil
	}
	if ok, err := r.IsAncestor(ctx, head, id); err != nil {
		return nil, nil, err
	} else if ok {
		line, err := r.firstParentLine(ctx, id, &head)
		if err != nil {
			return nil, nil, err
		}
		res.Result, res.Change, res.Head = ResultLanded, &id, &id
		return &landPlan{to: id, entries: line}, res, nil
	}
	// main moved: merge over the newest change of the line that main has.
	base := EmptyTree
	baseChange, err := r.MergeBase(ctx, head, id)
	if err != nil {
		return nil, nil, err
	}
	if baseChange != nil {
		br, err := r.Get(ctx, *baseChange)
		if err != nil {
			return nil, nil, err
		}
		base = br.Tree
	}
	hr, err := r.Get(ctx, head)
	if err != nil {
		return nil, nil, err
	}
	m, err := r.MergeTrees(ctx, base, hr.Tree, row.Tree)
	if err != nil {
		return nil, nil, err
	}
	if len(m.Conflicts) > 0 {
		res.Result, res.Head, res.Conflicts = ResultConflict, &head, m.Conflicts
		for _, c := range m.Conflicts {
			res.Paths = append(res.Paths, c.Path)
		}
		return nil, res, nil
	}
	c := ChangeObject{Tree: m.Tree, Parents: []ID{head}, Author: row.Author, Time: row.Time, Message: row.Message, Intents: row.Intents}
	b, err := EncodeChange(c)
	if err != nil {
		return nil, nil, err
	}
	obj := NewObject(Change, b)
	nr := ChangeRow{ID: obj.ID, Tree: c.Tree, Parents: c.Parents, Author: c.Author, Time: c.Time.UTC().Truncate(time.Millisecond), Message: c.Message, Intents: row.Intents, Generation: hr.Generation + 1}
	res.Result, res.Change, res.Head, res.Rebased = ResultLanded, &nr.ID, &nr.ID, true
	return &landPlan{to: nr.ID, rows: []ChangeRow{nr}, objects: append(m.Objects, obj),
		entries: []LogEntry{{Change: nr.ID, Submitted: id, Rebased: true}}}, res, nil
}

// firstParentLine returns the log entries of the first-parent line of id
// back to (and without) a change that stop is or that main holds, oldest
// first. With stop nil the whole line lands (main does not exist yet).
func (r *Repository) firstParentLine(ctx context.Context, id ID, stop *ID) ([]LogEntry, error) {
	var line []LogEntry
	cur := id
	for {
		if stop != nil {
			if ok, err := r.IsAncestor(ctx, cur, *stop); err != nil {
				return nil, err
			} else if ok {
				break
			}
		}
		line = append(line, LogEntry{Change: cur, Submitted: cur})
		row, err := r.Get(ctx, cur)
		if err != nil {
			return nil, err
		}
		if len(row.Parents) == 0 {
			break
		}
		cur = row.Parents[0]
	}
	for i, j := 0, len(line)-1; i < j; i, j = i+1, j-1 {
		line[i], line[j] = line[j], line[i]
	}
	return line, nil
}

// MergeBase returns the newest change of the first-parent line of id that
// main (at head) holds, or nil when they share no change.
func (r *Repository) MergeBase(ctx context.Context, head, id ID) (*ID, error) {
	cur := id
	for {
		ok, err := r.IsAncestor(ctx, cur, head)
		if err != nil {
			return nil, err
		}
		if ok {
			return &cur, nil
		}
		row, err := r.Get(ctx, cur)
		if err != nil {
			return nil, err
		}
		if len(row.Parents) == 0 {
			return nil, nil
		}
		cur = row.Parents[0]
	}
}

// Head returns where main stands.
func (r *Repository) Head(ctx context.Context) (Head, error) {
	return r.s.Store.Head(ctx, r.ID)
}
