package sqlite

import (
	"strconv"
	"strings"

	"desk"
)

// facetTally counts a list's facets. The enum facets count in arrays, by
// the codes each row carries (see row.setCodes), and the
// free-text facets by exact spelling, folded case-insensitively once at
// the end: eight map increments with hashed string keys per row were a
// fifth of a list's time on a large project.
type facetTally struct {
	status, kind, priority, size []int
	area, milestone              idCounts[string]
	seed                         idCounts[int64]
	merged                       int
	odd                          desk.Counts // values outside the enums (a hand-edited file), counted as they are
	// Rows outside any index have no facet ids: their values count here.
	oddArea, oddMilestone spellings
	oddSeed               map[int64]int
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
		status: make([]int, len(desk.Statuses)), kind: make([]int, len(desk.Kinds)),
		priority: make([]int, len(desk.Priorities)), size: make([]int, len(sizeOrder)),
		oddArea: spellings{n: map[string]int{}}, oddMilestone: spellings{n: map[string]int{}},
		oddSeed: map[int64]int{}, odd: newCounts(),
	}
}

// countRow adds r to each facet whose count it belongs to: a row counts in
// facet i when it passes every filter but i's own (ok has a bit per filter
// passed); the merged count also ignores the status filter.
func (t *facetTally) countRow(r *row, ok int) {
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

// count adds r to facet i (one of the f* constants).
func (t *facetTally) count(i int, r *row) {
	enum := func(n []int, code int8, v string, odd map[string]int) {
		if code >= 0 {
			n[code]++
		} else {
			odd[v]++
		}
	}
	switch i {
	case fStatus:
		enum(t.status, r.st, r.Status, t.odd.Status)
	case fKind:
		enum(t.kind, r.kd, r.Kind, t.odd.Kind)
	case fPriority:
		enum(t.priority, r.pr, r.Priority, t.odd.Priority)
	case fArea:
		if r.areaID != 0 {
			if t.area.add(r.areaID) {
				t.area.first(r.areaID, r.Area)
			}
		} else if !r.named && r.Area != "" {
			t.oddArea.add(r.Area)
		}
	case fSeed:
		if r.seedID != 0 {
			if t.seed.add(r.seedID) {
				t.seed.first(r.seedID, *r.seed)
			}
		} else if !r.named && r.seed != nil {
			t.oddSeed[*r.seed]++
		}
	case fSize:
		enum(t.size, r.sz, r.Size, t.odd.Size)
	case fMilestone:
		if r.milestoneID != 0 {
			if t.milestone.add(r.milestoneID) {
				t.milestone.first(r.milestoneID, r.Milestone)
			}
		} else if !r.named && r.Milestone != "" {
			t.oddMilestone.add(r.Milestone)
		}
	case fMerged:
		if r.mergedID != 0 {
			t.merged++
		}
	}
}

// into adds the tally to counts, which newCounts made.
func (t *facetTally) into(c *desk.Counts) {
	add := func(dst map[string]int, set []string, n []int, always bool) {
		for i, v := range set {
			if n[i] > 0 || always {
				dst[v] += n[i]
			}
		}
	}
	add(c.Status, desk.Statuses, t.status, true)
	add(c.Kind, desk.Kinds, t.kind, true)
	add(c.Priority, desk.Priorities, t.priority, true)
	for i, v := range sizeOrder {
		if t.size[i] > 0 {
			c.Size[sizeKey(v)] += t.size[i]
		}
	}
	for _, pair := range []struct{ dst, src map[string]int }{
		{c.Status, t.odd.Status}, {c.Kind, t.odd.Kind}, {c.Priority, t.odd.Priority},
	} {
		for v, n := range pair.src {
			pair.dst[v] += n
		}
	}
	for v, n := range t.odd.Size {
		c.Size[sizeKey(v)] += n
	}
	for _, w := range []struct {
		ids *idCounts[string]
		odd *spellings
		dst map[string]int
	}{{&t.area, &t.oddArea, c.Area}, {&t.milestone, &t.oddMilestone, c.Milestone}} {
		// In the order first seen, as when every value counted by text.
		for i, id := range w.ids.order {
			v := w.ids.values[i]
			if _, ok := w.odd.n[v]; !ok {
				w.odd.order = append(w.odd.order, v)
			}
			w.odd.n[v] += w.ids.n[id]
		}
		w.odd.fold(w.dst)
	}
	for i, id := range t.seed.order {
		t.oddSeed[t.seed.values[i]] += t.seed.n[id]
	}
	for s, n := range t.oddSeed {
		c.Seed[strconv.FormatInt(s, 10)] += n
	}
	c.Merged += t.merged
}

// spellings counts a free-text value by its exact spelling, remembering
// the order spellings were first seen in.
type spellings struct {
	n     map[string]int
	order []string
}

func (s *spellings) add(v string) {
	if _, ok := s.n[v]; !ok {
		s.order = append(s.order, v)
	}
	s.n[v]++
}

// fold adds the counts to dst, case variants together under the spelling
// seen first, as a list shows them.
func (s *spellings) fold(dst map[string]int) {
	first := map[string]string{}
	for _, v := range s.order {
		k := strings.ToLower(v)
		c, ok := first[k]
		if !ok {
			first[k], c = v, v
		}
		dst[c] += s.n[v]
	}
}
