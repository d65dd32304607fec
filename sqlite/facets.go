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
	area, milestone              spellings
	seed                         map[int64]int
	merged                       int
	odd                          desk.Counts // values outside the enums (a hand-edited file), counted as they are
}

// sizeOrder are the sizes as the size facet names them ("" is "none").
var sizeOrder = []string{"S", "M", "L", ""}

func newFacetTally() *facetTally {
	return &facetTally{
		status: make([]int, len(desk.Statuses)), kind: make([]int, len(desk.Kinds)),
		priority: make([]int, len(desk.Priorities)), size: make([]int, len(sizeOrder)),
		area: spellings{n: map[string]int{}}, milestone: spellings{n: map[string]int{}},
		seed: map[int64]int{}, odd: newCounts(),
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
		if r.Area != "" {
			t.area.add(r.Area)
		}
	case fSeed:
		if r.seed != nil {
			t.seed[*r.seed]++
		}
	case fSize:
		enum(t.size, r.sz, r.Size, t.odd.Size)
	case fMilestone:
		if r.Milestone != "" {
			t.milestone.add(r.Milestone)
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
	t.area.fold(c.Area)
	t.milestone.fold(c.Milestone)
	for s, n := range t.seed {
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
