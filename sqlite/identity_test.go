package sqlite_test

import (
	"testing"

	"desk/identity"
	"desk/identity/identitytest"
)

func TestIdentityStore(t *testing.T) {
	identitytest.Store(t, func(t *testing.T) identity.Store { return MustOpen(t).Identities() })
}
