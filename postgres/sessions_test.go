package postgres_test

import (
	"testing"

	"desk/storetest"
)

// The managed sessions' suite, on PostgreSQL (each handle another pool,
// as another replica holds).
func TestSessionSuite(t *testing.T) { storetest.RunSessions(t, backend) }
