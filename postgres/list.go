package postgres

import (
	"context"
	"strconv"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

// Issues lists a project's issues as the list's definition
// (desk.ListIssues) makes it, with the database doing the work: the
// filters, the facets' counts, the order and the page are SQL, the search
// is PostgreSQL's full-text search (see search), and only the page's rows
// are read.
func (db *DB) Issues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error) {
	if err := f.Normalize(); err != nil {
		return nil, err
	}
	var out *desk.IssueList
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		now := desk.FormatTime(db.now())
		l := &desk.IssueList{Project: p.Slug, Limit: f.Limit, Offset: f.Offset, Summary: f.Summary, Issues: []*desk.Issue{}}
		out = l
		var sr *searchResult
		if terms := desk.ParseSearch(f.Q); len(terms) > 0 {
			if sr, err = search(ctx, q, p, terms, &f, now); err != nil {
				return err
			}
			l.Search = &desk.SearchInfo{Mode: sr.mode}
		}
		var hits hitTable
		if sr != nil {
			hits = sr.table()
		}
		if l.Counts, err = countIssues(ctx, q, p, &f, now, hits); err != nil {
			return err
		}
		for _, s := range desk.Statuses {
			if len(f.Status) == 0 || desk.OneOf(s, f.Status) {
				l.Total += l.Counts.Status[s] // the status facet counts what passes every other
			}
		}
		if f.Offset >= l.Total {
			return nil
		}
		page, err := listPage(ctx, q, p, &f, now, hits)
		if err != nil {
			return err
		}
		if !f.Unclaimed {
			if err := withPageClaims(ctx, q, page, now); err != nil {
				return err
			}
		}
		if sr != nil && sr.mode == desk.SearchRanked {
			if err := sr.excerpts(ctx, q, page); err != nil {
				return err
			}
		}
		for _, r := range page {
			l.Issues = append(l.Issues, &r.Issue)
		}
		return nil
	})
	return out, err
}

// hitTable is a search's hits as SQL: a join of the issues aliased i to
// the hits' row ids and scores (h.score), or "" for a list without a
// search.
type hitTable struct {
	ids    []int64
	scores []float64
	ranked bool
}

func (h hitTable) join(args *sqlArgs) string {
	if h.ids == nil {
		return ""
	}
	return " JOIN unnest(" + args.add(h.ids) + "::bigint[], " + args.add(h.scores) + "::float8[]) h(id, score) ON h.id = i.id "
}

// countIssues counts the facets of a list as desk.ListIssues defines
// them: each facet the issues that pass every other one (the merged count
// ignores the status too), areas and milestones folded by case under
// their first spelling in byte order. The database groups the issues
// that pass the plain filters by their facet values and by which facets
// they pass, in one scan; the groups are tallied here.
func countIssues(ctx context.Context, q querier, p *projectRow, f *desk.IssueFilter, now string, hits hitTable) (desk.Counts, error) {
	c := desk.NewCounts()
	var args sqlArgs
	lf := newListFilter(f, p, now, &args)
	bits := make([]string, numFacets)
	for i, cond := range lf.facets {
		bits[i] = "coalesce(" + cond + ", false)" // a NULL (no seed) fails a facet, as in a WHERE
	}
	query := `SELECT i.status, i.kind, i.priority, lower(i.area), min(i.area COLLATE "C"), coalesce(i.seed::text, ''), i.size,
	lower(i.milestone), min(i.milestone COLLATE "C"), i.merged_into IS NOT NULL, ` + strings.Join(bits, ", ") + `, count(*)
FROM issues i` + hits.join(&args) + ` WHERE ` + lf.plain + `
GROUP BY 1, 2, 3, 4, 6, 7, 8, 10, ` + groupPositions(11, numFacets)
	if hits.ids != nil {
		args = sqlArgs(planned(args)) // the hits' count varies: plan for it
	}
	areaName, milestoneName := map[string]string{}, map[string]string{}
	areas, milestones := map[string]int{}, map[string]int{}
	fold := func(counts map[string]int, names map[string]string, key, name string, n int) {
		counts[key] += n
		if cur, ok := names[key]; !ok || name < cur {
			names[key] = name
		}
	}
	var pass [numFacets]bool
	var status, kind, priority, areaKey, area, seed, size, msKey, ms string
	var merged bool
	var n int
	dest := []any{&status, &kind, &priority, &areaKey, &area, &seed, &size, &msKey, &ms, &merged}
	for i := range pass {
		dest = append(dest, &pass[i])
	}
	dest = append(dest, &n)
	err := eachRow(ctx, q, query, args, func(rs pgx.Rows) error {
		if err := rs.Scan(dest...); err != nil {
			return err
		}
		others := func(out ...int) bool {
			for i, ok := range pass {
				if !ok && !containsInt(out, i) {
					return false
				}
			}
			return true
		}
		if others(desk.FacetStatus) {
			c.Status[status] += n
		}
		if f.StatusCountsOnly {
			return nil
		}
		if others(desk.FacetKind) {
			c.Kind[kind] += n
		}
		if others(desk.FacetPriority) {
			c.Priority[priority] += n
		}
		if others(desk.FacetArea) && area != "" {
			fold(areas, areaName, areaKey, area, n)
		}
		if others(desk.FacetSeed) && seed != "" {
			c.Seed[seed] += n
		}
		if others(desk.FacetSize) {
			k := size
			if k == "" {
				k = "none"
			}
			c.Size[k] += n
		}
		if others(desk.FacetMilestone) && ms != "" {
			fold(milestones, milestoneName, msKey, ms, n)
		}
		if others(desk.FacetMerged, desk.FacetStatus) && merged {
			c.Merged += n
		}
		return nil
	})
	for k, n := range areas {
		c.Area[areaName[k]] += n
	}
	for k, n := range milestones {
		c.Milestone[milestoneName[k]] += n
	}
	return c, err
}

// groupPositions lists n column positions from first, for a GROUP BY.
func groupPositions(first, n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = strconv.Itoa(first + i)
	}
	return strings.Join(ps, ", ")
}

// listPage reads the page of the list: the issues every filter keeps, in
// the list's order, from its offset.
func listPage(ctx context.Context, q querier, p *projectRow, f *desk.IssueFilter, now string, hits hitTable) ([]*row, error) {
	var args sqlArgs
	lf := newListFilter(f, p, now, &args)
	join := hits.join(&args)
	score := "NULL::float8"
	if join != "" {
		score = "h.score"
	}
	order := orderBy(f.Sort, hits.ranked, score, f.BoostArea, &args)
	// The page's ids first, then their rows: one statement that sorts
	// and joins as well costs more to plan than both to run.
	query := "SELECT i.id FROM issues i" + join + " WHERE " + lf.all() + " ORDER BY " + order +
		" LIMIT " + args.add(f.Limit) + " OFFSET " + args.add(f.Offset)
	qargs := []any(args)
	if join != "" {
		qargs = planned(args) // the hits' count varies: plan for it
	}
	var ids []int64
	err := eachRow(ctx, q, query, qargs, func(rs pgx.Rows) error {
		var id int64
		err := rs.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	byID := make(map[int64]*row, len(ids))
	err = eachRow(ctx, q, issueSelect(!f.Summary)+"WHERE i.id = ANY($1)", []any{ids}, func(rs pgx.Rows) error {
		r, err := scanIssue(rs)
		if err == nil {
			byID[r.rowid] = r
		}
		return err
	})
	page := make([]*row, 0, len(ids))
	for _, id := range ids {
		if r := byID[id]; r != nil {
			page = append(page, r)
		}
	}
	return page, err
}

// withPageClaims sets the claim in force on each issue of a page.
func withPageClaims(ctx context.Context, q querier, page []*row, now string) error {
	if len(page) == 0 {
		return nil
	}
	byRow := make(map[int64]*row, len(page))
	ids := make([]int64, len(page))
	for i, r := range page {
		byRow[r.rowid] = r
		ids[i] = r.rowid
	}
	return eachRow(ctx, q, `SELECT issue_id, issue_key, holder, claimed_at, expires_at FROM issue_claims
		WHERE issue_id = ANY($1) AND expires_at > $2`, []any{ids, now}, func(rs pgx.Rows) error {
		var id int64
		c := &desk.Claim{}
		if err := rs.Scan(&id, &c.Issue, &c.Holder, &c.ClaimedAt, &c.ExpiresAt); err != nil {
			return err
		}
		byRow[id].Claim = c
		return nil
	})
}

// SuggestGroups proposes merges and groups among a project's open issues
// (desk.SuggestGroups).
func (db *DB) SuggestGroups(ctx context.Context, slug string, limit int) ([]desk.Group, error) {
	var issues []*desk.Issue
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		issues, err = projectIssues(ctx, q, p, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return desk.SuggestGroups(issues, limit), nil
}

// IssueCount returns how many issues project slug has, merged ones
// included (0 for a project that does not exist).
func (db *DB) IssueCount(ctx context.Context, slug string) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM issues WHERE project_id = (SELECT id FROM projects WHERE slug = $1)`,
		strings.TrimSpace(slug)).Scan(&n)
	return n, err
}
