package sqlite_test

import (
	"testing"

	"desk/pair"
	"desk/pair/pairtest"
)

// The store suite every pair backend passes, on a SQLite file in a temp
// folder.
func TestPairStore(t *testing.T) {
	pairtest.Run(t, func(t *testing.T) (pair.Store, string) {
		db := MustOpen(t)
		MustProject(t, db)
		return db, "mygame"
	})
}
