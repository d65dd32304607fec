// Package storetest is the one test suite of desk's stores: every backend
// of the work's records, the agent sessions and the change feed (the
// embedded SQLite desk and the team server's PostgreSQL) runs it unchanged
// from its own tests, with a Backend that opens fresh stores.
package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"desk"
	"desk/agent"
)

// Store is what the suite tests: every service of the work, the agent
// sessions, and a way to follow the change feed.
type Store interface {
	desk.Service
	agent.Store
	// Watch calls fn with every batch of feed rows committed after seq
	// after, by any handle on the store, until ctx ends.
	Watch(ctx context.Context, after int64, fn func([]*desk.Change)) error
	// The agents' work calls (see work.go).
	Progress(ctx context.Context, id string, n int, p *desk.StepPatch, text, actor string) (*desk.ProgressResult, error)
	IssueTail(ctx context.Context, id string, nComments, nActivity int) (*desk.IssueTail, error)
	OwnerEvents(ctx context.Context, slug string, after int64, limit int) (*desk.OwnerEvents, error)
	Brief(ctx context.Context, slug string) (*desk.Brief, error)
	ProjectSlugs(ctx context.Context) ([]string, error)
	// The managed sessions' records (see sessions.go).
	desk.SessionService
	AgentByLaunch(ctx context.Context, launch string) (json.RawMessage, bool, error)
}

// Backend opens the stores of one backend for the suite.
type Backend struct {
	// New returns a fresh, empty store; the suite closes it when the test
	// ends (through Close).
	New func(tb testing.TB) Store
	// Another returns a second handle on s's store, as another process (a
	// CLI command, an MCP server) or another replica of the server holds.
	Another func(tb testing.TB, s Store) Store
	// Clock makes s take its times from now.
	Clock func(s Store, now func() time.Time)
	// Close closes a store.
	Close func(s Store) error
}

// Open opens a fresh store, closed when the test ends.
func (be *Backend) Open(tb testing.TB) Store {
	tb.Helper()
	s := be.New(tb)
	tb.Cleanup(func() { be.Close(s) })
	return s
}

// Pair opens two handles on one fresh store, closed when the test ends:
// the second stands for another process or replica writing while the
// first reads.
func (be *Backend) Pair(tb testing.TB) (a, b Store) {
	tb.Helper()
	a = be.Open(tb)
	b = be.Other(tb, a)
	return a, b
}

// Other opens another handle on s's store, closed when the test ends.
func (be *Backend) Other(tb testing.TB, s Store) Store {
	tb.Helper()
	o := be.Another(tb, s)
	tb.Cleanup(func() { be.Close(o) })
	return o
}

// SetClock makes s take its times from now.
func (be *Backend) SetClock(s Store, now func() time.Time) { be.Clock(s, now) }

// MustProject creates project mygame (prefix MG).
func MustProject(tb testing.TB, db Store) *desk.Project {
	tb.Helper()
	p, err := db.CreateProject(context.Background(), desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// MustIssue files an issue with the given fields in project mygame.
func MustIssue(tb testing.TB, db Store, f desk.IssueFields, author string) *desk.IssueDetail {
	tb.Helper()
	is, err := db.CreateIssue(context.Background(), "mygame", f, desk.CreateOptions{Author: author})
	if err != nil {
		tb.Fatal(err)
	}
	return is
}

func ptr[T any](v T) *T { return &v }

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

// twoProjects opens a store with projects mygame (MG) and other (OT), and
// a function that files an issue in mygame (or, with kind "other", a bug
// in other) and returns its id.
func twoProjects(t *testing.T, be *Backend) (Store, func(title, kind, source, author string) string) {
	t.Helper()
	db := be.Open(t)
	for _, p := range []desk.NewProject{{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, {Slug: "other", Name: "Other", Prefix: "OT"}} {
		if _, err := db.CreateProject(context.Background(), p, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(title, kind, source, author string) string {
		t.Helper()
		slug := "mygame"
		if kind == "other" {
			slug, kind = "other", "bug"
		}
		d, err := db.CreateIssue(context.Background(), slug, desk.IssueFields{Title: &title, Kind: &kind, Source: &source}, desk.CreateOptions{Author: author})
		if err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	return db, mk
}
