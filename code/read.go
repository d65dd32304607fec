package code

import (
	"bytes"
	"context"
	"strings"

	"desk"
)

// Limits of the reads, as the reference sets them.
const (
	DefaultLogLimit = 50
	MaxLogLimit     = 500
	MaxLogIntents   = 50
	MaxPathLogRead  = 5000 // landings a path's log reads at most
	MaxBlameWalk    = 5000 // first parents a blame walks at most
	MaxBlameFile    = 4 << 20
	MaxSearchHits   = 200
	MaxSearchFiles  = 20000
	MaxSearchRead   = 64 << 20
	MaxSearchFile   = 1 << 20
)

// LogPage is a page of the log.
type LogPage struct {
	Entries []LogEntry `json:"entries"`
	// Next is the number to pass as before for the next page; 0 when
	// there is none.
	Next int64 `json:"next"`
	// Truncated says a path's log stopped at MaxPathLogRead landings.
	Truncated bool `json:"truncated"`
}

// Log returns landings, newest first: before (0 for the newest), 1 to 500
// entries (limit 0: 50), and with intents only those whose change names
// one of those issues (at most 50).
func (r *Repository) Log(ctx context.Context, before int64, limit int, intents []string) (*LogPage, error) {
	limit, err := logLimit(limit)
	if err != nil {
		return nil, err
	}
	if len(intents) > MaxLogIntents {
		return nil, desk.Errorf(desk.Invalid, "intent: at most %d issues", MaxLogIntents)
	}
	if intents, err = NormalizeIntents(intents); err != nil {
		return nil, err
	}
	if before < 0 {
		return nil, desk.Errorf(desk.Invalid, "before: %d is not a landing number", before)
	}
	es, err := r.s.Store.Log(ctx, r.ID, LogQuery{Before: before, Limit: limit + 1, Intents: intents})
	if err != nil {
		return nil, err
	}
	p := &LogPage{Entries: es}
	if len(es) > limit {
		p.Entries = es[:limit]
		p.Next = p.Entries[limit-1].Seq
	}
	return p, nil
}

func logLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLogLimit, nil
	case limit < 1 || limit > MaxLogLimit:
		return 0, desk.Errorf(desk.Invalid, "limit: %d is not between 1 and %d", limit, MaxLogLimit)
	}
	return limit, nil
}

// PathLog returns the landings that changed a file or folder, newest
// first, reading at most MaxPathLogRead landings; Next is where to go on.
func (r *Repository) PathLog(ctx context.Context, path string, before int64, limit int) (*LogPage, error) {
	limit, err := logLimit(limit)
	if err != nil {
		return nil, err
	}
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	p := &LogPage{Entries: []LogEntry{}}
	read := 0
	for read < MaxPathLogRead {
		es, err := r.s.Store.Log(ctx, r.ID, LogQuery{Before: before, Limit: min(MaxLogLimit, MaxPathLogRead-read)})
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			return p, nil
		}
		for _, e := range es {
			read++
			before = e.Seq
			changed, err := r.touches(ctx, &e.Row, path)
			if err != nil {
				return nil, err
			}
			if changed {
				p.Entries = append(p.Entries, e)
				if len(p.Entries) == limit {
					if e.Seq > 1 {
						p.Next = e.Seq
					}
					return p, nil
				}
			}
			if e.Seq == 1 {
				return p, nil
			}
		}
	}
	p.Next, p.Truncated = before, true
	return p, nil
}

// touches reports whether a change changed path against its first parent.
func (r *Repository) touches(ctx context.Context, row *ChangeRow, path string) (bool, error) {
	now, okNow, err := r.Lookup(ctx, row.Tree, path)
	if err != nil {
		return false, err
	}
	if len(row.Parents) == 0 {
		return okNow, nil
	}
	pr, err := r.Get(ctx, row.Parents[0])
	if err != nil {
		return false, err
	}
	was, okWas, err := r.Lookup(ctx, pr.Tree, path)
	if err != nil {
		return false, err
	}
	return okNow != okWas || now.ID != was.ID || now.Mode != was.Mode, nil
}

// BlameLine is one line of a file with the change that made it.
type BlameLine struct {
	Line   int    `json:"line"`
	Change ID     `json:"change"`
	Author string `json:"author"`
	Time   string `json:"time"`
	Text   string `json:"text"`
}

// Blame gives each line of a file at a change the change of its
// first-parent line that made it. It walks at most MaxBlameWalk first
// parents and reads files of at most MaxBlameFile; past either, the lines
// not placed yet go to the oldest change read and truncated is true. A
// file over MaxBlameFile, or that is not text, is refused.
func (r *Repository) Blame(ctx context.Context, path string, at *ChangeRow) ([]BlameLine, bool, error) {
	e, ok, err := r.Lookup(ctx, at.Tree, path)
	if err != nil {
		return nil, false, err
	}
	if !ok || e.Mode.IsDir() {
		return nil, false, desk.Errorf(desk.NotFound, "no file %s at %s", path, at.ID.Short())
	}
	data, err := r.Blob(ctx, e.ID)
	if err != nil {
		return nil, false, err
	}
	if len(data) > MaxBlameFile {
		return nil, false, desk.Errorf(desk.Invalid, "%s is over %d MiB: blame reads files up to that size", path, MaxBlameFile>>20)
	}
	if e.Mode == ModeLink || IsBinary(data) {
		return nil, false, desk.Errorf(desk.Invalid, "%s is not text: there are no lines to blame", path)
	}
	lines := Lines(data)
	owner := make([]*ChangeRow, len(lines))
	// pos maps each line of the file at cur, still to be placed, to its
	// line in the file as it was at the change first shown.
	type pending struct{ now, orig int }
	todo := make([]pending, len(lines))
	for i := range todo {
		todo[i] = pending{i, i}
	}
	cur, curData, curID := at, lines, e.ID
	truncated := false
	for walked := 0; len(todo) > 0; walked++ {
		if walked >= MaxBlameWalk || len(cur.Parents) == 0 {
			truncated = walked >= MaxBlameWalk && len(cur.Parents) > 0
			break
		}
		parent, err := r.Get(ctx, cur.Parents[0])
		if err != nil {
			return nil, false, err
		}
		pe, ok, err := r.Lookup(ctx, parent.Tree, path)
		if err != nil {
			return nil, false, err
		}
		if ok && !pe.Mode.IsDir() && pe.ID == curID {
			cur = parent
			continue
		}
		if !ok || pe.Mode.IsDir() {
			break // the file was made at cur
		}
		pdata, err := r.Blob(ctx, pe.ID)
		if err != nil {
			return nil, false, err
		}
		if len(pdata) > MaxBlameFile || IsBinary(pdata) {
			truncated = len(pdata) > MaxBlameFile
			break
		}
		plines := Lines(pdata)
		// Lines of cur that the parent had move to the parent's numbers;
		// the others were made at cur.
		toParent := make([]int, len(curData))
		for i := range toParent {
			toParent[i] = -1
		}
		pi, ci := 0, 0
		for _, h := range diffLines(plines, curData) {
			for ci < h.B0 {
				toParent[ci] = pi
				ci++
				pi++
			}
			ci, pi = h.B1, h.A1
		}
		for ci < len(curData) {
			toParent[ci] = pi
			ci++
			pi++
		}
		var next []pending
		for _, p := range todo {
			if q := toParent[p.now]; q >= 0 {
				next = append(next, pending{q, p.orig})
			} else {
				owner[p.orig] = cur
			}
		}
		todo, cur, curData, curID = next, parent, plines, pe.ID
	}
	for _, p := range todo {
		owner[p.orig] = cur
	}
	out := make([]BlameLine, len(lines))
	for i, l := range lines {
		o := owner[i]
		out[i] = BlameLine{Line: i + 1, Change: o.ID, Author: o.Author, Time: desk.FormatTime(o.Time), Text: strings.TrimSuffix(string(l), "\n")}
	}
	return out, truncated, nil
}

// ReadFile returns a file of a snapshot: its entry and bytes. NotFound for
// a path that is not there; a folder is for ListDir.
func (r *Repository) ReadFile(ctx context.Context, tree ID, path string) (Entry, []byte, error) {
	e, ok, err := r.Lookup(ctx, tree, path)
	if err != nil {
		return Entry{}, nil, err
	}
	if !ok {
		return Entry{}, nil, desk.Errorf(desk.NotFound, "no file or folder %s", path)
	}
	if e.Mode.IsDir() {
		return e, nil, nil
	}
	data, err := r.Blob(ctx, e.ID)
	return e, data, err
}

// ListDir returns the entries of a folder of a snapshot ("" for the root).
func (r *Repository) ListDir(ctx context.Context, tree ID, path string) ([]Entry, error) {
	e, ok, err := r.Lookup(ctx, tree, path)
	if err != nil {
		return nil, err
	}
	if !ok || !e.Mode.IsDir() {
		return nil, desk.Errorf(desk.NotFound, "no folder %s", path)
	}
	t, err := r.Tree(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	out := append([]Entry{}, t.Entries...)
	return out, nil
}

// SearchQuery is a plain-text search of a snapshot.
type SearchQuery struct {
	Text  string // the text to find, as written: never a pattern
	Under string // only files under this folder
	Case  bool   // match case; otherwise ASCII and Unicode case fold
	Max   int    // at most this many matches (0: MaxSearchHits)
}

// Match is a line that holds the text.
type Match struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Search returns the lines of the text files under a folder that hold a
// plain text. It stops at Max matches, MaxSearchFiles files or
// MaxSearchRead bytes read, and skips files over MaxSearchFile; then
// truncated is true. A pattern a user writes could run on the server for
// as long as the user wants, so the query is never one.
func (r *Repository) Search(ctx context.Context, tree ID, q SearchQuery) ([]Match, bool, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, false, desk.Errorf(desk.Invalid, "q: the text to search for is empty")
	}
	if len(q.Text) > 1000 {
		return nil, false, desk.Errorf(desk.Invalid, "q: at most 1000 bytes")
	}
	if q.Max == 0 {
		q.Max = MaxSearchHits
	}
	if q.Max < 1 || q.Max > MaxSearchHits {
		return nil, false, desk.Errorf(desk.Invalid, "max: %d is not between 1 and %d", q.Max, MaxSearchHits)
	}
	root := tree
	prefix := ""
	if q.Under != "" {
		under := strings.Trim(q.Under, "/")
		e, ok, err := r.Lookup(ctx, tree, under)
		if err != nil {
			return nil, false, err
		}
		if !ok || !e.Mode.IsDir() {
			return nil, false, desk.Errorf(desk.NotFound, "no folder %s", under)
		}
		root, prefix = e.ID, under
	}
	needle := []byte(q.Text)
	if !q.Case {
		needle = bytes.ToLower(needle)
	}
	files, err := r.Flatten(ctx, root)
	if err != nil {
		return nil, false, err
	}
	out := []Match{}
	read := 0
	truncated := false
	for n, f := range files {
		if n >= MaxSearchFiles || read >= MaxSearchRead {
			truncated = true
			break
		}
		if f.Mode == ModeLink {
			continue
		}
		data, err := r.Blob(ctx, f.ID)
		if err != nil {
			return nil, false, err
		}
		if len(data) > MaxSearchFile {
			truncated = true
			continue
		}
		read += len(data)
		if IsBinary(data) {
			continue
		}
		hay := data
		if !q.Case {
			hay = bytes.ToLower(data)
		}
		if !bytes.Contains(hay, needle) {
			continue
		}
		p := f.Path
		if prefix != "" {
			p = prefix + "/" + f.Path
		}
		lines, folded := Lines(data), Lines(hay)
		if len(lines) != len(folded) {
			folded = lines // a fold that changed the lines; match as written
		}
		for i, l := range folded {
			if bytes.Contains(l, needle) {
				out = append(out, Match{Path: p, Line: i + 1, Text: strings.TrimRight(string(lines[i]), "\r\n")})
				if len(out) == q.Max {
					return out, n+1 < len(files) || i+1 < len(lines), nil
				}
			}
		}
	}
	return out, truncated, nil
}
