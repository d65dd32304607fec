package sqlite

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"strings"
	"sync"

	"desk"
)

// Issues lists a project's issues: filtered, sorted and paged in memory from
// the issue index, with facet counts where each facet ignores its own filter.
func (db *DB) Issues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *desk.IssueList
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectKey(ctx, tx, slug) // list reads its id and slug only
		if err != nil {
			return err
		}
		heads, err := db.index.snapshot(ctx, tx, p.id)
		if err != nil {
			return err
		}
		claims, err := projectClaims(ctx, tx, p.id, db.Now())
		if err != nil {
			return err
		}
		if f.Unclaimed {
			heads = claimedHeads(heads, claims)
		}
		if out, err = db.list(ctx, tx, p, heads, &f); err != nil {
			return err
		}
		withClaims(out, claims)
		return nil
	})
	return out, err
}

// facet indexes of the counts.
const (
	fStatus = iota
	fKind
	fPriority
	fArea
	fSeed
	fSize
	fMilestone
	fMerged
	nFacets
)

func (db *DB) list(ctx context.Context, tx queryer, p *projectRow, heads []*head, f *desk.IssueFilter) (*desk.IssueList, error) {
	l := &desk.IssueList{Project: p.Slug, Limit: f.Limit, Offset: f.Offset, Summary: f.Summary, Issues: []*desk.Issue{}}
	terms := desk.ParseSearch(f.Q)
	m := newFacetFilter(f)
	var sr *searchResult
	if len(terms) > 0 {
		var err error
		if sr, err = db.search(ctx, tx, heads, terms, func(r *head) bool { return passesPlain(r, f) && m.passes(r) == allFacets }); err != nil {
			return nil, err
		}
		l.Search = &desk.SearchInfo{Mode: sr.mode}
	}

	var counts desk.Counts
	var hits []*head
	if (sr == nil || sr.mode == searchRanked) && !db.oneShot && keepable(f) {
		kept := db.lists.list(p.id, heads, sr, f, m)
		counts, l.EncodedCounts = kept.countsOf() // shared: read only
		hits = kept.hits                          // shared: read only
	} else {
		hitBuf := rowBuffers.Get().(*[]*head)
		defer putRows(hitBuf)
		tally := newFacetTally()
		counts = newCounts()
		hits = tally.tallyRows(sr.candidates(heads), f, m, *hitBuf) // sorted below
		*hitBuf = hits                                              // grown, for the next list
		tally.into(&counts)
		sortRows(hits, f, sr, f.Offset+f.Limit)
	}
	l.Counts = counts
	l.Total = len(hits)
	end := min(f.Offset+f.Limit, len(hits))
	if f.Offset < len(hits) {
		hits = hits[f.Offset:end]
	} else {
		hits = nil
	}
	// The page's issues are copies (the index's rows are shared), made in
	// one allocation: a backlog page is thousands of them.
	issues := make([]desk.Issue, len(hits))
	page := make([]*desk.Issue, len(hits))
	for i, r := range hits {
		issues[i] = r.issue()
		page[i] = &issues[i]
	}
	if !f.Summary && len(hits) > 0 {
		if err := fillText(ctx, tx, hits, page); err != nil {
			return nil, err
		}
	}
	if sr != nil && sr.mode == searchRanked && len(hits) > 0 {
		rowsByID := make(map[int64]*head, len(hits))
		byID := make(map[int64]*desk.Issue, len(hits))
		for i, r := range hits {
			rowsByID[r.rowid], byID[r.rowid] = r, page[i]
		}
		if err := db.excerpts(ctx, tx, sr, byID, rowsByID); err != nil {
			return nil, err
		}
	}
	l.Issues = page
	if db.oneShot {
		// Nothing reads these rows again: each is written once, straight
		// into the answer (IssueList.MarshalJSON), not kept on its row.
		return l, nil
	}
	// Rows read again while nothing touched them are written as before:
	// their JSON is kept on them (without a search's excerpt, which
	// IssueList.MarshalJSON adds as it writes the list).
	l.Encoded = make([][]byte, len(page))
	for i, r := range hits {
		is := *page[i]
		is.Match = nil
		l.Encoded[i] = r.encoded(&is, f.Summary)
	}
	return l, nil
}

func newCounts() desk.Counts {
	return desk.Counts{
		Status: emptyCounts(desk.Statuses), Kind: emptyCounts(desk.Kinds), Priority: emptyCounts(desk.Priorities),
		Area: map[string]int{}, Seed: map[string]int{}, Size: map[string]int{}, Milestone: map[string]int{},
	}
}

func sizeKey(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// passesPlain applies the filters that have no facet.
func passesPlain(r *head, f *desk.IssueFilter) bool {
	if len(f.Source) > 0 && !desk.OneOf(r.source(), f.Source) {
		return false
	}
	if f.Since != "" && r.updatedAt() < f.Since {
		return false
	}
	if f.ExternalRef != nil && r.externalRef() != *f.ExternalRef {
		return false
	}
	if f.Tag != "" && !r.hasTag(f.Tag) {
		return false
	}
	if len(f.IDs) > 0 && !desk.OneOf(r.key(), f.IDs) {
		return false
	}
	return true
}

const allFacets = 1<<nFacets - 1

// facetFilter is a list's facet filters, made once per list: the enum
// filters as bit sets of the rows' codes.
type facetFilter struct {
	f                      *desk.IssueFilter
	status, kind, priority uint16
	size                   uint16
}

func newFacetFilter(f *desk.IssueFilter) *facetFilter {
	mask := func(set, vals []string) uint16 {
		if len(vals) == 0 {
			return 0xffff
		}
		var m uint16
		for i, s := range set {
			if desk.OneOf(s, vals) {
				m |= 1 << i
			}
		}
		return m
	}
	return &facetFilter{f: f, status: mask(desk.Statuses, f.Status), kind: mask(desk.Kinds, f.Kind),
		priority: mask(desk.Priorities, f.Priority), size: mask(sizeOrder, f.Size)}
}

// passes returns a bit per facet filter the row passes.
func (m *facetFilter) passes(r *head) int {
	f := m.f
	ok := bit(fStatus, inMask(m.status, r.st)) | bit(fKind, inMask(m.kind, r.kd)) |
		bit(fPriority, inMask(m.priority, r.pr)) | bit(fSize, inMask(m.size, r.sz)) |
		bit(fMerged, (r.mergedID != 0) == f.Merged)
	if len(f.Area) == 0 || oneOfFold(r.area(), f.Area) {
		ok |= 1 << fArea
	}
	if f.Seed == nil || r.hasSeed(*f.Seed) {
		ok |= 1 << fSeed
	}
	if len(f.Milestone) == 0 || oneOfFold(r.milestone(), f.Milestone) {
		ok |= 1 << fMilestone
	}
	return ok
}

// bit is 1<<i when pass holds, else 0.
func bit(i int, pass bool) int {
	if pass {
		return 1 << i
	}
	return 0
}

// inMask reports whether an enum code is in a filter's set of codes
// (0xffff: no filter).
func inMask(mask uint16, code int8) bool {
	return mask == 0xffff || code >= 0 && mask&(1<<code) != 0
}

func oneOfFold(v string, set []string) bool {
	for _, s := range set {
		if strings.EqualFold(strings.TrimSpace(s), v) {
			return true
		}
	}
	return false
}

// sortRows orders rows by the filter's sort; every order ends on the
// number so that pages never overlap. Each row's key is computed once, and
// the comparison touches only integers and one string. Only the first need
// rows (a page and what comes before it) must be in order: when they are a
// small part of the rows, they are selected instead of sorting them all,
// and the rest are left in no particular order.
func sortRows(rows []*head, f *desk.IssueFilter, sr *searchResult, need int) {
	var areaRank func(*head) int
	if f.Sort == desk.SortBacklog {
		areaRank = rankAreas(rows)
	}
	orderRows(rows, sortKeyer(f, sr, areaRank), need)
}

// orderRows puts rows in the order of their keys; as sortRows, only the
// first need (0: all) must be in order.
func orderRows(rows []*head, key func(*head) sortKey, need int) {
	keyOf := func(i int, r *head) sortKey {
		k := key(r)
		k.at = i
		return k
	}
	var ks []sortKey
	if need > 0 && need < len(rows)/4 {
		// The keys go straight into the selection: only need of them are
		// ever held.
		ks = smallest(func(yield func(sortKey) bool) {
			for i, r := range rows {
				if !yield(keyOf(i, r)) {
					return
				}
			}
		}, need, compareSortKeys)
	} else {
		buf := sortKeys.Get().(*[]sortKey)
		ks = slices.Grow((*buf)[:0], len(rows))[:len(rows)]
		for i, r := range rows {
			ks[i] = keyOf(i, r)
		}
		slices.SortFunc(ks, compareSortKeys)
		defer func() { *buf = ks[:0]; sortKeys.Put(buf) }()
	}
	sorted := rowBuffers.Get().(*[]*head)
	defer putRows(sorted)
	for _, k := range ks {
		*sorted = append(*sorted, rows[k.at])
	}
	copy(rows, *sorted)
}

// sortKeyer returns the function that gives a row its key in f's order;
// areaRank ranks the areas for the backlog (see rankAreas) and is nil for
// the other orders. The keys leave at (the row's index) zero.
func sortKeyer(f *desk.IssueFilter, sr *searchResult, areaRank func(*head) int) func(r *head) sortKey {
	boost := strings.ToLower(strings.TrimSpace(f.BoostArea))
	ranked := f.Sort == desk.SortRelevance && sr != nil && sr.mode == searchRanked
	return func(r *head) sortKey {
		k := sortKey{minor: -r.number}
		switch {
		case ranked:
			k.score = sr.score[r.rowid]
			if boost != "" && strings.EqualFold(r.area(), boost) {
				k.score += 1e9
			}
			k.when = -r.updated
		case f.Sort == desk.SortUpdated:
			k.when = -r.updated
		case f.Sort == desk.SortCreated:
			k.when = -r.created
		case f.Sort == desk.SortOldest:
			k.when, k.minor = r.created, r.number
		case f.Sort == desk.SortPriority:
			k.major, k.when = codeRank(r.pr), -r.updated
		case f.Sort == desk.SortNumber:
		case f.Sort == desk.SortBacklog:
			k.major = codeRank(r.pr)<<40 | codeRank(r.sz)<<32 | areaRank(r)
			k.minor = r.number
		default: // triage
			k.major, k.when = int(r.tr)<<8|int(r.pr), -r.updated
		}
		return k
	}
}

// sortKey is a row's place in a sort. It holds the row's index rather
// than the row: a key without pointers is moved without write barriers
// while the collector runs, and never scanned.
type sortKey struct {
	at    int     // the row's index in the rows sorted
	major int     // status, priority, size and area ranks, packed
	score float64 // search score, higher first
	when  int64   // a time in milliseconds, negated for newest first
	minor int     // the number, signed so that ascending is right
}

func compareSortKeys(a, b sortKey) int {
	if a.score != b.score {
		if a.score > b.score {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.major, b.major); c != 0 {
		return c
	}
	if c := cmp.Compare(a.when, b.when); c != 0 {
		return c
	}
	return cmp.Compare(a.minor, b.minor)
}

// A list of a large project sorts and filters tens of thousands of rows:
// the buffers it does that in are kept between lists, as garbage of a few
// megabytes per list would make the collector run every few seconds.
var (
	sortKeys   = sync.Pool{New: func() any { return new([]sortKey) }}
	rowBuffers = sync.Pool{New: func() any { return new([]*head) }}
)

// putRows returns a row buffer to its pool, holding no rows: a kept buffer
// must not keep replaced rows alive.
func putRows(b *[]*head) {
	clear(*b)
	*b = (*b)[:0]
	rowBuffers.Put(b)
}

// smallest returns the n smallest items by cmp, in order: one pass keeping
// the n best so far in a heap with the largest on top costs len·log n
// comparisons, where sorting everything to keep a page costs len·log len.
func smallest[T any](items iter.Seq[T], n int, cmp func(a, b T) int) []T {
	h := make([]T, 0, n)
	for it := range items {
		if len(h) < n {
			h = append(h, it)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if cmp(h[i], h[p]) <= 0 {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if cmp(it, h[0]) >= 0 {
			continue
		}
		h[0] = it
		for i := 0; ; {
			j := 2*i + 1
			if j >= len(h) {
				break
			}
			if r := j + 1; r < len(h) && cmp(h[r], h[j]) > 0 {
				j = r
			}
			if cmp(h[j], h[i]) <= 0 {
				break
			}
			h[i], h[j] = h[j], h[i]
			i = j
		}
	}
	slices.SortFunc(h, cmp)
	return h
}

// rankAreas numbers the areas of rows alphabetically (case folded), with
// the empty area last, for the backlog order.
func rankAreas(rows []*head) func(*head) int {
	// Each area's folded name is made once per id (0: no area), not once
	// per row.
	var ids idCounts[string]
	for _, r := range rows {
		if ids.add(r.areaID, 1) {
			ids.first(r.areaID, strings.ToLower(r.area()))
		}
	}
	names := slices.Clone(ids.values)
	slices.SortFunc(names, func(a, b string) int {
		if (a == "") != (b == "") {
			if a == "" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	names = slices.Compact(names)
	rank := make(map[string]int, len(names))
	for i, n := range names {
		rank[n] = i
	}
	rankByID := make([]int, len(ids.n))
	for i, id := range ids.order {
		rankByID[id] = rank[ids.values[i]]
	}
	return func(r *head) int { return rankByID[r.areaID] }
}

// codeRank is an enum code as a sort rank: a value outside the enum (-1)
// sorts first, as the zero rank of an unknown value always did.
func codeRank(code int8) int {
	return max(int(code), 0)
}

// IssueCount returns how many issues project slug has, merged ones
// included (0 for a project that does not exist): from the issue index
// when this process holds the project, from the database otherwise.
func (db *DB) IssueCount(ctx context.Context, slug string) (int, error) {
	if n, ok := db.index.count(slug); ok {
		return n, nil
	}
	var n int
	err := db.pool().QueryRowContext(ctx, `SELECT count(*) FROM issues WHERE project_id = (SELECT id FROM projects WHERE slug = ?)`, slug).Scan(&n)
	return n, err
}
