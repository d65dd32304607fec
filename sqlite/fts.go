package sqlite

import (
	"context"
	"fmt"
	"strings"
)

// The search index: two FTS5 tables, derived from the data and never the
// only copy of anything. issue_fts has one
// row per issue (rowid = issues.id) with three columns ranked from most to
// least telling: the title, the details (id, area, tags, reference,
// milestone, place, commands) and the body. comment_fts indexes comments on
// their own, because folding a busy issue's hundreds of comments into one
// row would re-index all of them on every new comment. Triggers keep both
// current; a missing index (a restored backup leaves it out) is rebuilt on
// open. The porter stemmer makes "workers" find "worker".

// detailsExpr renders an issue's details column from the row named x.
const detailsExpr = `concat_ws(' · ',
	(SELECT prefix FROM projects WHERE id = x.project_id) || '-' || x.number,
	nullif(x.area, ''),
	(SELECT group_concat(value, ', ') FROM json_each(x.tags)),
	nullif(x.external_ref, ''),
	nullif(x.milestone, ''),
	nullif(json_extract(x.location, '$.place'), ''),
	(SELECT group_concat(concat_ws(' ', json_extract(value, '$.command'), json_extract(value, '$.label')), ' · ')
		FROM json_each(x.location, '$.commands')),
	nullif(json_extract(x.location, '$.action'), ''))`

// searchIndexVersion names the index's shape; an index of another shape
// is dropped and built again on open.
const searchIndexVersion = "2"

// The index tables are contentless: they hold the words, not the text,
// which stays in issues and comments. A comment's row id in comment_fts is
// its issue's row id in the high 32 bits and its own in the low ones, so a
// search learns the issue of every matching comment without a lookup.
var searchIndexSQL = `
CREATE VIRTUAL TABLE issue_fts USING fts5(title, details, body, content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE comment_fts USING fts5(text, content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2');

CREATE TRIGGER issue_fts_ai AFTER INSERT ON issues BEGIN
	INSERT INTO issue_fts(rowid, title, details, body)
	SELECT x.id, x.title, ` + detailsExpr + `, x.body FROM issues x WHERE x.id = NEW.id;
END;
CREATE TRIGGER issue_fts_au AFTER UPDATE OF title, body, area, tags, external_ref, milestone, location ON issues BEGIN
	DELETE FROM issue_fts WHERE rowid = OLD.id;
	INSERT INTO issue_fts(rowid, title, details, body)
	SELECT x.id, x.title, ` + detailsExpr + `, x.body FROM issues x WHERE x.id = NEW.id;
END;
CREATE TRIGGER issue_fts_ad AFTER DELETE ON issues BEGIN
	DELETE FROM issue_fts WHERE rowid = OLD.id;
END;
CREATE TRIGGER comment_fts_ai AFTER INSERT ON comments BEGIN
	INSERT INTO comment_fts(rowid, text) VALUES ((NEW.issue_id << 32) + NEW.id, NEW.text);
END;
CREATE TRIGGER comment_fts_ad AFTER DELETE ON comments BEGIN
	DELETE FROM comment_fts WHERE rowid = (OLD.issue_id << 32) + OLD.id;
END;
CREATE TRIGGER comment_fts_au AFTER UPDATE OF text, issue_id ON comments BEGIN
	DELETE FROM comment_fts WHERE rowid = (OLD.issue_id << 32) + OLD.id;
	INSERT INTO comment_fts(rowid, text) VALUES ((NEW.issue_id << 32) + NEW.id, NEW.text);
END;

INSERT INTO issue_fts(rowid, title, details, body)
SELECT x.id, x.title, ` + detailsExpr + `, x.body FROM issues x;
INSERT INTO comment_fts(rowid, text) SELECT (issue_id << 32) + id, text FROM comments;
INSERT INTO meta(key, value) VALUES ('search_index', '` + searchIndexVersion + `')
	ON CONFLICT(key) DO UPDATE SET value = excluded.value;
`

// searchIndexObjects are the tables and triggers of the index, for a
// backup to leave out.
var searchIndexObjects = []string{
	"TRIGGER issue_fts_ai", "TRIGGER issue_fts_au", "TRIGGER issue_fts_ad",
	"TRIGGER comment_fts_ai", "TRIGGER comment_fts_ad", "TRIGGER comment_fts_au",
	"TABLE issue_fts", "TABLE comment_fts",
}

// DropSearchIndexSQL removes the search index from a copy of the database.
func DropSearchIndexSQL() string {
	var b strings.Builder
	for _, o := range searchIndexObjects {
		kind, name, _ := strings.Cut(o, " ")
		fmt.Fprintf(&b, "DROP %s IF EXISTS %s;\n", kind, name)
	}
	return b.String()
}

// hasSearchIndex reports whether the search index is there, whole, and of
// this desk's version.
func hasSearchIndex(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('issue_fts', 'comment_fts', 'issue_fts_ai', 'comment_fts_ai')
		AND (SELECT value FROM meta WHERE key = 'search_index') = ?`, searchIndexVersion).Scan(&n)
	return n == 4, err
}

// ensureSearchIndex builds the index when the file has none.
func (db *DB) ensureSearchIndex(ctx context.Context) error {
	if ok, err := hasSearchIndex(ctx, db.write); err != nil || ok {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("build search index: %w", err)
	}
	defer tx.Rollback()
	if ok, err := hasSearchIndex(ctx, tx); err != nil || ok {
		return err
	}
	// A half-built index (an older desk dropped part of it) is removed first.
	if _, err := tx.ExecContext(ctx, DropSearchIndexSQL()); err != nil {
		return fmt.Errorf("build search index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, searchIndexSQL); err != nil {
		return fmt.Errorf("build search index: %w", err)
	}
	return tx.Commit()
}
