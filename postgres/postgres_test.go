package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/folder"
	"desk/postgres"

	"github.com/jackc/pgx/v5"
)

func mustExec(t *testing.T, url, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func TestMigrationsAreRecordedWithTheirChecksums(t *testing.T) {
	ctx := context.Background()
	url := newSchema(t)
	db := open(t, url, t.TempDir())
	defer db.Close()
	ms, err := postgres.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Pool().Query(ctx, `SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var v int
		var name, sum string
		var at time.Time
		if err := rows.Scan(&v, &name, &sum, &at); err != nil {
			t.Fatal(err)
		}
		if i >= len(ms) || v != ms[i].Version || name != ms[i].Name || sum != ms[i].Checksum || at.IsZero() {
			t.Fatalf("row %d: %d %s %s %v; want %+v", i, v, name, sum, at, ms[i])
		}
		i++
	}
	if i != len(ms) {
		t.Fatalf("%d migrations recorded, want %d", i, len(ms))
	}
	// A second start applies nothing and keeps working.
	again := open(t, url, t.TempDir())
	again.Close()
}

func TestAChangedMigrationStopsTheStartWithTheReason(t *testing.T) {
	url := newSchema(t)
	open(t, url, t.TempDir()).Close()
	mustExec(t, url, `UPDATE schema_migrations SET checksum = 'deadbeefdeadbeef' WHERE version = 1`)
	_, err := postgres.Open(context.Background(), url, postgres.Options{Blobs: folder.New(t.TempDir())})
	if err == nil || !strings.Contains(err.Error(), "0001_work was changed after the database applied it") ||
		!strings.Contains(err.Error(), "add a new migration") {
		t.Fatalf("start on a changed migration: %v", err)
	}
}

func TestADatabaseOfANewerDeskStopsTheStart(t *testing.T) {
	url := newSchema(t)
	open(t, url, t.TempDir()).Close()
	mustExec(t, url, `INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'future', 'x')`)
	_, err := postgres.Open(context.Background(), url, postgres.Options{Blobs: folder.New(t.TempDir())})
	if err == nil || !strings.Contains(err.Error(), "newer desk") {
		t.Fatalf("start on a newer schema: %v", err)
	}
}

func TestAWrongDatabaseURLNamesTheDatabaseNotThePassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://desk:s3cret@127.0.0.1:1/desk?connect_timeout=2", postgres.Options{Blobs: folder.New(t.TempDir())})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("wrong URL: %v", err)
	}
	_, err = postgres.Open(ctx, "postgres://%zz", postgres.Options{Blobs: folder.New(t.TempDir())})
	if err == nil {
		t.Fatal("an unreadable URL opened")
	}
}

// The feed table is the truth: a row whose notification never came (its
// writer died between commit and notify, say) is still handed over, and a
// watcher whose connection is cut connects again and resumes where it was.
func TestWatchCatchesUpWithoutItsNotifications(t *testing.T) {
	ctx := context.Background()
	url := newSchema(t)
	a := open(t, url, t.TempDir())
	defer a.Close()
	b := open(t, url, t.TempDir())
	defer b.Close()
	if _, err := b.CreateProject(ctx, desk.NewProject{Slug: "mygame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	start, _ := a.LastSeq(ctx)
	got := make(chan *desk.Change, 100)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go a.Watch(wctx, start, func(cs []*desk.Change) {
		for _, c := range cs {
			got <- c
		}
	})
	wait := func(what string, match func(*desk.Change) bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case c := <-got:
				if match(c) {
					return
				}
			case <-deadline:
				t.Fatalf("the watcher never handed over %s", what)
			}
		}
	}
	mustExec(t, url, `INSERT INTO changes (project, type, action, created_at) VALUES ('mygame', 'project', 'silent', '2026-01-01T00:00:00.000Z')`)
	wait("a row written without a notification", func(c *desk.Change) bool { return c.Action == "silent" })

	time.Sleep(200 * time.Millisecond) // the watcher is listening again
	mustExec(t, url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
		postgres.FeedApplicationName)
	if _, err := b.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptrTo("after the cut")}, desk.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wait("a write made while its connection was cut", func(c *desk.Change) bool { return c.Issue != nil && *c.Issue == "MG-1" })
}

func ptrTo[T any](v T) *T { return &v }
