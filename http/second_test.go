package http_test

import (
	"context"
	"testing"

	"desk/sqlite"
)

// openSecond opens another handle on a data folder, standing for another
// process (the CLI, an MCP server) writing while the server runs.
func openSecond(t *testing.T, dir string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
