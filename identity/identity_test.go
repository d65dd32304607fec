package identity_test

import (
	"testing"

	"desk"
	"desk/identity"
)

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]string{"acme/game": "repo acme/game", "mygame": "project mygame", "*": "all "} {
		scope, target, err := identity.ParseTarget(in)
		if err != nil || scope+" "+target != want {
			t.Errorf("ParseTarget(%q) = %s %s, %v; want %s", in, scope, target, err, want)
		}
	}
	for _, bad := range []string{"", "a/b/c", "/game", "acme/"} {
		if _, _, err := identity.ParseTarget(bad); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("ParseTarget(%q) = %v, want invalid", bad, err)
		}
	}
}

func TestTokensAreHashedAndDistinct(t *testing.T) {
	a, b := identity.NewToken(), identity.NewToken()
	if a == b || identity.HashToken(a) == identity.HashToken(b) || identity.HashToken(a) == a {
		t.Fatal("two tokens or their hashes are the same, or the hash is the token")
	}
	if len(identity.HashToken(a)) != 64 {
		t.Fatalf("hash %q", identity.HashToken(a))
	}
}
