package desk

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The definition of an issue list: which issues a filter keeps, how each
// facet counts, and the order of every sort. A store may compute a list
// its own faster way (the embedded store does, from an index in memory);
// its tests hold it to these definitions, and a store without such an
// index lists through ListIssues.

// Search modes of a list's search info.
const (
	SearchRanked    = "ranked"
	SearchSubstring = "substring"
)

// SearchHits is what a store's search found among a project's issues: the
// mode, the issues matched (by key) and, for a ranked search, each one's
// score and Match.
type SearchHits struct {
	Mode  string
	IDs   map[string]bool
	Score map[string]float64
	Match map[string]*Match
}

// PassesPlainFilters applies the filters of f that have no facet: source,
// since, external reference, tag and ids.
func PassesPlainFilters(is *Issue, f *IssueFilter) bool {
	if len(f.Source) > 0 && !OneOf(is.Source, f.Source) {
		return false
	}
	if f.Since != "" && is.UpdatedAt < f.Since {
		return false
	}
	if f.ExternalRef != nil && is.ExternalRef != *f.ExternalRef {
		return false
	}
	if f.Tag != "" && !slices.ContainsFunc(is.Tags, func(t string) bool { return strings.EqualFold(t, f.Tag) }) {
		return false
	}
	if len(f.IDs) > 0 && !OneOf(is.ID, f.IDs) {
		return false
	}
	return true
}

// Facets of a list, in the order FacetsPassed numbers them.
const (
	FacetStatus = iota
	FacetKind
	FacetPriority
	FacetArea
	FacetSeed
	FacetSize
	FacetMilestone
	FacetMerged
	numFacets
)

// AllFacets is FacetsPassed's answer for an issue that passes every facet.
const AllFacets = 1<<numFacets - 1

// FacetsPassed returns a bit per facet filter of f that is passes. The
// merged facet passes merged issues only when f asks for them.
func FacetsPassed(is *Issue, f *IssueFilter) int {
	ok := 0
	set := func(i int, pass bool) {
		if pass {
			ok |= 1 << i
		}
	}
	set(FacetStatus, len(f.Status) == 0 || OneOf(is.Status, f.Status))
	set(FacetKind, len(f.Kind) == 0 || OneOf(is.Kind, f.Kind))
	set(FacetPriority, len(f.Priority) == 0 || OneOf(is.Priority, f.Priority))
	set(FacetSize, len(f.Size) == 0 || OneOf(is.Size, f.Size))
	set(FacetMerged, (is.MergedInto != nil) == f.Merged)
	set(FacetArea, len(f.Area) == 0 || oneOfFold(is.Area, f.Area))
	set(FacetSeed, f.Seed == nil || is.Location.Seed != nil && *is.Location.Seed == *f.Seed)
	set(FacetMilestone, len(f.Milestone) == 0 || oneOfFold(is.Milestone, f.Milestone))
	return ok
}

func oneOfFold(v string, set []string) bool {
	for _, s := range set {
		if strings.EqualFold(strings.TrimSpace(s), v) {
			return true
		}
	}
	return false
}

// NewCounts returns the counts of an empty list: every status, kind and
// priority at zero.
func NewCounts() Counts {
	zero := func(keys []string) map[string]int {
		m := make(map[string]int, len(keys))
		for _, k := range keys {
			m[k] = 0
		}
		return m
	}
	return Counts{
		Status: zero(Statuses), Kind: zero(Kinds), Priority: zero(Priorities),
		Area: map[string]int{}, Seed: map[string]int{}, Size: map[string]int{}, Milestone: map[string]int{},
	}
}

// countFacets adds the issues to c: each facet counts the issues that pass
// every other facet (the merged count ignores the status filter too), so
// that a chip shows what choosing it would give. Areas and milestones that
// differ only in case count as one, under their first spelling in byte
// order. With statusOnly only the status facet is counted.
func countFacets(c *Counts, issues []*Issue, f *IssueFilter, statusOnly bool) {
	areas, milestones := map[string]int{}, map[string]int{}
	areaName, milestoneName := map[string]string{}, map[string]string{}
	fold := func(counts map[string]int, names map[string]string, v string) {
		k := strings.ToLower(v)
		counts[k]++
		if n, ok := names[k]; !ok || v < n {
			names[k] = v
		}
	}
	for _, is := range issues {
		if !PassesPlainFilters(is, f) {
			continue
		}
		ok := FacetsPassed(is, f)
		for i := 0; i < numFacets; i++ {
			if statusOnly && i != FacetStatus {
				continue
			}
			need := AllFacets &^ (1 << i)
			if i == FacetMerged {
				need &^= 1 << FacetStatus
			}
			if ok&need != need {
				continue
			}
			switch i {
			case FacetStatus:
				c.Status[is.Status]++
			case FacetKind:
				c.Kind[is.Kind]++
			case FacetPriority:
				c.Priority[is.Priority]++
			case FacetArea:
				if is.Area != "" {
					fold(areas, areaName, is.Area)
				}
			case FacetSeed:
				if is.Location.Seed != nil {
					c.Seed[strconv.FormatInt(*is.Location.Seed, 10)]++
				}
			case FacetSize:
				k := is.Size
				if k == "" {
					k = "none"
				}
				c.Size[k]++
			case FacetMilestone:
				if is.Milestone != "" {
					fold(milestones, milestoneName, is.Milestone)
				}
			case FacetMerged:
				if is.MergedInto != nil {
					c.Merged++
				}
			}
		}
	}
	for k, n := range areas {
		c.Area[areaName[k]] += n
	}
	for k, n := range milestones {
		c.Milestone[milestoneName[k]] += n
	}
}

// IssueOrder returns the order of sort over issues (a ranked search's
// relevance needs its scores: see ListIssues). Every order ends on the
// number, so that pages never overlap. areas ranks the areas for the
// backlog (BacklogAreaRanks of the issues sorted); nil for other orders.
func IssueOrder(sort string, areas map[string]int) func(a, b *Issue) int {
	rank := func(list []string, v string) int { return max(slices.Index(list, v), 0) }
	byNumberDesc := func(a, b *Issue) int { return cmp.Compare(b.Number, a.Number) }
	switch sort {
	case SortUpdated:
		return func(a, b *Issue) int { return cmp.Or(cmp.Compare(b.UpdatedAt, a.UpdatedAt), byNumberDesc(a, b)) }
	case SortCreated:
		return func(a, b *Issue) int { return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), byNumberDesc(a, b)) }
	case SortOldest:
		return func(a, b *Issue) int {
			return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.Number, b.Number))
		}
	case SortPriority:
		return func(a, b *Issue) int {
			return cmp.Or(cmp.Compare(rank(Priorities, a.Priority), rank(Priorities, b.Priority)),
				cmp.Compare(b.UpdatedAt, a.UpdatedAt), byNumberDesc(a, b))
		}
	case SortNumber:
		return byNumberDesc
	case SortBacklog:
		sizeRank := func(s string) int { return rank([]string{"S", "M", "L", ""}, s) }
		return func(a, b *Issue) int {
			return cmp.Or(cmp.Compare(rank(Priorities, a.Priority), rank(Priorities, b.Priority)),
				cmp.Compare(sizeRank(a.Size), sizeRank(b.Size)),
				cmp.Compare(areas[strings.ToLower(a.Area)], areas[strings.ToLower(b.Area)]), cmp.Compare(a.Number, b.Number))
		}
	}
	return func(a, b *Issue) int { // triage
		return cmp.Or(cmp.Compare(rank(TriageOrder, a.Status), rank(TriageOrder, b.Status)),
			cmp.Compare(rank(Priorities, a.Priority), rank(Priorities, b.Priority)),
			cmp.Compare(b.UpdatedAt, a.UpdatedAt), byNumberDesc(a, b))
	}
}

// BacklogAreaRanks numbers the areas of issues (case folded) in byte
// order, the empty area last, for the backlog order.
func BacklogAreaRanks(issues []*Issue) map[string]int {
	var names []string
	seen := map[string]bool{}
	for _, is := range issues {
		if a := strings.ToLower(is.Area); !seen[a] {
			seen[a] = true
			names = append(names, a)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		if (a == "") != (b == "") {
			if a == "" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	ranks := make(map[string]int, len(names))
	for i, n := range names {
		ranks[n] = i
	}
	return ranks
}

// ListIssues makes the list of a project's issues (all of them, merged ones
// included, with body and plan unless f.Summary) that f (normalized)
// asks for, with the hits of f.Q's search (nil without one). The issues
// are copied; all is not changed.
func ListIssues(project string, all []*Issue, f *IssueFilter, hits *SearchHits) *IssueList {
	l := &IssueList{Project: project, Limit: f.Limit, Offset: f.Offset, Summary: f.Summary, Issues: []*Issue{}}
	candidates := all
	if hits != nil {
		l.Search = &SearchInfo{Mode: hits.Mode}
		candidates = nil
		for _, is := range all {
			if hits.IDs[is.ID] {
				candidates = append(candidates, is)
			}
		}
	}
	l.Counts = NewCounts()
	countFacets(&l.Counts, candidates, f, f.StatusCountsOnly)
	var kept []*Issue
	for _, is := range candidates {
		if PassesPlainFilters(is, f) && FacetsPassed(is, f) == AllFacets {
			kept = append(kept, is)
		}
	}
	var areas map[string]int
	if f.Sort == SortBacklog {
		areas = BacklogAreaRanks(kept)
	}
	order := IssueOrder(f.Sort, areas)
	if f.Sort == SortRelevance && hits != nil && hits.Mode == SearchRanked {
		boost := strings.ToLower(strings.TrimSpace(f.BoostArea))
		score := func(is *Issue) float64 {
			s := hits.Score[is.ID]
			if boost != "" && strings.EqualFold(is.Area, boost) {
				s += 1e9
			}
			return s
		}
		order = func(a, b *Issue) int {
			return cmp.Or(cmp.Compare(score(b), score(a)), cmp.Compare(b.UpdatedAt, a.UpdatedAt), cmp.Compare(b.Number, a.Number))
		}
	}
	slices.SortStableFunc(kept, order)
	l.Total = len(kept)
	if f.Offset < len(kept) {
		kept = kept[f.Offset:min(f.Offset+f.Limit, len(kept))]
	} else {
		kept = nil
	}
	for _, is := range kept {
		cp := *is
		if hits != nil && hits.Mode == SearchRanked {
			cp.Match = hits.Match[is.ID]
		}
		l.Issues = append(l.Issues, &cp)
	}
	return l
}

// ProjectOverview counts what a project's overview shows of its issues
// (all of them, merged ones included): the unmerged ones by status (every
// status present, at zero when none), their areas and tags, most used
// first (spellings that differ only in case count as one, under the first
// in byte order), and the time of the last change of any issue.
func ProjectOverview(issues []*Issue) (counts map[string]int, areas, tags []string, lastIssue string) {
	counts = NewCounts().Status
	type tally struct {
		name string
		n    int
	}
	areaN, tagN := map[string]*tally{}, map[string]*tally{}
	add := func(m map[string]*tally, v string) {
		k := strings.ToLower(v)
		if t := m[k]; t != nil {
			t.n++
			t.name = min(t.name, v)
			return
		}
		m[k] = &tally{v, 1}
	}
	for _, is := range issues {
		lastIssue = max(lastIssue, is.UpdatedAt)
		if is.MergedInto != nil {
			continue
		}
		counts[is.Status]++
		if is.Area != "" {
			add(areaN, is.Area)
		}
		for _, t := range is.Tags {
			add(tagN, t)
		}
	}
	ranked := func(m map[string]*tally) []string {
		ts := make([]*tally, 0, len(m))
		for _, t := range m {
			ts = append(ts, t)
		}
		slices.SortFunc(ts, func(a, b *tally) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.name, b.name)) })
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t.name
		}
		return out
	}
	return counts, ranked(areaN), ranked(tagN), lastIssue
}
