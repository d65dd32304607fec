package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"desk"
)

// Search modes reported in a list's search info.
const (
	searchRanked    = "ranked"
	searchSubstring = "substring"
)

// searchResult is the set of issues a search text matches, with a score
// for each when the match is ranked.
type searchResult struct {
	mode   string
	ids    map[int64]bool
	score  map[int64]float64
	terms  []desk.SearchTerm
	prefix bool // the words matched as prefixes
}

// Column weights of the ranking: a hit in the title counts most, then the
// details, the body, and comments least.
const (
	weightTitle   = 10.0
	weightDetails = 4.0
	weightBody    = 2.0
	// Tiers on top of bm25: every word in the title beats any spread of
	// words; words side by side beat words apart.
	bonusAllInTitle = 200.0
	bonusAdjacent   = 100.0
	bonusIssueText  = 50.0
	commentScale    = 0.2
)

// search finds the issues among heads that the terms match: whole words
// first, then prefixes (both ranked), then plain substrings (unranked). A
// stage that leaves no issue passing keep falls through to the next one.
func (db *DB) search(ctx context.Context, tx *sql.Tx, heads []*row, terms []desk.SearchTerm, keep func(*row) bool) (*searchResult, error) {
	inProject := make(map[int64]*row, len(heads))
	for _, r := range heads {
		inProject[r.rowid] = r
	}
	anyKept := func(ids map[int64]bool) bool {
		for id := range ids {
			if r := inProject[id]; r != nil && keep(r) {
				return true
			}
		}
		return false
	}
	for _, prefix := range []bool{false, true} {
		sr, err := rankedSearch(ctx, tx, terms, prefix, inProject)
		if err != nil {
			return nil, err
		}
		if anyKept(sr.ids) {
			return sr, nil
		}
	}
	return substringSearch(ctx, tx, heads, terms)
}

func rankedSearch(ctx context.Context, tx *sql.Tx, terms []desk.SearchTerm, prefix bool, inProject map[int64]*row) (*searchResult, error) {
	sr := &searchResult{mode: searchRanked, score: map[int64]float64{}, terms: terms, prefix: prefix}
	var all map[int64]bool
	for _, t := range terms {
		expr := t.FTS(prefix)
		set := map[int64]bool{}
		if err := collectIDs(ctx, tx, set, inProject, `SELECT rowid FROM issue_fts WHERE issue_fts MATCH ?`, expr); err != nil {
			return nil, err
		}
		if err := collectIDs(ctx, tx, set, inProject, `SELECT c.issue_id FROM comment_fts f JOIN comments c ON c.id = f.rowid WHERE comment_fts MATCH ?`, expr); err != nil {
			return nil, err
		}
		if all == nil {
			all = set
		} else {
			for id := range all {
				if !set[id] {
					delete(all, id)
				}
			}
		}
		if len(all) == 0 {
			break
		}
	}
	sr.ids = all
	if len(all) == 0 {
		return sr, nil
	}
	exprs := make([]string, len(terms))
	for i, t := range terms {
		exprs[i] = t.FTS(prefix)
	}
	and := strings.Join(exprs, " AND ")
	// Issues whose own text has every word, ranked by bm25 over the columns.
	err := eachScore(ctx, tx, `SELECT rowid, bm25(issue_fts, ?, ?, ?) FROM issue_fts WHERE issue_fts MATCH ?`,
		[]any{weightTitle, weightDetails, weightBody, and}, func(id int64, s float64) {
			if all[id] {
				sr.score[id] += bonusIssueText - s
			}
		})
	if err != nil {
		return nil, err
	}
	err = eachScore(ctx, tx, `SELECT rowid, 0 FROM issue_fts WHERE issue_fts MATCH ?`, []any{"{title} : (" + and + ")"}, func(id int64, _ float64) {
		if all[id] {
			sr.score[id] += bonusAllInTitle
		}
	})
	if err != nil {
		return nil, err
	}
	if words := adjacentWords(terms); words != "" {
		near := "NEAR(" + words + ", 0)"
		err = eachScore(ctx, tx, `SELECT rowid, 0 FROM issue_fts WHERE issue_fts MATCH ?`, []any{near}, func(id int64, _ float64) {
			if all[id] {
				sr.score[id] += bonusAdjacent
			}
		})
		if err != nil {
			return nil, err
		}
		err = eachScore(ctx, tx, `SELECT c.issue_id, 0 FROM comment_fts f JOIN comments c ON c.id = f.rowid WHERE comment_fts MATCH ?`,
			[]any{near}, func(id int64, _ float64) {
				if all[id] && sr.score[id] < bonusAdjacent {
					sr.score[id] += bonusAdjacent * commentScale
				}
			})
		if err != nil {
			return nil, err
		}
	}
	// Comments add a little, so that among equals more talk ranks higher.
	best := map[int64]float64{}
	err = eachScore(ctx, tx, `SELECT c.issue_id, bm25(comment_fts) FROM comment_fts f JOIN comments c ON c.id = f.rowid
		WHERE comment_fts MATCH ?`, []any{strings.Join(exprs, " OR ")}, func(id int64, s float64) {
		if b, ok := best[id]; all[id] && (!ok || s < b) {
			best[id] = s
		}
	})
	for id, s := range best {
		sr.score[id] += -s * commentScale
	}
	return sr, err
}

// adjacentWords returns the single-word terms of a multi-word search as
// the body of an FTS5 NEAR group, or "" when there is nothing to pair.
func adjacentWords(terms []desk.SearchTerm) string {
	if len(terms) < 2 {
		return ""
	}
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		parts = append(parts, t.FTS(false))
	}
	return strings.Join(parts, " ")
}

func collectIDs(ctx context.Context, tx *sql.Tx, set map[int64]bool, keep map[int64]*row, query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		if keep[id] != nil {
			set[id] = true
		}
	}
	return rows.Err()
}

func eachScore(ctx context.Context, tx *sql.Tx, query string, args []any, fn func(int64, float64)) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var s float64
		if err := rows.Scan(&id, &s); err != nil {
			return err
		}
		fn(id, s)
	}
	return rows.Err()
}

// substringSearch matches every term as a plain, case-insensitive substring
// of any field or comment, which finds part of a code name (Store in
// WorldStore). It scans the project, so it runs only when nothing ranks.
func substringSearch(ctx context.Context, tx *sql.Tx, heads []*row, terms []desk.SearchTerm) (*searchResult, error) {
	sr := &searchResult{mode: searchSubstring, ids: map[int64]bool{}, terms: terms}
	if len(heads) == 0 {
		return sr, nil
	}
	var where []string
	args := []any{heads[0].projectID}
	for _, t := range terms {
		pat := "%" + escapeLike(strings.ToLower(t.Raw)) + "%"
		where = append(where, `(lower(i.title) LIKE ?1x ESCAPE '\' OR lower(i.body) LIKE ?1x ESCAPE '\' OR lower(i.area) LIKE ?1x ESCAPE '\'
			OR lower(i.tags) LIKE ?1x ESCAPE '\' OR lower(i.external_ref) LIKE ?1x ESCAPE '\' OR lower(i.milestone) LIKE ?1x ESCAPE '\'
			OR lower(i.location) LIKE ?1x ESCAPE '\' OR lower(p.prefix || '-' || i.number) LIKE ?1x ESCAPE '\'
			OR EXISTS (SELECT 1 FROM comments c WHERE c.issue_id = i.id AND lower(c.text) LIKE ?1x ESCAPE '\'))`)
		args = append(args, pat)
	}
	for i := range where {
		where[i] = strings.ReplaceAll(where[i], "?1x", "?"+itoa(i+2))
	}
	rows, err := tx.QueryContext(ctx, `SELECT i.id FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.project_id = ?1 AND `+
		strings.Join(where, " AND "), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		sr.ids[id] = true
	}
	return sr, rows.Err()
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// excerpts names, for each ranked issue of a page, the field its words
// matched first (title, details, body, comments) with the words around them.
func (db *DB) excerpts(ctx context.Context, tx *sql.Tx, sr *searchResult, page map[int64]*desk.Issue) error {
	exprs := make([]string, len(sr.terms))
	for i, t := range sr.terms {
		exprs[i] = t.FTS(sr.prefix)
	}
	or := strings.Join(exprs, " OR ")
	ids := make([]int64, 0, len(page))
	for id := range page {
		ids = append(ids, id)
	}
	idList := jsonIDs(ids)
	for col, name := range []string{"title", "details", "body"} {
		rows, err := tx.QueryContext(ctx, `SELECT rowid, snippet(issue_fts, ?, '', '', '…', 12) FROM issue_fts
			WHERE issue_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`, col, "{"+name+"} : ("+or+")", idList)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var ex string
			if err := rows.Scan(&id, &ex); err != nil {
				rows.Close()
				return err
			}
			if is := page[id]; is != nil && is.Match == nil {
				is.Match = &desk.Match{Field: name, Excerpt: ex}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	var left []int64
	for id, is := range page {
		if is.Match == nil {
			left = append(left, id)
		}
	}
	if len(left) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT c.issue_id, snippet(comment_fts, 0, '', '', '…', 12) FROM comment_fts f
		JOIN comments c ON c.id = f.rowid WHERE comment_fts MATCH ? AND c.issue_id IN (SELECT value FROM json_each(?))
		ORDER BY bm25(comment_fts)`, or, jsonIDs(left))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ex string
		if err := rows.Scan(&id, &ex); err != nil {
			return err
		}
		if is := page[id]; is != nil && is.Match == nil {
			is.Match = &desk.Match{Field: "comments", Excerpt: ex}
		}
	}
	return rows.Err()
}
