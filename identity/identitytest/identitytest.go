// Package identitytest holds the suite that every backend of
// identity.Store passes unchanged.
package identitytest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"desk"
	"desk/identity"
)

// Store runs the suite against a backend; open returns a new, empty store
// each time it is called.
func Store(t *testing.T, open func(t *testing.T) identity.Store) {
	ctx := context.Background()

	t.Run("AddAndAuthenticate", func(t *testing.T) {
		s := identity.New(open(t))
		id, token, err := s.Add(ctx, "agent-1", identity.Agent)
		if err != nil || id.Name != "agent-1" || id.Kind != identity.Agent {
			t.Fatalf("Add = %+v, %v", id, err)
		}
		if len(token) < 40 || token[:5] != identity.TokenPrefix {
			t.Fatalf("token %q", token)
		}
		c, err := s.Authenticate(ctx, token)
		if err != nil || c.Name != "agent-1" {
			t.Fatalf("Authenticate = %+v, %v", c, err)
		}
		if _, err := s.Authenticate(ctx, token+"x"); desk.ErrorCode(err) != desk.Forbidden {
			t.Fatalf("a wrong token = %v, want forbidden", err)
		}
		if _, _, err := s.Add(ctx, "agent-1", identity.Agent); desk.ErrorCode(err) != desk.Conflict {
			t.Fatalf("a taken name = %v", err)
		}
		for _, bad := range []string{"", "Upper", "with space", "-lead", string(make([]byte, 70))} {
			if _, _, err := s.Add(ctx, bad, identity.Person); desk.ErrorCode(err) != desk.Invalid {
				t.Errorf("Add(%q) = %v, want invalid", bad, err)
			}
		}
		if _, _, err := s.Add(ctx, "x", "robot"); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("a kind that is neither = %v", err)
		}
	})

	t.Run("TokensRevokedOneByOne", func(t *testing.T) {
		s := identity.New(open(t))
		_, first, _ := s.Add(ctx, "ada", identity.Person)
		second, tok, err := s.NewToken(ctx, "ada", "laptop")
		if err != nil || tok.Label != "laptop" {
			t.Fatalf("NewToken = %+v, %v", tok, err)
		}
		list, err := s.Store.Tokens(ctx, "ada")
		if err != nil || len(list) != 2 {
			t.Fatalf("Tokens = %+v, %v", list, err)
		}
		if err := s.Store.RevokeToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, second); desk.ErrorCode(err) != desk.Forbidden {
			t.Fatalf("a revoked token = %v", err)
		}
		if _, err := s.Authenticate(ctx, first); err != nil {
			t.Fatalf("the other token stopped with it: %v", err)
		}
		if err := s.Store.RevokeToken(ctx, 99999); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("revoking a missing token = %v", err)
		}
	})

	t.Run("Grants", func(t *testing.T) {
		s := identity.New(open(t))
		_, token, _ := s.Add(ctx, "bob", identity.Agent)
		if _, err := s.Grant(ctx, "bob", "acme/game", identity.Write); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Grant(ctx, "bob", "mygame", identity.Read); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Grant(ctx, "bob", "acme/game", "root"); desk.ErrorCode(err) != desk.Invalid {
			t.Fatalf("a right that is none = %v", err)
		}
		if _, err := s.Grant(ctx, "nobody", "acme/game", identity.Read); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("a grant to nobody = %v", err)
		}
		if _, err := s.Grant(ctx, "bob", "a/b/c", identity.Read); desk.ErrorCode(err) != desk.Invalid {
			t.Fatalf("a target that is nothing = %v", err)
		}
		c, _ := s.Authenticate(ctx, token)
		checks := []struct {
			slug, project, right string
			want                 bool
		}{
			{"acme/game", "", identity.Read, true},
			{"acme/game", "", identity.Write, true},
			{"acme/game", "", identity.Merge, false},
			{"ACME/game", "", identity.Read, true},
			{"acme/other", "", identity.Read, false},
			{"acme/other", "mygame", identity.Read, true},
			{"acme/other", "mygame", identity.Write, false},
		}
		for _, k := range checks {
			if got := c.Can(k.slug, k.project, k.right); got != k.want {
				t.Errorf("Can(%s, %q, %s) = %v, want %v", k.slug, k.project, k.right, got, k.want)
			}
		}
		if err := s.Store.RemoveGrant(ctx, identity.Grant{Identity: "bob", Scope: identity.ScopeRepo, Target: "acme/game", Right: identity.Write}); err != nil {
			t.Fatal(err)
		}
		if c, _ := s.Authenticate(ctx, token); c.Can("acme/game", "", identity.Read) {
			t.Fatal("a removed grant still gives read")
		}
	})

	t.Run("Owner", func(t *testing.T) {
		s := identity.New(open(t))
		dir := t.TempDir()
		token, err := s.EnsureOwner(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, identity.OwnerTokenFile))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("owner-token: %v, %v; want mode 0600", fi, err)
		}
		again, err := s.EnsureOwner(ctx, dir)
		if err != nil || again != token {
			t.Fatalf("a second EnsureOwner made another token: %v", err)
		}
		c, err := s.Authenticate(ctx, token)
		if err != nil || c.Name != identity.OwnerName || !c.Can("any/repo", "", identity.Merge) || !c.CanProject("p", identity.Admin) {
			t.Fatalf("the owner = %+v, %v", c, err)
		}
		// A token file the desk no longer knows is replaced.
		os.WriteFile(filepath.Join(dir, identity.OwnerTokenFile), []byte("desk_stale\n"), 0o600)
		fresh, err := s.EnsureOwner(ctx, dir)
		if err != nil || fresh == "desk_stale" {
			t.Fatalf("a stale token file was kept: %q, %v", fresh, err)
		}
	})
}
