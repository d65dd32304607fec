package identity

import (
	"context"
	"fmt"
	"path/filepath"

	"desk"
)

// AdminName is the identity the team server makes on its first start on
// an empty database: a person with every right on everything.
const AdminName = "admin"

// AdminTokenFile is where the team server keeps the first admin token it
// made, in its data folder, readable by its user alone.
const AdminTokenFile = "team-admin-token"

// EnsureTeamAdmin makes the identity admin with every right, and its first
// token, when the database has no identity yet. It returns that token
// (also written to <dataDir>/team-admin-token, mode 0600) and the file's
// path, or "" when the database had identities: the token is shown only
// the once. Replicas that start together race on the name; one makes it.
func (s *Service) EnsureTeamAdmin(ctx context.Context, dataDir string) (token, path string, err error) {
	ids, err := s.Store.Identities(ctx)
	if err != nil {
		return "", "", err
	}
	if len(ids) > 0 {
		return "", "", nil
	}
	if _, err := s.Store.CreateIdentity(ctx, AdminName, Person); err != nil {
		if desk.ErrorCode(err) == desk.Conflict {
			return "", "", nil // another replica made it a moment ago
		}
		return "", "", err
	}
	if err := s.Store.AddGrant(ctx, Grant{Identity: AdminName, Scope: ScopeAll, Right: Admin}); err != nil {
		return "", "", err
	}
	token, _, err = s.NewToken(ctx, AdminName, AdminTokenFile)
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dataDir, AdminTokenFile)
	if err := writePrivate(path, token+"\n"); err != nil {
		return "", "", fmt.Errorf("keep the admin's token in %s: %w", path, err)
	}
	return token, path, nil
}

// IsAdmin reports whether the caller holds admin on everything: it may
// make identities, give and take rights, and manage anyone's tokens.
func (c *Caller) IsAdmin() bool {
	for _, g := range c.Grants {
		if g.Scope == ScopeAll && g.Right == Admin {
			return true
		}
	}
	return false
}

// Revoke stops token id on behalf of the caller: its own tokens, or
// anyone's for an admin. NotFound, not Forbidden, for another's token, so
// that ids cannot be probed.
func (s *Service) Revoke(ctx context.Context, c *Caller, id int64) error {
	if !c.IsAdmin() {
		own, err := s.Store.Tokens(ctx, c.Name)
		if err != nil {
			return err
		}
		mine := false
		for _, t := range own {
			mine = mine || t.ID == id
		}
		if !mine {
			return desk.Errorf(desk.NotFound, "no token %d of %s", id, c.Name).WithHint("desk token list shows the ids")
		}
	}
	return s.Store.RevokeToken(ctx, id)
}

// RemoveGrant takes back a right given with Grant (same target syntax).
func (s *Service) RemoveGrant(ctx context.Context, name, target, right string) (*Grant, error) {
	if err := CheckRight(right); err != nil {
		return nil, err
	}
	scope, t, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.Identity(ctx, name); err != nil {
		return nil, err
	}
	g := Grant{Identity: name, Scope: scope, Target: t, Right: right}
	if err := s.Store.RemoveGrant(ctx, g); err != nil {
		return nil, err
	}
	return &g, nil
}

// AddWithRights is Add, and with admin the right admin on everything.
func (s *Service) AddWithRights(ctx context.Context, name, kind string, admin bool) (*Identity, string, error) {
	id, token, err := s.Add(ctx, name, kind)
	if err != nil || !admin {
		return id, token, err
	}
	if err := s.Store.AddGrant(ctx, Grant{Identity: name, Scope: ScopeAll, Right: Admin}); err != nil {
		return nil, "", err
	}
	return id, token, nil
}
