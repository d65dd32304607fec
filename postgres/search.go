package postgres

import (
	"context"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

// searchResult is what a search found, with what the excerpts need: the
// field each issue's first term matched best in and its first matching
// comment.
type searchResult struct {
	desk.SearchHits
	terms   []desk.SearchTerm
	prefix  bool
	fields  map[string]int
	comment map[string]int64
	byKey   map[string]int64 // the row id of each of the project's issues
}

func (sr *searchResult) rowids(keys []string) []int64 {
	out := make([]int64, 0, len(keys))
	for _, k := range keys {
		out = append(out, sr.byKey[k])
	}
	return out
}

// search finds the project's issues the terms match, under desk's
// ranking (see desk.TermScore): whole words first, then prefixes (both
// ranked, with PostgreSQL's full-text search on the words desk_search
// stems), then plain substrings (unranked). A stage that leaves no issue
// passing keep falls through to the next.
func search(ctx context.Context, q querier, p *projectRow, issues []*desk.Issue, terms []desk.SearchTerm, keep func(*desk.Issue) bool) (*searchResult, error) {
	byRow, byKey := map[int64]*desk.Issue{}, map[string]int64{}
	err := eachRow(ctx, q, `SELECT id, number FROM issues WHERE project_id = $1`, []any{p.id}, func(rs pgx.Rows) error {
		var id int64
		var n int
		err := rs.Scan(&id, &n)
		byKey[desk.IssueKey(p.Prefix, n)] = id
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, is := range issues {
		byRow[byKey[is.ID]] = is
	}
	for _, prefix := range []bool{false, true} {
		sr, err := ranked(ctx, q, p.id, byRow, terms, prefix)
		if err != nil {
			return nil, err
		}
		for k := range sr.IDs {
			if is := byRow[byKey[k]]; is != nil && keep(is) {
				sr.byKey = byKey
				return sr, nil
			}
		}
	}
	sr, err := substring(ctx, q, p, byRow, terms)
	if err != nil {
		return nil, err
	}
	sr.byKey = byKey
	return sr, nil
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

// ranked scores the issues every term matches, each term by the best
// field it stands in (desk.TermScore), with the bonuses for every term in
// the title and for terms side by side.
func ranked(ctx context.Context, q querier, projectID int64, byRow map[int64]*desk.Issue, terms []desk.SearchTerm, prefix bool) (*searchResult, error) {
	sr := &searchResult{SearchHits: desk.SearchHits{Mode: desk.SearchRanked, Score: map[string]float64{}},
		terms: terms, prefix: prefix, fields: map[string]int{}, comment: map[string]int64{}}
	key := func(id int64) string {
		if is := byRow[id]; is != nil {
			return is.ID
		}
		return ""
	}
	inTitle := map[string]int{}
	var all map[string]bool
	for ti, t := range terms {
		tq := tsquery(t, prefix)
		best, extra, talk := map[string]int{}, map[string]int{}, map[string]int{}
		err := eachRow(ctx, q, `SELECT id, title_words @@ query, details_words @@ query, body_words @@ query
			FROM issues, to_tsquery('desk_search', $2) query
			WHERE project_id = $1 AND (title_words @@ query OR details_words @@ query OR body_words @@ query)`,
			[]any{projectID, tq}, func(rs pgx.Rows) error {
				var id int64
				var in [3]bool
				if err := rs.Scan(&id, &in[0], &in[1], &in[2]); err != nil {
					return err
				}
				k := key(id)
				if k == "" {
					return nil
				}
				for f, hit := range in {
					if !hit {
						continue
					}
					if best[k] == 0 {
						best[k] = desk.FieldTitle + f
					} else {
						extra[k]++ // the term stands in more than one field
					}
				}
				if in[0] && inTitle[k] == ti {
					inTitle[k] = ti + 1
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
		err = eachRow(ctx, q, `SELECT c.issue_id, count(*), min(c.id) FROM comments c JOIN issues i ON i.id = c.issue_id,
			to_tsquery('desk_search', $2) query
			WHERE i.project_id = $1 AND c.words @@ query GROUP BY c.issue_id`, []any{projectID, tq}, func(rs pgx.Rows) error {
			var id, first int64
			var n int
			if err := rs.Scan(&id, &n, &first); err != nil {
				return err
			}
			k := key(id)
			if k == "" {
				return nil
			}
			talk[k] = n
			if ti == 0 {
				sr.comment[k] = first
			}
			if best[k] == 0 {
				best[k] = desk.FieldComments
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for k, f := range best {
			sr.Score[k] += desk.TermScore(f, extra[k], talk[k])
			if ti == 0 {
				sr.fields[k] = f
			}
		}
		if all == nil {
			all = make(map[string]bool, len(best))
			for k := range best {
				all[k] = true
			}
		} else {
			for k := range all {
				if best[k] == 0 {
					delete(all, k)
				}
			}
		}
		if len(all) == 0 {
			break
		}
	}
	sr.IDs = all
	for k, n := range inTitle {
		if n == len(terms) && all[k] {
			sr.Score[k] += desk.SearchBonusAllInTitle
		}
	}
	if near := adjacent(terms); near != "" && len(all) > 0 {
		side := map[string]bool{}
		err := eachRow(ctx, q, `SELECT id FROM issues, to_tsquery('desk_search', $2) query
			WHERE project_id = $1 AND (title_words @@ query OR details_words @@ query OR body_words @@ query)`,
			[]any{projectID, near}, func(rs pgx.Rows) error {
				var id int64
				err := rs.Scan(&id)
				if k := key(id); all[k] && !side[k] {
					side[k] = true
					sr.Score[k] += desk.SearchBonusAdjacent
				}
				return err
			})
		if err != nil {
			return nil, err
		}
		err = eachRow(ctx, q, `SELECT DISTINCT c.issue_id FROM comments c JOIN issues i ON i.id = c.issue_id, to_tsquery('desk_search', $2) query
			WHERE i.project_id = $1 AND c.words @@ query`, []any{projectID, near}, func(rs pgx.Rows) error {
			var id int64
			err := rs.Scan(&id)
			if k := key(id); all[k] && !side[k] {
				side[k] = true
				sr.Score[k] += desk.SearchBonusAdjacentComment
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return sr, nil
}

// substring matches every term as a plain, case-insensitive substring of
// any field or comment, which finds part of a code name (Store in
// WorldStore). It runs only when nothing ranks.
func substring(ctx context.Context, q querier, p *projectRow, byRow map[int64]*desk.Issue, terms []desk.SearchTerm) (*searchResult, error) {
	sr := &searchResult{SearchHits: desk.SearchHits{Mode: desk.SearchSubstring, IDs: map[string]bool{}}, terms: terms}
	var where []string
	args := []any{p.id}
	for _, t := range terms {
		args = append(args, strings.ToLower(t.Raw))
		n := "$" + itoa64(int64(len(args)))
		where = append(where, `(strpos(lower(i.title), `+n+`) > 0 OR strpos(lower(i.body), `+n+`) > 0 OR strpos(lower(i.area), `+n+`) > 0
			OR strpos(lower(i.tags), `+n+`) > 0 OR strpos(lower(i.external_ref), `+n+`) > 0 OR strpos(lower(i.milestone), `+n+`) > 0
			OR strpos(lower(i.location), `+n+`) > 0 OR strpos(lower(p.prefix || '-' || i.number), `+n+`) > 0
			OR EXISTS (SELECT 1 FROM comments c WHERE c.issue_id = i.id AND strpos(lower(c.text), `+n+`) > 0))`)
	}
	err := eachRow(ctx, q, `SELECT i.id FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.project_id = $1 AND `+
		strings.Join(where, " AND "), args, func(rs pgx.Rows) error {
		var id int64
		err := rs.Scan(&id)
		if is := byRow[id]; is != nil {
			sr.IDs[is.ID] = true
		}
		return err
	})
	return sr, err
}
