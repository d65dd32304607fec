package sqlite

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"desk"
)

// searchCache keeps a long-lived process's recent ranked searches. The
// owner's page runs the same search again on every change it hears of, and
// on a desk of a million comments a search reads tens of thousands of
// matches. An issue's score depends on nothing but its own text, so a kept
// result stays right for every issue the feed has not named since it was
// read; the issues it has named are searched again alone, and the result
// is patched with theirs.
type searchCache struct {
	mu    sync.Mutex
	kept  map[string]*keptSearch
	clock int64 // counts uses, for dropping the least recently used

	patches atomic.Int64 // results patched so far, for tests
}

type keptSearch struct {
	seq  int64         // the feed position the result was read at
	sr   *searchResult // never changed once kept
	used int64
}

const (
	// maxKeptSearches bounds the results kept; each holds a few maps
	// over the issues it matched.
	maxKeptSearches = 8
	// maxSearchPatch is how many changed issues a kept result is patched
	// for; past it, searching the whole desk again costs about the same.
	maxSearchPatch = 64
)

// minPatchedMatches is how many issues a kept result must score for a
// patch to pay: searching the changed issues alone costs a few queries and
// a copy of the result, which on a smaller desk (2,000 issues, a thousand
// matches) took longer than searching it all again. Tests lower it.
var minPatchedMatches = 5000

// ranked is rankedSearch for a project's rows (heads), kept between calls
// by a long-lived process.
func (db *DB) ranked(ctx context.Context, tx queryer, heads []*head, terms []desk.SearchTerm, prefix bool, inProject rowsByID) (*searchResult, error) {
	if db.oneShot || len(heads) == 0 {
		return rankedSearch(ctx, tx, terms, prefix, inProject, ftsScope{})
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq); err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%d|%t|%#v", heads[0].projectID, prefix, terms)
	c := &db.searches
	c.mu.Lock()
	k := c.kept[key]
	c.mu.Unlock()
	var sr *searchResult
	switch {
	case k != nil && k.seq == seq:
		sr = k.sr
	case k != nil && k.seq < seq && len(k.sr.score) >= minPatchedMatches:
		changed, err := changedIssues(ctx, tx, k.seq, seq, maxSearchPatch)
		if err != nil {
			return nil, err
		}
		if changed != nil {
			part, err := rankedSearch(ctx, tx, terms, prefix, inProject, ftsScope{only: changed})
			if err != nil {
				return nil, err
			}
			sr = k.sr.patched(changed, part)
			c.patches.Add(1)
		}
	}
	if sr == nil {
		var err error
		if sr, err = rankedSearch(ctx, tx, terms, prefix, inProject, ftsScope{}); err != nil {
			return nil, err
		}
	}
	c.keep(key, seq, sr)
	return sr, nil
}

// keep keeps sr as the result of key at feed position seq, unless a result
// read at a later position is kept already.
func (c *searchCache) keep(key string, seq int64, sr *searchResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if k := c.kept[key]; k != nil {
		if k.seq <= seq {
			k.seq, k.sr = seq, sr
		}
		k.used = c.clock
		return
	}
	if c.kept == nil {
		c.kept = map[string]*keptSearch{}
	}
	if len(c.kept) >= maxKeptSearches {
		oldest := ""
		for key, k := range c.kept {
			if oldest == "" || k.used < c.kept[oldest].used {
				oldest = key
			}
		}
		delete(c.kept, oldest)
	}
	c.kept[key] = &keptSearch{seq: seq, sr: sr, used: c.clock}
}

// changedIssues returns the issues the feed names after position from up
// to position to, or nil when there are more than limit.
func changedIssues(ctx context.Context, tx queryer, from, to int64, limit int) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT issue_id FROM changes WHERE seq > ? AND seq <= ? AND issue_id IS NOT NULL LIMIT ?`,
		from, to, limit+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if len(ids) > limit {
		return nil, rows.Err()
	}
	return ids, rows.Err()
}

// patched returns sr with the issues changed searched again: their
// entries are those of part, a search of those issues alone. sr itself is
// left as it was: other lists may be reading it.
func (sr *searchResult) patched(changed []int64, part *searchResult) *searchResult {
	out := *sr
	out.ids, out.score = maps.Clone(sr.ids), maps.Clone(sr.score)
	out.fields, out.comment = maps.Clone(sr.fields), maps.Clone(sr.comment)
	out.inTitle, out.adjacent = maps.Clone(sr.inTitle), maps.Clone(sr.adjacent)
	for _, id := range changed {
		delete(out.ids, id)
		delete(out.score, id)
		delete(out.fields, id)
		delete(out.comment, id)
		delete(out.inTitle, id)
		delete(out.adjacent, id)
		if !part.ids[id] {
			continue
		}
		if out.ids == nil {
			out.ids = map[int64]bool{}
		}
		out.ids[id] = true
		out.score[id] = part.score[id]
		if f, ok := part.fields[id]; ok {
			out.fields[id] = f
		}
		if n, ok := part.comment[id]; ok {
			out.comment[id] = n
		}
		if n, ok := part.inTitle[id]; ok {
			if out.inTitle == nil {
				out.inTitle = map[int64]int{}
			}
			out.inTitle[id] = n
		}
		if part.adjacent[id] {
			if out.adjacent == nil {
				out.adjacent = map[int64]bool{}
			}
			out.adjacent[id] = true
		}
	}
	return &out
}
