package sqlite

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"desk"
)

// A page asks for the same few lists again and again: the owner's triage
// and backlog after every change it hears of, each agent's list of open
// work between its edits. Between two asks a busy desk changes a handful of
// issues, yet each ask filtered, counted and sorted every issue of the
// project again: most of a list's time, and more with every issue.
//
// A long-lived process keeps the latest answer to each of the lists asked
// for last, before paging: the issues that pass the filter, all of them in
// the list's order, and the facet counts. The next ask of the same list
// finds which issues changed since by walking the project's heads beside
// the ones the answer was made from (both are in row id order, and a head
// is replaced, never changed, when its issue changes). It takes the old
// versions out of the order and the counts and puts the new ones in, each
// at its place by binary search. A ranked search is kept the same way,
// with the result it was made from: its hits are the issues the search
// matched, and its order their scores, which only an issue's own text and
// comments make, so only changed issues move (searchCache brings the
// result itself up to date).

// A process keeps at most maxKeptLists lists, holding at most
// maxKeptHeads pointers to heads between them (8 MB): a kept list holds a
// pointer per issue that passes its filter, and the project's heads as
// they were when it was made. The page and the agents ask a handful of
// lists; the large desk's triage and backlog hold about 250,000.
const (
	maxKeptLists = 16
	maxKeptHeads = 1 << 20
)

// keptLists is the lists a process keeps, by project and filter. The zero
// value is ready to use.
type keptLists struct {
	mu      sync.Mutex
	lists   map[keptKey]*keptList
	clock   uint64       // counts asks, for evicting the list asked for least recently
	patches atomic.Int64 // lists patched, for tests
	// misplaced counts the patches given up because a row was not where
	// its key says: a list in order never has one, so tests hold it to 0.
	misplaced atomic.Int64
}

type keptKey struct {
	project int64
	filter  string // see listKey
}

// keptList is one list's answer before paging. It is never changed once
// made: lists in flight read it without a lock.
type keptList struct {
	from  []*head       // the project's heads it was made from, in row id order
	hits  []*head       // the heads that pass the filter, in the list's order
	sr    *searchResult // the search the list was made from; nil for none
	tally *facetTally
	// rank is the backlog's ranks of the areas of hits (see rankAreas);
	// nil in other orders.
	rank func(*head) int
	used uint64 // guarded by keptLists.mu

	// The counts as a list returns them, and their JSON, made once from
	// tally when first asked for: the page's triage and its summary, its
	// backlog and its summary, are the same list.
	countsOnce sync.Once
	counts     desk.Counts
	countsJSON []byte
}

// countsOf returns the list's facet counts and their JSON, shared by
// every answer made from l: nothing may change them.
func (l *keptList) countsOf() (desk.Counts, []byte) {
	l.countsOnce.Do(func() {
		l.counts = newCounts()
		l.tally.into(&l.counts)
		l.countsJSON = l.counts.AppendJSON(nil)
	})
	return l.counts, l.countsJSON
}

// list returns the answer to f (normalized) over heads, the project's
// heads in row id order, and sr, f's ranked search over them (nil for a
// list without search words): kept, patched from the kept answer, or made
// afresh. m is f's facet filter.
func (k *keptLists) list(project int64, heads []*head, sr *searchResult, f *desk.IssueFilter, m *facetFilter) *keptList {
	key := keptKey{project, listKey(f)}
	k.mu.Lock()
	old := k.lists[key]
	k.mu.Unlock()
	var l *keptList
	switch {
	case old != nil && sameHeads(old.from, heads) && old.sr == sr:
		l = old
	case old != nil:
		var misplaced bool
		if l, misplaced = old.patched(heads, sr, f, m); l != nil {
			k.patches.Add(1)
		} else if misplaced {
			k.misplaced.Add(1)
		}
	}
	if l == nil {
		l = newKeptList(heads, sr, f, m)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.lists == nil {
		k.lists = map[keptKey]*keptList{}
	}
	k.clock++
	l.used = k.clock
	k.lists[key] = l
	k.evict(key)
	return l
}

// evict drops the lists asked for least recently, but the one under keep,
// while the lists kept are too many or hold too many heads (counting the
// project's heads once for every list made from the same version of
// them). k.mu is held.
func (k *keptLists) evict(keep keptKey) {
	for len(k.lists) > 1 && (len(k.lists) > maxKeptLists || k.heads() > maxKeptHeads) {
		delete(k.lists, leastRecent(k.lists, func(l *keptList) uint64 { return l.used }, keep))
	}
}

// heads counts the pointers to heads the kept lists hold. k.mu is held.
func (k *keptLists) heads() int {
	n := 0
	versions := map[**head]bool{} // by the address of the slice's array
	for _, l := range k.lists {
		n += len(l.hits)
		if len(l.from) > 0 && !versions[&l.from[0]] {
			versions[&l.from[0]] = true
			n += len(l.from)
		}
	}
	return n
}

// keepable reports whether f's answer is worth keeping: not a list of
// some issues by id (the page refreshing the rows a change named) or of
// those changed since a moment, which are asked once each and would push
// the lists asked again and again out of the kept ones.
func keepable(f *desk.IssueFilter) bool {
	return len(f.IDs) == 0 && f.Since == "" && !f.Unclaimed
}

// listKey is what makes two lists the same before paging: every field of
// the filter but the page and whether rows are summaries.
func listKey(f *desk.IssueFilter) string {
	var b strings.Builder
	field := func(vals ...string) {
		for _, v := range vals {
			b.WriteString(v)
			b.WriteByte(0)
		}
		b.WriteByte(1)
	}
	field(f.Status...)
	field(f.Kind...)
	field(f.Priority...)
	field(f.Area...)
	field(f.Source...)
	field(f.Milestone...)
	field(f.Size...)
	field(f.IDs...)
	field(f.Q, f.Tag, f.BoostArea, f.Since, f.Sort, strconv.FormatBool(f.Merged), strconv.FormatBool(f.StatusCountsOnly))
	if f.ExternalRef != nil {
		field("ref", *f.ExternalRef)
	}
	if f.Seed != nil {
		field("seed", strconv.FormatInt(*f.Seed, 10))
	}
	return b.String()
}

// newKeptList filters, counts and sorts heads (sr's matches, for a
// search) afresh.
func newKeptList(heads []*head, sr *searchResult, f *desk.IssueFilter, m *facetFilter) *keptList {
	l := &keptList{from: heads, sr: sr, tally: newFacetTally()}
	l.hits = l.tally.tallyRows(sr.candidates(heads), f, m, nil)
	if f.Sort == desk.SortBacklog {
		l.rank = rankAreas(l.hits)
	}
	orderRows(l.hits, sortKeyer(f, sr, l.rank), 0)
	return l
}

// matches reports whether r's issue is among sr's matches (every issue,
// without a search).
func (sr *searchResult) matches(r *head) bool { return sr == nil || sr.ids[r.rowid] }

// candidates returns the rows of heads a list with sr may hold: sr's
// matches, in no order, or every head without a search.
func (sr *searchResult) candidates(heads []*head) []*head {
	if sr == nil {
		return heads
	}
	return sr.rows
}

// patched returns l brought up to heads and sr, or nil when making the
// list afresh is as cheap or l cannot tell what changed; misplaced says a
// row leaving was not where its key says, which only a bug can do.
func (l *keptList) patched(heads []*head, sr *searchResult, f *desk.IssueFilter, m *facetFilter) (_ *keptList, misplaced bool) {
	if (l.sr == nil) != (sr == nil) || sr != nil && (sr.mode != l.sr.mode || sr.prefix != l.sr.prefix) {
		return nil, false // another stage of the search (see DB.search) scores every issue anew
	}
	gone, came, ok := changedHeads(l.from, heads, len(heads)/8+16)
	if !ok {
		return nil, false
	}
	n := &keptList{from: heads, sr: sr, tally: l.tally.clone(), rank: l.rank}
	var out, in []*head
	for _, r := range gone {
		if l.sr.matches(r) && n.tally.tallyRow(r, f, m, -1) {
			out = append(out, r)
		}
	}
	for _, r := range came {
		if sr.matches(r) && n.tally.tallyRow(r, f, m, 1) {
			in = append(in, r)
		}
	}
	if f.Sort == desk.SortBacklog && len(in) > 0 {
		// The backlog ranks areas by name. New rows may bring areas l's
		// ranks do not know: ranking every row's area again orders l's
		// rows as before, and places the new ones among them.
		n.rank = rankAreas(slices.Concat(in, l.hits))
	}
	// l's rows are in the order of l's search; the rows that join, in the
	// order of the new one. An issue's score changes only with the issue,
	// so the rows that stay have one key in both.
	key, oldKey := sortKeyer(f, sr, n.rank), sortKeyer(f, l.sr, n.rank)
	// Where each row leaves and where each joins, as indexes into l.hits.
	at := func(k sortKey) int {
		return sort.Search(len(l.hits), func(i int) bool { return compareSortKeys(oldKey(l.hits[i]), k) >= 0 })
	}
	drop := make([]int, 0, len(out))
	for _, r := range out {
		i := at(oldKey(r))
		if i == len(l.hits) || l.hits[i] != r {
			return nil, true // not where its key says: make the list afresh
		}
		drop = append(drop, i)
	}
	slices.Sort(drop)
	keys := make([]sortKey, len(in))
	for i, r := range in {
		keys[i] = key(r)
		keys[i].at = i
	}
	slices.SortFunc(keys, compareSortKeys)
	n.hits = make([]*head, 0, len(l.hits)-len(drop)+len(in))
	next := 0 // the first row of l.hits not yet copied
	copyTo := func(end int) {
		for len(drop) > 0 && drop[0] < end {
			n.hits = append(n.hits, l.hits[next:drop[0]]...)
			next, drop = drop[0]+1, drop[1:]
		}
		n.hits = append(n.hits, l.hits[next:end]...)
		next = end
	}
	for _, k := range keys {
		copyTo(max(next, at(k)))
		n.hits = append(n.hits, in[k.at])
	}
	copyTo(len(l.hits))
	return n, false
}
