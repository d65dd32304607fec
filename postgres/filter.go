package postgres

import (
	"strconv"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

// sqlArgs collects a query's arguments; add names each by its placeholder.
type sqlArgs []any

func (a *sqlArgs) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// planned returns a query's arguments so that PostgreSQL plans it for
// these values each time (an unnamed statement). A search's statements
// need it: a plan made once for any values (a cached statement's, after
// a few runs) cannot see how many issues a term matches, and walks them
// the slow way (hundreds of milliseconds on 500 issues).
func planned(args sqlArgs) []any {
	return append([]any{pgx.QueryExecModeExec}, args...)
}

// numFacets is how many facets a list counts (desk.FacetsPassed's bits).
const numFacets = desk.FacetMerged + 1

// listFilter is an issue filter as SQL over the issues aliased i: the
// conditions every listed issue passes (the project, desk.PassesPlainFilters,
// the claims) and one condition per facet, in desk's facet order, so that
// each facet can count the issues that pass every other one.
type listFilter struct {
	plain  string
	facets [numFacets]string
}

// all is the condition of an issue the list keeps: the plain filters and
// every facet.
func (lf *listFilter) all() string {
	return lf.plain + " AND " + strings.Join(lf.facets[:], " AND ")
}

// except is the condition a facet's counts use: the plain filters and
// every facet but those left out.
func (lf *listFilter) except(out ...int) string {
	conds := []string{lf.plain}
	for i, c := range lf.facets {
		if !containsInt(out, i) {
			conds = append(conds, c)
		}
	}
	return strings.Join(conds, " AND ")
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// newListFilter renders f (normalized) for project p at now (the time
// claims are in force at). Its arguments are added to args.
func newListFilter(f *desk.IssueFilter, p *projectRow, now string, args *sqlArgs) *listFilter {
	plain := []string{"i.project_id = " + args.add(p.id)}
	if len(f.Source) > 0 {
		plain = append(plain, "i.source = ANY("+args.add(f.Source)+")")
	}
	if f.Since != "" {
		plain = append(plain, `i.updated_at COLLATE "C" >= `+args.add(f.Since))
	}
	if f.ExternalRef != nil {
		plain = append(plain, "i.external_ref = "+args.add(*f.ExternalRef))
	}
	if f.Tag != "" {
		plain = append(plain, "EXISTS (SELECT 1 FROM jsonb_array_elements_text(i.tags::jsonb) t(v) WHERE lower(t.v) = lower("+
			args.add(f.Tag)+"))")
	}
	if len(f.IDs) > 0 {
		// Keys are normalized: only the project's prefix can match.
		var numbers []int
		for _, k := range f.IDs {
			if prefix, n, err := desk.ParseIssueKey(k); err == nil && prefix == p.Prefix {
				numbers = append(numbers, n)
			}
		}
		plain = append(plain, "i.number = ANY("+args.add(numbers)+")")
	}
	if f.Unclaimed {
		plain = append(plain, `NOT EXISTS (SELECT 1 FROM issue_claims c WHERE c.issue_id = i.id AND c.expires_at > `+args.add(now)+")")
	}
	lf := &listFilter{plain: strings.Join(plain, " AND ")}
	oneOf := func(col string, vals []string) string {
		if len(vals) == 0 {
			return "true"
		}
		return col + " = ANY(" + args.add(vals) + ")"
	}
	folded := func(vals []string) []string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = strings.ToLower(strings.TrimSpace(v))
		}
		return out
	}
	lf.facets[desk.FacetStatus] = oneOf("i.status", f.Status)
	lf.facets[desk.FacetKind] = oneOf("i.kind", f.Kind)
	lf.facets[desk.FacetPriority] = oneOf("i.priority", f.Priority)
	lf.facets[desk.FacetArea] = oneOf("lower(i.area)", folded(f.Area))
	lf.facets[desk.FacetSeed] = "true"
	if f.Seed != nil {
		lf.facets[desk.FacetSeed] = "i.seed = " + args.add(*f.Seed)
	}
	lf.facets[desk.FacetSize] = oneOf("i.size", f.Size)
	lf.facets[desk.FacetMilestone] = oneOf("lower(i.milestone)", folded(f.Milestone))
	lf.facets[desk.FacetMerged] = "(i.merged_into IS NOT NULL) = " + args.add(f.Merged)
	return lf
}

// orderBy renders desk.IssueOrder's order of sort (and the ranked
// search's relevance, with score naming each issue's score) as an ORDER
// BY list over the issues aliased i.
func orderBy(sort string, ranked bool, score, boostArea string, args *sqlArgs) string {
	rank := func(col string, list []string) string {
		return "coalesce(array_position(" + args.add(list) + "::text[], " + col + ") - 1, 0)"
	}
	const (
		updatedDesc = `i.updated_at COLLATE "C" DESC`
		numberDesc  = "i.number DESC"
	)
	if sort == desk.SortRelevance && ranked {
		boost := strings.ToLower(strings.TrimSpace(boostArea))
		s := "coalesce(" + score + ", 0)"
		if boost != "" {
			s = "(" + s + " + CASE WHEN lower(i.area) = " + args.add(boost) + " THEN 1e9 ELSE 0 END)"
		}
		return s + " DESC, " + updatedDesc + ", " + numberDesc
	}
	switch sort {
	case desk.SortUpdated:
		return updatedDesc + ", " + numberDesc
	case desk.SortCreated:
		return `i.created_at COLLATE "C" DESC, ` + numberDesc
	case desk.SortOldest:
		return `i.created_at COLLATE "C", i.number`
	case desk.SortPriority:
		return rank("i.priority", desk.Priorities) + ", " + updatedDesc + ", " + numberDesc
	case desk.SortNumber:
		return numberDesc
	case desk.SortBacklog:
		// The areas rank in byte order of their folded text, the empty
		// area last (desk.BacklogAreaRanks).
		return rank("i.priority", desk.Priorities) + ", " + rank("i.size", []string{"S", "M", "L", ""}) +
			`, lower(i.area) = '', lower(i.area) COLLATE "C", i.number`
	}
	return rank("i.status", desk.TriageOrder) + ", " + rank("i.priority", desk.Priorities) + ", " + updatedDesc + ", " + numberDesc
}
