// Package testdesk starts a real desk for tests: a store in a temp data
// folder and the HTTP server on a free loopback port.
package testdesk

import (
	"context"
	"testing"

	deskhttp "desk/http"
	"desk/sqlite"
)

// Desk is a running desk.
type Desk struct {
	URL     string // e.g. http://127.0.0.1:41234
	DataDir string
	DB      *sqlite.DB
	Server  *deskhttp.Server
}

// Start opens a desk in a new temp folder and serves it until the test
// ends.
func Start(tb testing.TB) *Desk {
	tb.Helper()
	return StartIn(tb, tb.TempDir())
}

// StartIn serves the desk in folder dir until the test ends.
func StartIn(tb testing.TB, dir string) *Desk {
	tb.Helper()
	return StartWith(tb, dir, func(*sqlite.DB) deskhttp.Options { return deskhttp.Options{} })
}

// StartWith serves the desk in folder dir until the test ends, with the
// server options that options gives for its store (an agent service, a
// logger); the server always listens on a free loopback port.
func StartWith(tb testing.TB, dir string, options func(*sqlite.DB) deskhttp.Options) *Desk {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	o := options(db)
	o.Addr = "127.0.0.1:0"
	if o.DataDir == "" {
		o.DataDir = db.Dir()
	}
	srv := deskhttp.NewServer(db, o)
	if err := srv.Open(); err != nil {
		db.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		srv.Close()
		db.Close()
	})
	return &Desk{URL: srv.URL(), DataDir: dir, DB: db, Server: srv}
}
