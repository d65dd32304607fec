package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// readIssue reads in eight columns what issueSelect and scanIssue read in
// thirty-four; both must give the same row for every kind of stored value,
// including ones no write path makes (JSON nulls, a separator in a text).
func TestReadIssueMatchesTheWideRead(t *testing.T) {
	db := testStore(t, "plain", "parent", "child", "merged", "target", "odd", "nulls", "full")
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.write.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE issues SET parent_id = 2 WHERE number = 3`)
	exec(`UPDATE issues SET merged_into = 5 WHERE number = 4`)
	exec(`UPDATE issues SET title = 'a` + "\x1f" + `b', body = 'x' WHERE number = 6`)
	exec(`UPDATE issues SET tags = 'null', location = '{"commands":null}', build = 'null', plan = '{"steps":null}' WHERE number = 7`)
	exec(`UPDATE issues SET tags = '["lava","ui"]', area = 'Terrain', size = 'M', milestone = 'beta 1',
		location = '{"commands":[{"command":"/tp 1 2 3","label":"cave"}],"note":"by the lake"}', seed = -42,
		build = '{"label":"b7","number":7,"path":"/tmp/b7"}', source = 'game', external_ref = 'R-9',
		plan = '{"steps":[{"text":"one","status":"done"},{"text":"two","status":"todo"}],"verification":"run it"}',
		plan_done = 1, plan_total = 2, status = 'closed', closed_at = '2026-11-30T10:00:00.000Z',
		last_verdict = 'failed', priority = 'p0', kind = 'check', body = 'line one
line two' WHERE number = 8`)
	for n := 1; n <= 8; n++ {
		var id int64
		if err := db.read.QueryRowContext(ctx, `SELECT id FROM issues WHERE number = ?`, n).Scan(&id); err != nil {
			t.Fatal(err)
		}
		wide, err := scanIssue(db.read.QueryRowContext(ctx, issueSelect(true)+`WHERE i.id = ?`, id))
		if err != nil {
			t.Fatal(err)
		}
		got, err := issueByRowID(ctx, db.read, id)
		if err != nil {
			t.Fatal(err)
		}
		byKey, err := issueByKey(ctx, db.read, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if w, g, k := rowSummary(wide), rowSummary(got), rowSummary(byKey); g != w || k != w {
			t.Errorf("MG-%d:\npacked %s\nby key %s\nwide   %s", n, g, k, w)
		}
	}
}

// rowSummary writes what a read fills in a row.
func rowSummary(r *row) string {
	is, _ := json.Marshal(&r.Issue)
	seed := "none"
	if r.seed != nil {
		seed = fmt.Sprint(*r.seed)
	}
	return fmt.Sprintf("%s row %d project %d %s parent %d merged %d seed %s",
		is, r.rowid, r.projectID, r.prefix, r.parentID, r.mergedID, seed)
}
