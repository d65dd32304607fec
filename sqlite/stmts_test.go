package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"desk"
)

// A statement a write runs is prepared once the write commits and then
// reused, with the same results; a script of several statements and a
// query whose rows are iterated never are.
func TestWritesReusePreparedStatementsAfterTheirFirstCommit(t *testing.T) {
	ctx := context.Background()
	db := testStore(t)
	const insert = `INSERT INTO meta (key, value) VALUES (?, ?)`
	const script = `INSERT INTO meta (key, value) VALUES ('a', '1'); INSERT INTO meta (key, value) VALUES ('b', '2')`
	const iterate = `SELECT key FROM meta ORDER BY key`
	keys := func() []string {
		var out []string
		err := db.update(ctx, func(tx *Tx) error {
			rows, err := tx.QueryContext(ctx, iterate)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var k string
				if err := rows.Scan(&k); err != nil {
					return err
				}
				out = append(out, k)
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, key := range []string{"x1", "x2", "x3"} {
		err := db.update(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, insert, key, "v"); err != nil {
				return err
			}
			var n int
			return tx.QueryRowContext(ctx, `SELECT count(*) FROM meta WHERE key = ?`, key).Scan(&n)
		})
		if err != nil {
			t.Fatal(err)
		}
		if db.writeStmts.stmts[insert] == nil {
			t.Fatalf("after writing %s the insert is not prepared", key)
		}
	}
	if err := db.update(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, script); return err }); err != nil {
		t.Fatal(err)
	}
	got := keys()
	keys()
	want := map[string]bool{"a": true, "b": true, "x1": true, "x2": true, "x3": true}
	for _, k := range got {
		delete(want, k)
	}
	if len(want) > 0 {
		t.Fatalf("missing rows %v in %v", want, got)
	}
	if db.writeStmts.stmts[script] != nil || db.writeStmts.stmts[iterate] != nil {
		t.Fatal("a script or an iterated query was cached")
	}
	// A failing statement fails the same way, cached or not.
	for i := 0; i < 2; i++ {
		err := db.update(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, insert, "x1", "again"); return err })
		if !isUnique(err) {
			t.Fatalf("duplicate key, try %d: %v", i+1, err)
		}
	}
}

// The feed's query is prepared once for the read pool and serves many
// readers at once while a writer appends.
func TestFeedReadsShareOnePreparedStatement(t *testing.T) {
	ctx := context.Background()
	db := testStore(t, "Lava tips are square")
	done := make(chan error, 9)
	go func() {
		for i := 0; i < 40; i++ {
			if _, _, err := db.AddComment(ctx, "MG-1", desk.CommentInput{Author: "owner", Text: "again"}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for r := 0; r < 8; r++ {
		go func() {
			for i := 0; i < 50; i++ {
				cs, err := db.Changes(ctx, desk.ChangeFilter{Project: "mygame"})
				if err != nil {
					done <- err
					return
				}
				for j := 1; j < len(cs); j++ {
					if cs[j].Seq <= cs[j-1].Seq {
						done <- fmt.Errorf("feed out of order: %d after %d", cs[j].Seq, cs[j-1].Seq)
						return
					}
				}
			}
			done <- nil
		}()
	}
	for i := 0; i < 9; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	cs, err := db.Changes(ctx, desk.ChangeFilter{Project: "mygame"})
	if err != nil {
		t.Fatal(err)
	}
	comments := 0
	for _, c := range cs {
		if c.Type == desk.ChangeComment {
			comments++
		}
	}
	if comments != 40 {
		t.Fatalf("the feed shows %d of 40 comments", comments)
	}
	n := 0
	for q := range db.readStmts.stmts {
		if strings.Contains(q, "FROM changes WHERE seq > ?") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d statements prepared for the feed's query", n)
	}
}

// A read prepares the statements it runs for the reads after it, and a
// read that runs a query again while that query's rows are still open gets
// both answers whole.
func TestReadsReusePreparedStatementsAndNestTheirRows(t *testing.T) {
	ctx := context.Background()
	db := testStore(t, "one", "two", "three")
	const q = `SELECT number FROM issues ORDER BY number`
	numbers := func(tx *readTx) ([]int, error) {
		var out []int
		err := eachRow(ctx, tx, q, nil, func(rs *sql.Rows) error {
			var n int
			err := rs.Scan(&n)
			out = append(out, n)
			return err
		})
		return out, err
	}
	if err := db.view(ctx, func(tx *readTx) error { _, err := numbers(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if db.readStmts.stmts[q] == nil {
		t.Fatal("the query is not prepared after a read ran it")
	}
	var got []string
	err := db.view(ctx, func(tx *readTx) error {
		outer, err := tx.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer outer.Close()
		for outer.Next() {
			var n int
			if err := outer.Scan(&n); err != nil {
				return err
			}
			inner, err := numbers(tx)
			if err != nil {
				return err
			}
			got = append(got, fmt.Sprint(n, inner))
		}
		return outer.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 [1 2 3]|2 [1 2 3]|3 [1 2 3]"; strings.Join(got, "|") != want {
		t.Fatalf("nested reads gave %q; want %q", strings.Join(got, "|"), want)
	}
}

// testStore opens a desk in a temp folder, closed when the test ends, with
// one project, mygame (MG), holding an issue for each title.
func testStore(t *testing.T, titles ...string) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	for _, title := range titles {
		if _, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return db
}
