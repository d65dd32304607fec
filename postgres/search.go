package postgres

import (
	"context"
	"fmt"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

// searchResult is what a search found: its mode, and each hit's score and
// what its excerpt needs (the field the first term matched best in, the
// first comment it matched), by the issue's row id.
type searchResult struct {
	mode   string
	terms  []desk.SearchTerm
	prefix bool
	hits   map[int64]*searchHit
}

type searchHit struct {
	score   float64
	field   int
	comment int64
}

// table returns the hits as the list's queries join them.
func (sr *searchResult) table() hitTable {
	h := hitTable{ids: make([]int64, 0, len(sr.hits)), scores: make([]float64, 0, len(sr.hits)), ranked: sr.mode == desk.SearchRanked}
	for id, hit := range sr.hits {
		h.ids = append(h.ids, id)
		h.scores = append(h.scores, hit.score)
	}
	return h
}

// search finds the project's issues the terms match, under desk's
// ranking (see desk.TermScore): whole words first, then prefixes (both
// ranked, with PostgreSQL's full-text search on the words desk_search
// stems), then plain substrings (unranked). A stage whose hits the filter
// f keeps none of falls through to the next.
func search(ctx context.Context, q querier, p *projectRow, terms []desk.SearchTerm, f *desk.IssueFilter, now string) (*searchResult, error) {
	for _, prefix := range []bool{false, true} {
		sr, kept, err := ranked(ctx, q, p, terms, prefix, f, now)
		if err != nil || kept {
			return sr, err
		}
	}
	return substring(ctx, q, p, terms)
}

// tsquery renders a term as a query of desk_search's words: a word, or
// the words of a phrase side by side, the last as a prefix when asked.
func tsquery(t desk.SearchTerm, prefix bool) string {
	parts := make([]string, len(t.Words))
	for i, w := range t.Words {
		parts[i] = "'" + w + "'" // words are letters and digits only
		if i == len(t.Words)-1 && (prefix || t.Prefix) {
			parts[i] += ":*"
		}
	}
	return strings.Join(parts, " <-> ")
}

// adjacent renders the query of every term side by side, in any order
// (all orders up to four terms, the order typed past that), or "" when
// there is nothing to pair.
func adjacent(terms []desk.SearchTerm) string {
	if len(terms) < 2 {
		return ""
	}
	phrases := make([]string, len(terms))
	for i, t := range terms {
		phrases[i] = tsquery(desk.SearchTerm{Words: t.Words}, false)
	}
	var orders [][]string
	if len(phrases) <= 4 {
		orders = permutations(phrases)
	} else {
		orders = [][]string{phrases}
	}
	alts := make([]string, len(orders))
	for i, o := range orders {
		alts[i] = "(" + strings.Join(o, " <-> ") + ")"
	}
	return strings.Join(alts, " | ")
}

func permutations(s []string) [][]string {
	if len(s) <= 1 {
		return [][]string{append([]string(nil), s...)}
	}
	var out [][]string
	for i := range s {
		rest := append(append([]string(nil), s[:i]...), s[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{s[i]}, p...))
		}
	}
	return out
}

// termMatch is where one term stands in one issue.
type termMatch struct {
	title, details, body bool
	comments             int64
	first                *int64 // the first comment it stands in
}

// ranked finds, in one statement, the issues every term matches (as whole
// words, or prefixes with prefix set): where each term stands, whether
// the terms stand side by side, and whether f keeps the issue. The
// scores are desk's (desk.TermScore and the bonuses). kept reports
// whether f keeps any hit.
func ranked(ctx context.Context, q querier, p *projectRow, terms []desk.SearchTerm, prefix bool, f *desk.IssueFilter, now string) (sr *searchResult, kept bool, err error) {
	query, args := rankedQuery(p, terms, prefix, f, now)
	sr = &searchResult{mode: desk.SearchRanked, terms: terms, prefix: prefix, hits: map[int64]*searchHit{}}
	kept, err = scanRanked(ctx, q, query, args, terms, sr)
	if err != nil {
		return nil, false, err
	}
	return sr, kept, nil
}

// rankedQuery is ranked's statement and its arguments.
func rankedQuery(p *projectRow, terms []desk.SearchTerm, prefix bool, f *desk.IssueFilter, now string) (string, sqlArgs) {
	var args sqlArgs
	keep := newListFilter(f, p, now, &args).all()
	var cols, joins, where []string
	for ti, t := range terms {
		tq := "to_tsquery('desk_search', " + args.add(tsquery(t, prefix)) + ")"
		cols = append(cols, fmt.Sprintf("i.title_words @@ %[1]s, i.details_words @@ %[1]s, i.body_words @@ %[1]s, coalesce(c%[2]d.n, 0), c%[2]d.first", tq, ti))
		joins = append(joins, fmt.Sprintf(`LEFT JOIN (SELECT issue_id, count(*) AS n, min(id) AS first FROM comments
	WHERE words @@ %[1]s GROUP BY issue_id) c%[2]d ON c%[2]d.issue_id = i.id`, tq, ti))
		where = append(where, fmt.Sprintf("(i.title_words @@ %[1]s OR i.details_words @@ %[1]s OR i.body_words @@ %[1]s OR c%[2]d.n IS NOT NULL)", tq, ti))
	}
	near := "false, false"
	if a := adjacent(terms); a != "" {
		nq := "to_tsquery('desk_search', " + args.add(a) + ")"
		near = fmt.Sprintf(`(i.title_words @@ %[1]s OR i.details_words @@ %[1]s OR i.body_words @@ %[1]s),
	EXISTS (SELECT 1 FROM comments cm WHERE cm.issue_id = i.id AND cm.words @@ %[1]s)`, nq)
	}
	query := "SELECT i.id, " + strings.Join(cols, ", ") + ", " + near + ", (" + keep + ")\nFROM issues i " +
		strings.Join(joins, "\n") + "\nWHERE i.project_id = " + args.add(p.id) + " AND " + strings.Join(where, " AND ")
	return query, args
}

func scanRanked(ctx context.Context, q querier, query string, args sqlArgs, terms []desk.SearchTerm, sr *searchResult) (kept bool, err error) {
	matches := make([]termMatch, len(terms))
	var id int64
	var nearFields, nearComments, keeps bool
	dest := []any{&id}
	for i := range matches {
		m := &matches[i]
		dest = append(dest, &m.title, &m.details, &m.body, &m.comments, &m.first)
	}
	dest = append(dest, &nearFields, &nearComments, &keeps)
	err = eachRow(ctx, q, query, planned(args), func(rs pgx.Rows) error {
		if err := rs.Scan(dest...); err != nil {
			return err
		}
		kept = kept || keeps
		sr.hits[id] = score(matches, nearFields, nearComments)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	return kept, nil
}

// score is desk's score of an issue every term stands in: each term by
// the best field it stands in, every term in the title, the terms side by
// side in a field or else in a comment.
func score(matches []termMatch, nearFields, nearComments bool) *searchHit {
	h := &searchHit{}
	allInTitle := true
	for i, m := range matches {
		best, extra := 0, 0
		for f, in := range []bool{m.title, m.details, m.body} {
			switch {
			case !in:
			case best == 0:
				best = desk.FieldTitle + f
			default:
				extra++
			}
		}
		if best == 0 {
			best = desk.FieldComments
		}
		h.score += desk.TermScore(best, extra, int(m.comments))
		allInTitle = allInTitle && m.title
		if i == 0 {
			h.field = best
			if m.first != nil {
				h.comment = *m.first
			}
		}
	}
	if allInTitle {
		h.score += desk.SearchBonusAllInTitle
	}
	switch {
	case nearFields:
		h.score += desk.SearchBonusAdjacent
	case nearComments:
		h.score += desk.SearchBonusAdjacentComment
	}
	return h
}

// substring matches every term as a plain, case-insensitive substring of
// any field or comment, which finds part of a code name (Store in
// WorldStore). It runs only when nothing ranks.
func substring(ctx context.Context, q querier, p *projectRow, terms []desk.SearchTerm) (*searchResult, error) {
	sr := &searchResult{mode: desk.SearchSubstring, terms: terms, hits: map[int64]*searchHit{}}
	var args sqlArgs
	where := []string{"i.project_id = " + args.add(p.id)}
	for _, t := range terms {
		n := args.add(strings.ToLower(t.Raw))
		where = append(where, `(strpos(lower(i.title), `+n+`) > 0 OR strpos(lower(i.body), `+n+`) > 0 OR strpos(lower(i.area), `+n+`) > 0
			OR strpos(lower(i.tags), `+n+`) > 0 OR strpos(lower(i.external_ref), `+n+`) > 0 OR strpos(lower(i.milestone), `+n+`) > 0
			OR strpos(lower(i.location), `+n+`) > 0 OR strpos(lower(p.prefix || '-' || i.number), `+n+`) > 0
			OR EXISTS (SELECT 1 FROM comments c WHERE c.issue_id = i.id AND strpos(lower(c.text), `+n+`) > 0))`)
	}
	err := eachRow(ctx, q, `SELECT i.id FROM issues i JOIN projects p ON p.id = i.project_id WHERE `+strings.Join(where, " AND "),
		planned(args), func(rs pgx.Rows) error {
			var id int64
			err := rs.Scan(&id)
			sr.hits[id] = &searchHit{}
			return err
		})
	return sr, err
}

// excerpts names, for each ranked issue of a page, the field its first
// term matched best with the words around the match (desk.Excerpt).
func (sr *searchResult) excerpts(ctx context.Context, q querier, page []*row) error {
	var bodies, comments []int64
	for _, r := range page {
		if h := sr.hits[r.rowid]; h != nil {
			switch h.field {
			case desk.FieldBody:
				bodies = append(bodies, r.rowid)
			case desk.FieldComments:
				comments = append(comments, h.comment)
			}
		}
	}
	text := map[int64]string{} // bodies by issue row
	commentText := map[int64]string{}
	if len(bodies) > 0 {
		err := eachRow(ctx, q, `SELECT id, body FROM issues WHERE id = ANY($1)`, []any{bodies}, func(rs pgx.Rows) error {
			var id int64
			var body string
			err := rs.Scan(&id, &body)
			text[id] = body
			return err
		})
		if err != nil {
			return err
		}
	}
	if len(comments) > 0 {
		err := eachRow(ctx, q, `SELECT id, text FROM comments WHERE id = ANY($1)`, []any{comments}, func(rs pgx.Rows) error {
			var id int64
			var t string
			err := rs.Scan(&id, &t)
			commentText[id] = t
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, r := range page {
		h := sr.hits[r.rowid]
		if h == nil || h.field == 0 {
			continue
		}
		var t string
		switch h.field {
		case desk.FieldTitle:
			t = r.Title
		case desk.FieldDetails:
			t = desk.DetailsText(&r.Issue)
		case desk.FieldBody:
			t = text[r.rowid]
		case desk.FieldComments:
			t = commentText[h.comment]
		}
		r.Match = &desk.Match{Field: desk.SearchFieldNames[h.field], Excerpt: desk.Excerpt(t, sr.terms, sr.prefix)}
	}
	return nil
}
