package postgres

import (
	"context"
	"errors"

	"desk"
	"desk/identity"

	"github.com/jackc/pgx/v5"
)

// IdentityStore keeps the team server's identities, token hashes and
// grants in the database. It implements identity.Store. Its writes do not
// take the writers' lock: they append nothing to the change feed, and
// each is one statement or a read and a statement that a foreign key
// keeps honest.
type IdentityStore struct {
	db *DB
}

var _ identity.Store = (*IdentityStore)(nil)

// Identities returns the store of identities.
func (db *DB) Identities() *IdentityStore { return &IdentityStore{db: db} }

func (s *IdentityStore) now() string { return desk.FormatTime(s.db.Now().UTC()) }

// CreateIdentity adds an identity.
func (s *IdentityStore) CreateIdentity(ctx context.Context, name, kind string) (*identity.Identity, error) {
	id := &identity.Identity{Name: name, Kind: kind, CreatedAt: s.now()}
	err := s.db.pool.QueryRow(ctx, `INSERT INTO identities (name, kind, created_at) VALUES ($1, $2, $3) RETURNING id`,
		name, kind, id.CreatedAt).Scan(&id.ID)
	if isUnique(err) {
		return nil, desk.Errorf(desk.Conflict, "the identity %s exists", name)
	}
	if err != nil {
		return nil, err
	}
	return id, nil
}

func identityRow(ctx context.Context, q querier, where string, arg any) (*identity.Identity, error) {
	id := &identity.Identity{}
	err := q.QueryRow(ctx, `SELECT i.id, i.name, i.kind, i.created_at FROM identities i `+where, arg).Scan(&id.ID, &id.Name, &id.Kind, &id.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no such identity")
	}
	return id, err
}

// Identity returns an identity by name.
func (s *IdentityStore) Identity(ctx context.Context, name string) (*identity.Identity, error) {
	id, err := identityRow(ctx, s.db.pool, `WHERE i.name = $1`, name)
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.NotFound, "no identity %s", name).WithHint("desk identity add " + name + " makes it")
	}
	return id, err
}

// Identities lists every identity.
func (s *IdentityStore) Identities(ctx context.Context) ([]*identity.Identity, error) {
	var out []*identity.Identity
	err := eachRow(ctx, s.db.pool, `SELECT id, name, kind, created_at FROM identities ORDER BY name`, nil, func(rs pgx.Rows) error {
		id := &identity.Identity{}
		if err := rs.Scan(&id.ID, &id.Name, &id.Kind, &id.CreatedAt); err != nil {
			return err
		}
		out = append(out, id)
		return nil
	})
	return out, err
}

// AddToken keeps a token's hash.
func (s *IdentityStore) AddToken(ctx context.Context, name, hash, label string) (*identity.Token, error) {
	t := &identity.Token{Identity: name, Label: label, CreatedAt: s.now()}
	err := s.db.pool.QueryRow(ctx, `INSERT INTO identity_tokens (identity_id, token_hash, label, created_at)
		SELECT id, $2, $3, $4 FROM identities WHERE name = $1 RETURNING id`, name, hash, label, t.CreatedAt).Scan(&t.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no identity %s", name)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ByTokenHash returns the identity of a token that is not revoked.
func (s *IdentityStore) ByTokenHash(ctx context.Context, hash string) (*identity.Identity, error) {
	return identityRow(ctx, s.db.pool, `JOIN identity_tokens t ON t.identity_id = i.id WHERE t.revoked_at IS NULL AND t.token_hash = $1`, hash)
}

// Tokens lists an identity's tokens.
func (s *IdentityStore) Tokens(ctx context.Context, name string) ([]*identity.Token, error) {
	var out []*identity.Token
	err := eachRow(ctx, s.db.pool, `SELECT t.id, t.label, t.created_at, t.revoked_at FROM identity_tokens t
		JOIN identities i ON i.id = t.identity_id WHERE i.name = $1 ORDER BY t.id DESC`, []any{name}, func(rs pgx.Rows) error {
		t := &identity.Token{Identity: name}
		if err := rs.Scan(&t.ID, &t.Label, &t.CreatedAt, &t.RevokedAt); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// RevokeToken stops a token; a token revoked before keeps its time.
func (s *IdentityStore) RevokeToken(ctx context.Context, id int64) error {
	tag, err := s.db.pool.Exec(ctx, `UPDATE identity_tokens SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`, s.now(), id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return desk.Errorf(desk.NotFound, "no token %d", id).WithHint("desk token list shows the ids")
	}
	return nil
}

// AddGrant gives a right.
func (s *IdentityStore) AddGrant(ctx context.Context, g identity.Grant) error {
	var found bool
	err := s.db.pool.QueryRow(ctx, `WITH i AS (SELECT id FROM identities WHERE name = $1),
		ins AS (INSERT INTO identity_grants (identity_id, scope, target, access, created_at)
			SELECT id, $2, $3, $4, $5 FROM i ON CONFLICT DO NOTHING)
		SELECT EXISTS (SELECT 1 FROM i)`, g.Identity, g.Scope, g.Target, g.Right, s.now()).Scan(&found)
	if err != nil {
		return err
	}
	if !found {
		return desk.Errorf(desk.NotFound, "no identity %s", g.Identity)
	}
	return nil
}

// RemoveGrant takes a right back.
func (s *IdentityStore) RemoveGrant(ctx context.Context, g identity.Grant) error {
	tag, err := s.db.pool.Exec(ctx, `DELETE FROM identity_grants WHERE identity_id = (SELECT id FROM identities WHERE name = $1)
		AND scope = $2 AND target = $3 AND access = $4`, g.Identity, g.Scope, g.Target, g.Right)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return desk.Errorf(desk.NotFound, "%s holds no %s grant on %s", g.Identity, g.Right, grantTarget(g))
	}
	return nil
}

// grantTarget names a grant's target as a person types it.
func grantTarget(g identity.Grant) string {
	if g.Scope == identity.ScopeAll {
		return "*"
	}
	return g.Target
}

// Grants lists an identity's grants.
func (s *IdentityStore) Grants(ctx context.Context, name string) ([]identity.Grant, error) {
	out := []identity.Grant{}
	err := eachRow(ctx, s.db.pool, `SELECT g.scope, g.target, g.access, g.created_at FROM identity_grants g
		JOIN identities i ON i.id = g.identity_id WHERE i.name = $1 ORDER BY g.scope, g.target, g.access`, []any{name}, func(rs pgx.Rows) error {
		g := identity.Grant{Identity: name}
		if err := rs.Scan(&g.Scope, &g.Target, &g.Right, &g.CreatedAt); err != nil {
			return err
		}
		out = append(out, g)
		return nil
	})
	return out, err
}
