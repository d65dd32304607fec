package sqlite_test

import (
	"context"
	"testing"
	"time"

	"desk"
	"desk/sqlite"
)

// MustOpen opens a desk in a new temp folder and closes it when the test ends.
func MustOpen(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), tb.TempDir(), sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// MustOpenPair opens two handles on one new folder, closed when the test
// ends: the second stands for another process (the CLI, an MCP server, a
// hook) writing while the first reads.
func MustOpenPair(tb testing.TB) (a, b *sqlite.DB) {
	tb.Helper()
	a = MustOpen(tb)
	b, err := sqlite.Open(context.Background(), a.Dir(), sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	return a, b
}

// MustProject creates project mygame (prefix MG).
func MustProject(tb testing.TB, db *sqlite.DB) *desk.Project {
	tb.Helper()
	p, err := db.CreateProject(context.Background(), desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// MustIssue files an issue with the given fields in project mygame.
func MustIssue(tb testing.TB, db *sqlite.DB, f desk.IssueFields, author string) *desk.IssueDetail {
	tb.Helper()
	is, err := db.CreateIssue(context.Background(), "mygame", f, desk.CreateOptions{Author: author})
	if err != nil {
		tb.Fatal(err)
	}
	return is
}

func ptr[T any](v T) *T { return &v }

// sameLists fails the test unless store a answers every list of project
// mygame in filters with the same bytes as store b; when names the moment.
func sameLists(tb testing.TB, a, b *sqlite.DB, filters []desk.IssueFilter, when string) {
	tb.Helper()
	ctx := context.Background()
	for i, f := range filters {
		la, err := a.Issues(ctx, "mygame", f)
		if err != nil {
			tb.Fatal(err)
		}
		lb, err := b.Issues(ctx, "mygame", f)
		if err != nil {
			tb.Fatal(err)
		}
		ja, _ := la.MarshalJSON()
		jb, _ := lb.MarshalJSON()
		if string(ja) != string(jb) {
			tb.Fatalf("%s, list %d %+v: the answers differ:\n%s\n%s", when, i, f, ja, jb)
		}
	}
}

// fixedClock returns a clock that starts at t and moves one millisecond
// per call, so that every write gets its own time.
func fixedClock(t time.Time) func() time.Time {
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := desk.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}
