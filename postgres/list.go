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

// countIssues counts the facets of a list: each facet the issues that pass
// every other one (the merged count ignores the status too), areas and
// milestones folded by case under their first spelling in byte order.
func countIssues(ctx context.Context, q querier, p *projectRow, f *desk.IssueFilter, now string, hits hitTable) (desk.Counts, error) {
	c := desk.NewCounts()
	var args sqlArgs
	lf := newListFilter(f, p, now, &args)
	from := "FROM issues i" + hits.join(&args) + " WHERE "
	facet := func(n int, key, name, extra string, out ...int) string {
		return "SELECT " + strconv.Itoa(n) + ", " + key + ", " + name + ", count(*) " + from + lf.except(out...) + extra
	}
	parts := []string{facet(desk.FacetStatus, "i.status", "''", " GROUP BY i.status", desk.FacetStatus)}
	if !f.StatusCountsOnly {
		parts = append(parts,
			facet(desk.FacetKind, "i.kind", "''", " GROUP BY i.kind", desk.FacetKind),
			facet(desk.FacetPriority, "i.priority", "''", " GROUP BY i.priority", desk.FacetPriority),
			facet(desk.FacetArea, "lower(i.area)", `min(i.area COLLATE "C")`, " AND i.area <> '' GROUP BY lower(i.area)", desk.FacetArea),
			facet(desk.FacetSeed, "i.seed::text", "''", " AND i.seed IS NOT NULL GROUP BY i.seed", desk.FacetSeed),
			facet(desk.FacetSize, "CASE WHEN i.size = '' THEN 'none' ELSE i.size END", "''", " GROUP BY 2", desk.FacetSize),
			facet(desk.FacetMilestone, "lower(i.milestone)", `min(i.milestone COLLATE "C")`,
				" AND i.milestone <> '' GROUP BY lower(i.milestone)", desk.FacetMilestone),
			facet(desk.FacetMerged, "''", "''", " AND i.merged_into IS NOT NULL", desk.FacetMerged, desk.FacetStatus),
		)
	}
	err := eachRow(ctx, q, strings.Join(parts, "\nUNION ALL\n"), planned(args), func(rs pgx.Rows) error {
		var n, count int
		var key, name string
		if err := rs.Scan(&n, &key, &name, &count); err != nil {
			return err
		}
		switch n {
		case desk.FacetStatus:
			c.Status[key] += count
		case desk.FacetKind:
			c.Kind[key] += count
		case desk.FacetPriority:
			c.Priority[key] += count
		case desk.FacetArea:
			c.Area[name] += count
		case desk.FacetSeed:
			c.Seed[key] += count
		case desk.FacetSize:
			c.Size[key] += count
		case desk.FacetMilestone:
			c.Milestone[name] += count
		case desk.FacetMerged:
			c.Merged += count
		}
		return nil
	})
	return c, err
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
	sub := "SELECT i.id, row_number() OVER (ORDER BY " + order + ") AS ord FROM issues i" + join + " WHERE " + lf.all() +
		" ORDER BY " + order + " LIMIT " + args.add(f.Limit) + " OFFSET " + args.add(f.Offset)
	var page []*row
	err := eachRow(ctx, q, issueSelect(!f.Summary)+"JOIN ("+sub+") pg ON pg.id = i.id ORDER BY pg.ord", planned(args), func(rs pgx.Rows) error {
		r, err := scanIssue(rs)
		page = append(page, r)
		return err
	})
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
