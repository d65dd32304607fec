package sqlite_test

import (
	"testing"

	"desk/storetest"
)

// The managed sessions' suite, on the embedded store (each handle another
// open of one folder, as another process makes).
func TestSessionSuite(t *testing.T) { storetest.RunSessions(t, backend) }
