package sqlite

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"desk"
)

// searchCache keeps a long-lived process's recent ranked searches. The
// owner's page runs the same search again on every change it hears of, and
// on a desk of a million comments a search reads tens of thousands of
// matches. An issue's score depends on nothing but its own text, so a kept
// result stays right for every issue the feed has not named since it was
// read; the issues it has named can be searched again alone, and the
// result patched with theirs. A search of some issues alone looks each of
// them up in every segment of the full-text index, where a whole search
// reads each segment once: while agents write, the index has many small
// segments, and a patch for forty issues can cost more than searching
// everything again. So each kept search times both, and patches only when
// that has been the cheaper.
type searchCache struct {
	mu    sync.Mutex
	kept  map[string]*keptSearch
	clock uint64 // counts uses, for dropping the least recently used

	patches atomic.Int64 // results patched so far, for tests
}

type keptSearch struct {
	seq  int64         // the feed position the result was read at
	sr   *searchResult // never changed once kept
	used uint64

	whole     time.Duration // what the last whole search took
	perChange time.Duration // what the last patch took per changed issue
}

const (
	// maxKeptSearches bounds the results kept; each holds a few maps
	// over the issues it matched.
	maxKeptSearches = 8
	// maxSearchPatch is how many changed issues a kept result is patched
	// for at most.
	maxSearchPatch = 64
)

// minPatchedMatches is how many issues a kept result must score for a
// patch to be tried: on a smaller desk (2,000 issues, a thousand matches)
// a whole search takes a millisecond or two. Tests lower it.
var minPatchedMatches = 5000

// ranked is rankedSearch for a project's rows (heads), kept between calls
// by a long-lived process.
func (db *DB) ranked(ctx context.Context, tx queryer, heads []*head, terms []desk.SearchTerm, prefix bool, inProject rowsByID) (*searchResult, error) {
	if db.oneShot || len(heads) == 0 {
		return rankedSearch(ctx, tx, terms, prefix, inProject, ftsScope{})
	}
	seq, err := feedSeq(ctx, tx)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%d|%t|%#v", heads[0].projectID, prefix, terms)
	c := &db.searches
	c.mu.Lock()
	var k keptSearch
	if kept := c.kept[key]; kept != nil {
		k = *kept
	}
	c.mu.Unlock()
	if k.sr != nil && k.seq == seq {
		c.keep(key, k)
		return k.sr, nil
	}
	if k.sr != nil && k.seq < seq && len(k.sr.score) >= minPatchedMatches {
		changed, err := changedIssues(ctx, tx, k.seq, seq, maxSearchPatch)
		if err != nil {
			return nil, err
		}
		// A patch is tried first, and then whenever the last one, for this
		// many changes, would have cost less than a whole search (always,
		// for the tests that set minPatchedMatches to 0).
		if changed != nil && (minPatchedMatches == 0 || time.Duration(len(changed))*k.perChange < k.whole) {
			start := time.Now()
			part, err := rankedSearch(ctx, tx, terms, prefix, inProject, ftsScope{only: changed})
			if err != nil {
				return nil, err
			}
			k.sr, k.seq = k.sr.patched(changed, part), seq
			k.perChange = time.Since(start) / time.Duration(max(len(changed), 1))
			c.patches.Add(1)
			c.keep(key, k)
			return k.sr, nil
		}
	}
	start := time.Now()
	kept, err := db.textMatches.at(ctx, tx)
	if err != nil {
		return nil, err
	}
	sr, err := rankedSearch(ctx, tx, terms, prefix, inProject, ftsScope{kept: kept})
	if err != nil {
		return nil, err
	}
	k.sr, k.seq, k.whole = sr, seq, time.Since(start)
	c.keep(key, k)
	return sr, nil
}

// keep keeps k as the result of key, unless a result read at a later
// feed position is kept already.
func (c *searchCache) keep(key string, k keptSearch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	k.used = c.clock
	if kept := c.kept[key]; kept != nil {
		if kept.seq <= k.seq {
			*kept = k
		}
		kept.used = c.clock
		return
	}
	if c.kept == nil {
		c.kept = map[string]*keptSearch{}
	}
	c.kept[key] = &k
	if len(c.kept) > maxKeptSearches {
		delete(c.kept, leastRecent(c.kept, func(k *keptSearch) uint64 { return k.used }, key))
	}
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

// textMatches keeps which issues each full-text query of the issues' own
// text (title, details, body) matched. Agents mostly comment, and a
// comment leaves that text as it was: a search after a comment asks the
// comments' index again (a few milliseconds on a million comments) and
// takes the rest from here, where the three per-column queries of the
// issues' index took about thirty. What was kept holds while the index is
// the same: its structure record, which lists its segments and which every
// write to the index replaces, and its averages record, which counts its
// rows and tokens, are read once per search and compared.
type textMatches struct {
	mu    sync.Mutex
	state string             // the two records the kept matches were read with
	ids   map[string][]int64 // by MATCH expression

	reused atomic.Int64 // queries answered from here, for tests
}

// maxTextMatches bounds the queries kept.
const maxTextMatches = 48

// textMatchesAt is textMatches as one search's snapshot sees the index.
type textMatchesAt struct {
	m     *textMatches
	state string
}

// at reads the index's state as tx sees it, dropping what was kept for
// another state.
func (m *textMatches) at(ctx context.Context, tx queryer) (*textMatchesAt, error) {
	var state []byte
	err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT block FROM issue_fts_data WHERE id = 1), x'') ||
		coalesce((SELECT block FROM issue_fts_data WHERE id = 10), x'')`).Scan(&state)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != string(state) {
		m.state, m.ids = string(state), map[string][]int64{}
	}
	return &textMatchesAt{m: m, state: m.state}, nil
}

// each calls fn with each issue whose own text matches, as the query of
// the issues' full-text index would.
func (a *textMatchesAt) each(ctx context.Context, tx queryer, match string, fn func(int64)) error {
	m := a.m
	m.mu.Lock()
	ids, ok := m.ids[match]
	ok = ok && m.state == a.state
	m.mu.Unlock()
	if ok {
		m.reused.Add(1)
	} else {
		ids = []int64{}
		err := eachRowID(ctx, tx, issueMatches, []any{match}, func(id int64) { ids = append(ids, id) })
		if err != nil {
			return err
		}
		m.mu.Lock()
		if m.state == a.state && len(m.ids) < maxTextMatches {
			m.ids[match] = ids
		}
		m.mu.Unlock()
	}
	for _, id := range ids {
		fn(id)
	}
	return nil
}
