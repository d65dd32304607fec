package postgres_test

import (
	"testing"

	"desk/identity"
	"desk/identity/identitytest"
)

// TestIdentityStore runs the identities' suite on PostgreSQL, unchanged.
func TestIdentityStore(t *testing.T) {
	identitytest.Store(t, func(t *testing.T) identity.Store {
		db := open(t, newSchema(t), t.TempDir())
		t.Cleanup(func() { db.Close() })
		return db.Identities()
	})
}
