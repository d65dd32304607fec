package postgres

import (
	"context"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

// Issues lists a project's issues: filtered, counted, sorted and paged by
// the list's definition (desk.ListIssues) over the project's issues, with
// the search's hits when the filter has a search text.
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
		issues, err := projectIssues(ctx, q, p, !f.Summary)
		if err != nil {
			return err
		}
		if issues, err = db.withClaims(ctx, q, p.id, issues, f.Unclaimed); err != nil {
			return err
		}
		var sr *searchResult
		terms := desk.ParseSearch(f.Q)
		if len(terms) > 0 {
			keep := func(is *desk.Issue) bool {
				return desk.PassesPlainFilters(is, &f) && desk.FacetsPassed(is, &f) == desk.AllFacets
			}
			if sr, err = search(ctx, q, p, issues, terms, keep); err != nil {
				return err
			}
		}
		var hits *desk.SearchHits
		if sr != nil {
			hits = &sr.SearchHits
		}
		out = desk.ListIssues(p.Slug, issues, &f, hits)
		if sr != nil && sr.Mode == desk.SearchRanked {
			return sr.excerpts(ctx, q, out.Issues)
		}
		return nil
	})
	return out, err
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

// excerpts names, for each ranked issue of a page, the field its first
// term matched best with the words around the match (desk.Excerpt).
func (sr *searchResult) excerpts(ctx context.Context, q querier, page []*desk.Issue) error {
	var bodies []string
	var comments []int64
	for _, is := range page {
		switch sr.fields[is.ID] {
		case desk.FieldBody:
			bodies = append(bodies, is.ID)
		case desk.FieldComments:
			comments = append(comments, sr.comment[is.ID])
		}
	}
	bodyText := map[string]string{}
	if len(bodies) > 0 {
		err := eachRow(ctx, q, `SELECT p.prefix, i.number, i.body FROM issues i JOIN projects p ON p.id = i.project_id
			WHERE i.id = ANY($1)`, []any{sr.rowids(bodies)}, func(rs pgx.Rows) error {
			var prefix, body string
			var n int
			err := rs.Scan(&prefix, &n, &body)
			bodyText[desk.IssueKey(prefix, n)] = body
			return err
		})
		if err != nil {
			return err
		}
	}
	commentText := map[int64]string{}
	if len(comments) > 0 {
		err := eachRow(ctx, q, `SELECT id, text FROM comments WHERE id = ANY($1)`, []any{comments}, func(rs pgx.Rows) error {
			var id int64
			var text string
			err := rs.Scan(&id, &text)
			commentText[id] = text
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, is := range page {
		f := sr.fields[is.ID]
		if f == 0 {
			continue
		}
		var text string
		switch f {
		case desk.FieldTitle:
			text = is.Title
		case desk.FieldDetails:
			text = desk.DetailsText(is)
		case desk.FieldBody:
			text = bodyText[is.ID]
		case desk.FieldComments:
			text = commentText[sr.comment[is.ID]]
		}
		is.Match = &desk.Match{Field: desk.SearchFieldNames[f], Excerpt: desk.Excerpt(text, sr.terms, sr.prefix)}
	}
	return nil
}

// IssueCount returns how many issues project slug has, merged ones
// included (0 for a project that does not exist).
func (db *DB) IssueCount(ctx context.Context, slug string) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM issues WHERE project_id = (SELECT id FROM projects WHERE slug = $1)`,
		strings.TrimSpace(slug)).Scan(&n)
	return n, err
}
