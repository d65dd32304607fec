package code

import (
	"context"
	"errors"
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
func (r *Repository) Land(ctx context.Context, id ID, by string) (*LandResult, error) {
	mu := r.s.landLock(r.ID)
	mu.Lock()
	defer mu.Unlock()
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
	for try := 0; try < maxLandTries; try++ {
		if e, err := r.s.Store.Landed(ctx, r.ID, id); err != nil {
			return nil, err
		} else if e != nil {
			h, err := r.s.Store.Head(ctx, r.ID)
			if err != nil {
				return nil, err
			}
			c := e.Change
			return &LandResult{Result: ResultPresent, Submitted: id, Change: &c, Rebased: e.Rebased, Seq: e.Seq, Head: h.Change, Paths: []string{}, Conflicts: []Conflict{}}, nil
		}
		h, err := r.s.Store.Head(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		move, res, err := r.planLanding(ctx, row, h)
		if err != nil || move == nil {
			return res, err
		}
		move.By = by
		entries, err := r.s.Store.MoveMain(ctx, *move)
		if errors.Is(err, ErrMoved) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i := range move.NewChanges {
			nc := move.NewChanges[i]
			r.s.rows.put(repoID{r.ID, nc.ID}, &nc)
		}
		res.Seq = entries[len(entries)-1].Seq
		return res, nil
	}
	return nil, desk.Errorf(desk.Conflict, "main of %s moved %d times while this change landed", r.Slug(), maxLandTries).WithHint("land it again")
}

// planLanding works out the move that lands row on main at h, or the
// answer when nothing is to move (present, conflict).
func (r *Repository) planLanding(ctx context.Context, row *ChangeRow, h Head) (*Move, *LandResult, error) {
	id := row.ID
	res := &LandResult{Submitted: id, Paths: []string{}, Conflicts: []Conflict{}}
	if h.Change == nil {
		line, err := r.firstParentLine(ctx, id, nil)
		if err != nil {
			return nil, nil, err
		}
		res.Result, res.Change, res.Head = ResultLanded, &id, &id
		return &Move{Repo: r.ID, FromRev: h.Rev, To: id, Entries: line}, res, nil
	}
	head := *h.Change
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
		return &Move{Repo: r.ID, FromRev: h.Rev, To: id, Entries: line}, res, nil
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
	if _, err := r.objects.Put(ctx, append(m.Objects, obj)...); err != nil {
		return nil, nil, err
	}
	// The next landing merges over these folders: keep them decoded.
	for _, o := range m.Objects {
		if o.Type == Tree {
			if t, err := DecodeTree(o.Data); err == nil {
				r.s.trees.put(repoID{r.ID, o.ID}, t)
			}
		}
	}
	nr := ChangeRow{ID: obj.ID, Tree: c.Tree, Parents: c.Parents, Author: c.Author, Time: c.Time.UTC().Truncate(time.Millisecond), Message: c.Message, Intents: row.Intents, Generation: hr.Generation + 1}
	res.Result, res.Change, res.Head, res.Rebased = ResultLanded, &nr.ID, &nr.ID, true
	return &Move{Repo: r.ID, FromRev: h.Rev, To: nr.ID, NewChanges: []ChangeRow{nr},
		Entries: []LogEntry{{Change: nr.ID, Submitted: id, Rebased: true}}}, res, nil
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
