package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"desk"
)

// Search modes reported in a list's search info.
const (
	searchRanked    = desk.SearchRanked
	searchSubstring = desk.SearchSubstring
)

// searchResult is the set of issues a search text matches, with a score
// for each when the match is ranked.
type searchResult struct {
	mode   string
	ids    map[int64]bool
	rows   []*head // the project's rows among ids, in no order
	score  map[int64]float64
	terms  []desk.SearchTerm
	prefix bool // the words matched as prefixes

	fields   map[int64]int   // the first term's best field: fieldTitle ...
	comment  map[int64]int64 // the comment that best matched the first term
	inTitle  map[int64]int   // how many leading terms the title holds
	adjacent map[int64]bool
}

// Fields a ranked match can name, and the ranking's weights: the domain's
// (see desk.TermScore).
const (
	fieldTitle    = desk.FieldTitle
	fieldDetails  = desk.FieldDetails
	fieldBody     = desk.FieldBody
	fieldComments = desk.FieldComments

	weightTitle          = desk.SearchWeightTitle
	weightDetails        = desk.SearchWeightDetails
	weightBody           = desk.SearchWeightBody
	weightComments       = desk.SearchWeightComments
	weightExtraField     = desk.SearchWeightExtraField
	weightPerComment     = desk.SearchWeightPerComment
	bonusAllInTitle      = desk.SearchBonusAllInTitle
	bonusAdjacent        = desk.SearchBonusAdjacent
	bonusAdjacentComment = desk.SearchBonusAdjacentComment
)

var fieldNames = desk.SearchFieldNames

// search finds the issues among heads that the terms match: whole words
// first, then prefixes (both ranked), then plain substrings (unranked). A
// stage that leaves no issue passing keep falls through to the next one.
func (db *DB) search(ctx context.Context, tx queryer, heads []*head, terms []desk.SearchTerm, keep func(*head) bool) (*searchResult, error) {
	inProject := db.rowsByID.of(heads)
	anyKept := func(ids map[int64]bool) bool {
		for id := range ids {
			if r := inProject.get(id); r != nil && keep(r) {
				return true
			}
		}
		return false
	}
	var sr *searchResult
	for _, prefix := range []bool{false, true} {
		ranked, err := db.ranked(ctx, tx, heads, terms, prefix, inProject)
		if err != nil {
			return nil, err
		}
		if anyKept(ranked.ids) {
			sr = ranked
			break
		}
	}
	if sr == nil {
		var err error
		if sr, err = substringSearch(ctx, tx, heads, terms); err != nil {
			return nil, err
		}
	}
	out := *sr // a ranked result may be kept and shared: its copy gets the rows
	out.rows = matchedRows(sr.ids, inProject)
	return &out, nil
}

// matchedRows returns the project's rows among ids, in no order. A list
// walks these instead of every row of the project: a search of a project
// of 75,000 issues matches a few thousand.
func matchedRows(ids map[int64]bool, inProject rowsByID) []*head {
	rows := make([]*head, 0, len(ids))
	for id := range ids {
		if r := inProject.get(id); r != nil {
			rows = append(rows, r)
		}
	}
	return rows
}

func rankedSearch(ctx context.Context, tx queryer, terms []desk.SearchTerm, prefix bool, inProject rowsByID, scope ftsScope) (*searchResult, error) {
	sr := &searchResult{mode: searchRanked, score: map[int64]float64{}, terms: terms, prefix: prefix,
		fields: map[int64]int{}, comment: map[int64]int64{}}
	var all map[int64]bool
	weights := [...]float64{fieldTitle: weightTitle, fieldDetails: weightDetails, fieldBody: weightBody, fieldComments: weightComments}
	for ti, t := range terms {
		expr := t.FTS(prefix)
		best := newIssueTally(inProject) // the best field this term hit, per issue
		// One pass per column over the term's matches: cheaper than asking
		// the ranking function, which looks up every document's length.
		for f, col := range []string{"title", "details", "body"} {
			field := fieldTitle + f
			err := scope.issues(ctx, tx, "{"+col+"} : "+expr, func(id int64) {
				if inProject.get(id) == nil {
					return
				}
				if best.get(id) == 0 {
					best.set(id, int32(field))
				} else {
					sr.score[id] += weightExtraField // the term stands in more than one field
				}
				if field == fieldTitle {
					sr.titleHits(id, ti)
				}
			})
			if err != nil {
				return nil, err
			}
		}
		talk := newIssueTally(inProject)
		err := scope.comments(ctx, tx, expr, func(key int64) {
			id := key >> 32
			if inProject.get(id) == nil {
				return
			}
			if n := key & 0xffffffff; ti == 0 && (talk.get(id) == 0 || n < sr.comment[id]) {
				sr.comment[id] = n // the issue's first matching comment
			}
			talk.set(id, talk.get(id)+1)
			if best.get(id) == 0 {
				best.set(id, fieldComments)
			}
		})
		if err != nil {
			return nil, err
		}
		for _, id := range best.ids {
			f := best.get(id)
			sr.score[id] += weights[f] + weightPerComment*float64(min(talk.get(id), 5))
			if ti == 0 {
				sr.fields[id] = int(f)
			}
		}
		if all == nil {
			all = make(map[int64]bool, len(best.ids))
			for _, id := range best.ids {
				all[id] = true
			}
		} else {
			for id := range all {
				if best.get(id) == 0 {
					delete(all, id)
				}
			}
		}
		if len(all) == 0 {
			break
		}
	}
	sr.ids = all
	for id, n := range sr.inTitle {
		if n == len(terms) && all[id] {
			sr.score[id] += bonusAllInTitle
		}
	}
	if len(all) == 0 {
		return sr, nil
	}
	if words := adjacentWords(terms); words != "" {
		near := "NEAR(" + words + ", 0)"
		adjacent := func(bonus float64) func(int64) {
			return func(id int64) {
				if all[id] && !sr.adjacent[id] {
					if sr.adjacent == nil {
						sr.adjacent = map[int64]bool{}
					}
					sr.adjacent[id] = true
					sr.score[id] += bonus
				}
			}
		}
		if err := scope.issues(ctx, tx, near, adjacent(bonusAdjacent)); err != nil {
			return nil, err
		}
		toIssue := adjacent(bonusAdjacentComment)
		if err := scope.comments(ctx, tx, near, func(key int64) { toIssue(key >> 32) }); err != nil {
			return nil, err
		}
	}
	return sr, nil
}

// ftsScope is where a ranked search looks: at every issue, or only at some
// (the issues changed since a kept result was read, see searchCache).
// Looking at every issue, a long-lived process keeps what the issues' own
// text matched (kept).
type ftsScope struct {
	only []int64
	kept *textMatchesAt
}

// issueMatches reads the row ids of the issues whose own text matches.
const issueMatches = `SELECT group_concat(rowid) FROM issue_fts WHERE issue_fts MATCH ?`

// issues calls fn with the row id of each issue whose text matches.
func (s ftsScope) issues(ctx context.Context, tx queryer, match string, fn func(int64)) error {
	switch {
	case s.only != nil:
		return eachRowID(ctx, tx, issueMatches+` AND rowid IN (SELECT value FROM json_each(?))`, []any{match, jsonIDs(s.only)}, fn)
	case s.kept != nil:
		return s.kept.each(ctx, tx, match, fn)
	default:
		return eachRowID(ctx, tx, issueMatches, []any{match}, fn)
	}
}

// comments calls fn with the row id of each comment whose text matches:
// its issue's id in the high 32 bits and its number in the low ones, so
// that an issue's comments are one range of row ids.
func (s ftsScope) comments(ctx context.Context, tx queryer, match string, fn func(int64)) error {
	if s.only == nil {
		return eachRowID(ctx, tx, `SELECT group_concat(rowid) FROM comment_fts WHERE comment_fts MATCH ?`, []any{match}, fn)
	}
	// One query per span of nearby issues. Each query visits every
	// segment of the index, which costs about the same whatever its range
	// (0.26 ms on the large generated desk), so a query per issue cost
	// more than one over all of them; but one query over a wide range
	// reads every match in between (0.17 µs each: 6.9 ms across that
	// desk), and the issues an owner's search looks at again are often
	// far apart (an old busy issue, and ones filed today). Issues closer
	// than commentSpanGap share a query.
	in := make(map[int64]bool, len(s.only))
	for _, id := range s.only {
		in[id] = true
	}
	keep := func(key int64) {
		if in[key>>32] {
			fn(key)
		}
	}
	ids := slices.Sorted(maps.Keys(in))
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1]-ids[j] <= commentSpanGap {
			j++
		}
		if err := eachRowID(ctx, tx, `SELECT group_concat(rowid) FROM comment_fts WHERE comment_fts MATCH ? AND rowid BETWEEN ? AND ?`,
			[]any{match, ids[i] << 32, ids[j]<<32 | 0xffffffff}, keep); err != nil {
			return err
		}
		i = j + 1
	}
	return nil
}

// commentSpanGap is how far apart, in row ids, two issues may be for one
// query to look at both's comments: the matches of the issues between
// (about 0.4 per issue where the word is common) then cost less than a
// query of its own. Tests set it to 0, for a query per issue.
var commentSpanGap int64 = 2048

// titleHits counts, per issue, the terms its title holds.
func (sr *searchResult) titleHits(id int64, term int) {
	if sr.inTitle == nil {
		sr.inTitle = map[int64]int{}
	}
	if sr.inTitle[id] == term {
		sr.inTitle[id] = term + 1
	}
}

func eachRow(ctx context.Context, tx queryer, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// issueTally holds a small number per issue of a project (0: none), in a
// slice over the project's row ids where they are dense (see rowsByID),
// else in a map. A search of a large project counts, per word, the field
// and the comments of tens of thousands of issues: in maps that was most
// of its time once the full-text queries were kept.
type issueTally struct {
	first  int64
	dense  []int32
	sparse map[int64]int32
	ids    []int64 // the issues set, in the order they were first set
}

func newIssueTally(in rowsByID) *issueTally {
	if in.byID != nil || in.dense == nil {
		return &issueTally{sparse: map[int64]int32{}}
	}
	return &issueTally{first: in.first, dense: make([]int32, len(in.dense))}
}

// get returns the number of issue id (0 for an issue not in the project).
func (t *issueTally) get(id int64) int32 {
	if t.sparse != nil {
		return t.sparse[id]
	}
	if i := id - t.first; i >= 0 && i < int64(len(t.dense)) {
		return t.dense[i]
	}
	return 0
}

// set sets the number of issue id, which must be in the project, to v,
// which must not be 0.
func (t *issueTally) set(id int64, v int32) {
	if t.get(id) == 0 {
		t.ids = append(t.ids, id)
	}
	if t.sparse != nil {
		t.sparse[id] = v
		return
	}
	t.dense[id-t.first] = v
}

// rowsByID finds a project's rows by row id. Row ids count up desk-wide,
// so a project's are mostly dense: a slice over their range is built and
// read several times faster than a map, which a search of a large project
// built anew for its 75,000 rows and asked once per match. A project whose
// ids are sparse (a small one on a large desk) gets the map.
type rowsByID struct {
	first int64
	dense []*head
	byID  map[int64]*head
}

func newRowsByID(rows []*head) rowsByID {
	if len(rows) == 0 {
		return rowsByID{}
	}
	lo, hi := rows[0].rowid, rows[0].rowid
	for _, r := range rows {
		lo, hi = min(lo, r.rowid), max(hi, r.rowid)
	}
	if span := hi - lo + 1; span <= 4*int64(len(rows))+1024 {
		m := rowsByID{first: lo, dense: make([]*head, span)}
		for _, r := range rows {
			m.dense[r.rowid-lo] = r
		}
		return m
	}
	m := rowsByID{byID: make(map[int64]*head, len(rows))}
	for _, r := range rows {
		m.byID[r.rowid] = r
	}
	return m
}

// keptRowsByID keeps each project's last rowsByID with the heads it was
// made from. Made anew, one took a search of a project of 75,000 issues
// two milliseconds; between two searches a busy desk replaces a few
// heads, which a copy of the slice takes in and gives out. The zero value
// is ready to use.
type keptRowsByID struct {
	mu   sync.Mutex
	kept map[int64]keptRows // by project id
}

type keptRows struct {
	from []*head
	m    rowsByID // never changed once kept
}

// of returns heads, one project's in row id order, by row id.
func (k *keptRowsByID) of(heads []*head) rowsByID {
	if len(heads) == 0 {
		return rowsByID{}
	}
	project := heads[0].projectID
	k.mu.Lock()
	old, ok := k.kept[project]
	k.mu.Unlock()
	if ok && sameHeads(old.from, heads) {
		return old.m
	}
	m, patched := old.m.patched(old.from, heads)
	if !ok || !patched {
		m = newRowsByID(heads)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.kept == nil {
		k.kept = map[int64]keptRows{}
	}
	k.kept[project] = keptRows{from: heads, m: m}
	return m
}

// patched returns m, made from the heads from, brought up to heads; false
// when m is a map, too much changed, or a new head falls outside m's
// range.
func (m rowsByID) patched(from, heads []*head) (rowsByID, bool) {
	if m.dense == nil {
		return rowsByID{}, false
	}
	gone, came, ok := changedHeads(from, heads, len(heads)/8+16)
	if !ok {
		return rowsByID{}, false
	}
	for _, r := range came {
		if i := r.rowid - m.first; i < 0 || i >= int64(len(m.dense)) {
			return rowsByID{}, false
		}
	}
	n := rowsByID{first: m.first, dense: slices.Clone(m.dense)}
	for _, r := range gone {
		if i := r.rowid - m.first; i >= 0 && i < int64(len(n.dense)) && n.dense[i] == r {
			n.dense[i] = nil
		}
	}
	for _, r := range came {
		n.dense[r.rowid-m.first] = r
	}
	return n, true
}

// get returns the row with id, or nil when the project has none.
func (m rowsByID) get(id int64) *head {
	if m.byID != nil {
		return m.byID[id]
	}
	if i := id - m.first; i >= 0 && i < int64(len(m.dense)) {
		return m.dense[i]
	}
	return nil
}

// eachRowID calls fn with each id of the comma-separated list query gives
// in its one row and column (a group_concat of row ids). A search reads
// tens of thousands of matches on a large desk: SQLite joins them in one
// step, where reading them as rows cost the driver a microsecond each.
func eachRowID(ctx context.Context, tx queryer, query string, args []any, fn func(int64)) error {
	var list sql.NullString
	if err := tx.QueryRowContext(ctx, query, args...).Scan(&list); err != nil {
		return err
	}
	for rest := list.String; rest != ""; {
		field := rest
		if i := strings.IndexByte(rest, ','); i >= 0 {
			field, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		id, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return fmt.Errorf("read a row id list: %w", err)
		}
		fn(id)
	}
	return nil
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

// substringSearch matches every term as a plain, case-insensitive substring
// of any field or comment, which finds part of a code name (Store in
// WorldStore). It scans the project, so it runs only when nothing ranks.
func substringSearch(ctx context.Context, tx queryer, heads []*head, terms []desk.SearchTerm) (*searchResult, error) {
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

// textByID runs a query of (id, text) rows for the ids given.
func textByID(ctx context.Context, tx queryer, query string, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	err := eachRow(ctx, tx, query, []any{jsonIDs(ids)}, func(rs *sql.Rows) error {
		var id int64
		var text string
		err := rs.Scan(&id, &text)
		out[id] = text
		return err
	})
	return out, err
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// excerpts names, for each ranked issue of a page, the field its first
// word matched best (title, details, body, comments) with the words around
// the match. The ranking already told the field; the words are cut from
// the text here, which costs no more index passes.
func (db *DB) excerpts(ctx context.Context, tx queryer, sr *searchResult, page map[int64]*desk.Issue, rows map[int64]*head) error {
	// An excerpt depends on the words searched, the field and (for
	// comments) the comment: a row that has not changed keeps the last one.
	var words strings.Builder
	for _, t := range sr.terms {
		words.WriteString(t.FTS(sr.prefix))
		words.WriteByte(' ')
	}
	key := func(id int64) string {
		return words.String() + "|" + strconv.Itoa(sr.fields[id]) + "|" + strconv.FormatInt(sr.comment[id], 10)
	}
	var bodies, comments []int64
	for id, is := range page {
		f := sr.fields[id]
		if f == 0 {
			continue
		}
		if c := rows[id].cache.excerpt.Load(); c != nil && c.key == key(id) {
			m := c.match
			is.Match = &m
			continue
		}
		switch f {
		case fieldBody:
			bodies = append(bodies, id)
		case fieldComments:
			comments = append(comments, sr.comment[id])
		}
	}
	bodyText, err := textByID(ctx, tx, `SELECT id, body FROM issues WHERE id IN (SELECT value FROM json_each(?))`, bodies)
	if err != nil {
		return err
	}
	commentText, err := textByID(ctx, tx, `SELECT issue_id, text FROM comments WHERE id IN (SELECT value FROM json_each(?))`, comments)
	if err != nil {
		return err
	}
	for id, is := range page {
		f := sr.fields[id]
		if f == 0 || is.Match != nil {
			continue
		}
		var text string
		switch f {
		case fieldTitle:
			text = is.Title
		case fieldDetails:
			text = desk.DetailsText(is)
		case fieldBody:
			text = bodyText[id]
		case fieldComments:
			text = commentText[id]
		}
		m := desk.Match{Field: fieldNames[f], Excerpt: desk.Excerpt(text, sr.terms, sr.prefix)}
		is.Match = &m
		rows[id].cache.excerpt.Store(&cachedExcerpt{key: key(id), match: m})
	}
	return nil
}
