package sqlite

import (
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

// add counts h by its code; text, which reads the value from h, is called
// only for a value outside the enum.
func (t *enumTally) add(code int8, h *head, text func(*head) string) {
	if code >= 0 {
		t.n[code]++
	} else {
		t.odd[text(h)]++
	}
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
// the order ids were first seen in and the value each stands for.
type idCounts[T any] struct {
	n      []int
	order  []int32
	values []T // by position in order
}

// add counts id once more. The first time, it reports true, and the
// caller adds the value with first: reading the value touches a part of
// the row that counting does not otherwise need.
func (c *idCounts[T]) add(id int32) (first bool) {
	if int(id) >= len(c.n) {
		c.n = append(c.n, make([]int, int(id)+1-len(c.n)+len(c.n)/2)...)
	}
	c.n[id]++
	return c.n[id] == 1
}

// first records v as the value of the id first seen last.
func (c *idCounts[T]) first(id int32, v T) {
	c.order = append(c.order, id)
	c.values = append(c.values, v)
}

// sizeOrder are the sizes as the size facet names them ("" is "none").
var sizeOrder = []string{"S", "M", "L", ""}

func newFacetTally() *facetTally {
	return &facetTally{
		status: newEnumTally(desk.Statuses), kind: newEnumTally(desk.Kinds),
		priority: newEnumTally(desk.Priorities), size: newEnumTally(sizeOrder),
	}
}

// countRow adds r to each facet whose count it belongs to: a row counts in
// facet i when it passes every filter but i's own (ok has a bit per filter
// passed); the merged count also ignores the status filter.
func (t *facetTally) countRow(r *head, ok int) {
	for i := 0; i < nFacets; i++ {
		need := allFacets &^ (1 << i)
		if i == fMerged {
			need &^= 1 << fStatus
		}
		if ok&need == need {
			t.count(i, r)
		}
	}
}

// countStatus is countRow for the status facet alone.
func (t *facetTally) countStatus(r *head, ok int) {
	if need := allFacets &^ (1 << fStatus); ok&need == need {
		t.count(fStatus, r)
	}
}

// count adds r to facet i (one of the f* constants).
func (t *facetTally) count(i int, r *head) {
	switch i {
	case fStatus:
		t.status.add(r.st, r, (*head).status)
	case fKind:
		t.kind.add(r.kd, r, (*head).kind)
	case fPriority:
		t.priority.add(r.pr, r, (*head).priority)
	case fArea:
		if r.areaID != 0 && t.area.add(r.areaID) {
			t.area.first(r.areaID, r.area())
		}
	case fSeed:
		if r.seedID != 0 && t.seed.add(r.seedID) {
			seed, _ := r.seed()
			t.seed.first(r.seedID, seed)
		}
	case fSize:
		t.size.add(r.sz, r, (*head).size)
	case fMilestone:
		if r.milestoneID != 0 && t.milestone.add(r.milestoneID) {
			t.milestone.first(r.milestoneID, r.milestone())
		}
	case fMerged:
		if r.mergedID != 0 {
			t.merged++
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
		c.Seed[strconv.FormatInt(t.seed.values[i], 10)] += t.seed.n[id]
	}
	c.Merged += t.merged
}

func asIs(v string) string { return v }

// foldSpellings adds counts of free text to dst, case variants together
// under the spelling seen first, as a list shows them.
func foldSpellings(c *idCounts[string], dst map[string]int) {
	first := map[string]string{}
	for i, id := range c.order {
		v := c.values[i]
		k := strings.ToLower(v)
		f, ok := first[k]
		if !ok {
			first[k], f = v, v
		}
		dst[f] += c.n[id]
	}
}
