package identity_test

import (
	"context"
	"testing"
	"time"

	"desk"
	"desk/identity"
	"desk/sqlite"
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

// A cached answer lasts its TTL: a revoked token is refused once it ends.
func TestCacheForgetsAfterItsTTL(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := identity.New(db.Identities())
	_, token, _ := svc.Add(ctx, "ada", identity.Person)
	cache := identity.NewCache(svc, 50*time.Millisecond)
	if c, err := cache.Authenticate(ctx, token); err != nil || c.Name != "ada" {
		t.Fatalf("first = %v, %v", c, err)
	}
	toks, _ := svc.Store.Tokens(ctx, "ada")
	svc.Store.RevokeToken(ctx, toks[0].ID)
	if _, err := cache.Authenticate(ctx, token); err != nil {
		t.Fatalf("within the TTL the cached answer holds: %v", err)
	}
	time.Sleep(60 * time.Millisecond)
	if _, err := cache.Authenticate(ctx, token); desk.ErrorCode(err) != desk.Forbidden {
		t.Fatalf("after the TTL = %v, want forbidden", err)
	}
	if _, err := cache.Authenticate(ctx, "desk_unknown"); desk.ErrorCode(err) != desk.Forbidden {
		t.Fatalf("an unknown token = %v", err)
	}
}
