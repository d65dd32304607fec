package sqlite

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"desk"
)

// facetTally counts a list's facets. The enum facets count in arrays, by
// the codes each row carries (see row.setCodes), and the free-text facets
// and seeds by the ids the project's index gave their values (see
// projIndex.name), folded case-insensitively once at the end: eight map
// increments with hashed string keys per row were a fifth of a list's time
// on a large project.
type facetTally struct {
	status, kind, priority, size enumTally
	area, milestone              idCounts[string]
	seed                         idCounts[int64]
	merged                       int
}

// enumTally counts an enum facet by code, and values outside the enum (a
// hand-edited file) as they are.
type enumTally struct {
	n   []int
	odd map[string]int
}

func newEnumTally(set []string) enumTally {
	return enumTally{n: make([]int, len(set)), odd: map[string]int{}}
}

// add counts h by its code, d times (-1 takes it out again); text, which
// reads the value from h, is called only for a value outside the enum.
func (t *enumTally) add(code int8, h *head, text func(*head) string, d int) {
	if code >= 0 {
		t.n[code] += d
		return
	}
	v := text(h)
	if t.odd[v] += d; t.odd[v] == 0 {
		delete(t.odd, v)
	}
}

func (t enumTally) clone() enumTally {
	return enumTally{n: slices.Clone(t.n), odd: maps.Clone(t.odd)}
}

// into adds the counts to dst, each value of set under key(value).
func (t *enumTally) into(dst map[string]int, set []string, key func(string) string) {
	for i, v := range set {
		if t.n[i] > 0 {
			dst[key(v)] += t.n[i]
		}
	}
	for v, n := range t.odd {
		dst[key(v)] += n
	}
}

// idCounts counts values by the id a project's index gave them, keeping
// the order ids were first seen in and the value each stands for. A count
// taken back to zero keeps its id and value; readers skip it.
type idCounts[T any] struct {
	n      []int
	named  []bool // by id: its value is recorded
	order  []int32
	values []T // by position in order
}

// add counts id d times more (-1 takes one back). The first time it
// counts id, it reports true, and the caller adds the value with first:
// reading the value touches a part of the row that counting does not
// otherwise need.
func (c *idCounts[T]) add(id int32, d int) (first bool) {
	if int(id) >= len(c.n) {
		grow := int(id) + 1 - len(c.n) + len(c.n)/2
		c.n = append(c.n, make([]int, grow)...)
		c.named = append(c.named, make([]bool, grow)...)
	}
	c.n[id] += d
	return !c.named[id]
}

// first records v as the value of id, which add has just counted for the
// first time.
func (c *idCounts[T]) first(id int32, v T) {
	c.named[id] = true
	c.order = append(c.order, id)
	c.values = append(c.values, v)
}

func (c idCounts[T]) clone() idCounts[T] {
	return idCounts[T]{n: slices.Clone(c.n), named: slices.Clone(c.named), order: slices.Clone(c.order), values: slices.Clone(c.values)}
}

// sizeOrder are the sizes as the size facet names them ("" is "none").
var sizeOrder = []string{"S", "M", "L", ""}

func newFacetTally() *facetTally {
	return &facetTally{
		status: newEnumTally(desk.Statuses), kind: newEnumTally(desk.Kinds),
		priority: newEnumTally(desk.Priorities), size: newEnumTally(sizeOrder),
	}
}

// clone returns a copy that counts on without changing t.
func (t *facetTally) clone() *facetTally {
	return &facetTally{
		status: t.status.clone(), kind: t.kind.clone(), priority: t.priority.clone(), size: t.size.clone(),
		area: t.area.clone(), milestone: t.milestone.clone(), seed: t.seed.clone(), merged: t.merged,
	}
}

// countRow adds r d times (-1 takes it out) to each facet whose count it
// belongs to: a row counts in facet i when it passes every filter but i's
// own (ok has a bit per filter passed); the merged count also ignores the
// status filter.
func (t *facetTally) countRow(r *head, ok, d int) {
	for i := 0; i < nFacets; i++ {
		need := allFacets &^ (1 << i)
		if i == fMerged {
			need &^= 1 << fStatus
		}
		if ok&need == need {
			t.count(i, r, d)
		}
	}
}

// tallyRow counts r d times (-1 takes it out) when it passes the filters
// of f that have no facet, in every facet it belongs to (only the status
// when f asks for status counts alone), and reports whether it passes
// every filter: whether the list holds it. m is f's facet filter.
func (t *facetTally) tallyRow(r *head, f *desk.IssueFilter, m *facetFilter, d int) bool {
	if !passesPlain(r, f) {
		return false
	}
	ok := m.passes(r)
	if f.StatusCountsOnly {
		t.countStatus(r, ok, d)
	} else {
		t.countRow(r, ok, d)
	}
	return ok == allFacets
}

// tallyRows counts each of rows once (see tallyRow) and appends to hits
// those that pass every filter, in the order of rows.
func (t *facetTally) tallyRows(rows []*head, f *desk.IssueFilter, m *facetFilter, hits []*head) []*head {
	for _, r := range rows {
		if t.tallyRow(r, f, m, 1) {
			hits = append(hits, r)
		}
	}
	return hits
}

// countStatus is countRow for the status facet alone.
func (t *facetTally) countStatus(r *head, ok, d int) {
	if need := allFacets &^ (1 << fStatus); ok&need == need {
		t.count(fStatus, r, d)
	}
}

// count adds r d times to facet i (one of the f* constants).
func (t *facetTally) count(i int, r *head, d int) {
	switch i {
	case fStatus:
		t.status.add(r.st, r, (*head).status, d)
	case fKind:
		t.kind.add(r.kd, r, (*head).kind, d)
	case fPriority:
		t.priority.add(r.pr, r, (*head).priority, d)
	case fArea:
		if r.areaID != 0 && t.area.add(r.areaID, d) {
			t.area.first(r.areaID, r.area())
		}
	case fSeed:
		if r.seedID != 0 && t.seed.add(r.seedID, d) {
			seed, _ := r.seed()
			t.seed.first(r.seedID, seed)
		}
	case fSize:
		t.size.add(r.sz, r, (*head).size, d)
	case fMilestone:
		if r.milestoneID != 0 && t.milestone.add(r.milestoneID, d) {
			t.milestone.first(r.milestoneID, r.milestone())
		}
	case fMerged:
		if r.mergedID != 0 {
			t.merged += d
		}
	}
}

// into adds the tally to counts, which newCounts made.
func (t *facetTally) into(c *desk.Counts) {
	t.status.into(c.Status, desk.Statuses, asIs)
	t.kind.into(c.Kind, desk.Kinds, asIs)
	t.priority.into(c.Priority, desk.Priorities, asIs)
	t.size.into(c.Size, sizeOrder, sizeKey)
	foldSpellings(&t.area, c.Area)
	foldSpellings(&t.milestone, c.Milestone)
	for i, id := range t.seed.order {
		if n := t.seed.n[id]; n != 0 {
			c.Seed[strconv.FormatInt(t.seed.values[i], 10)] += n
		}
	}
	c.Merged += t.merged
}

func asIs(v string) string { return v }

// foldSpellings adds counts of free text to dst, case variants together
// under the spelling that sorts first, as the project's overview names
// them: which rows were counted first does not matter, so a tally that
// rows leave and join names its values as one counted afresh would.
func foldSpellings(c *idCounts[string], dst map[string]int) {
	folded := make([]string, len(c.order))
	name := map[string]string{}
	for i, id := range c.order {
		if c.n[id] == 0 {
			continue
		}
		v := c.values[i]
		folded[i] = strings.ToLower(v)
		if f, ok := name[folded[i]]; !ok || v < f {
			name[folded[i]] = v
		}
	}
	for i, id := range c.order {
		if n := c.n[id]; n != 0 {
			dst[name[folded[i]]] += n
		}
	}
}
