package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"desk"
	"desk/identity"
)

// identityMigration holds who may use the desk's API: identities, the
// hashes of their tokens (several per identity, each revocable), and their
// grants. access is the granted right ("right" is a word of SQL).
const identityMigration = `
CREATE TABLE identities (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	kind       TEXT NOT NULL,
	created_at TEXT NOT NULL
);

CREATE TABLE identity_tokens (
	id          INTEGER PRIMARY KEY,
	identity_id INTEGER NOT NULL REFERENCES identities(id),
	token_hash  TEXT NOT NULL UNIQUE,
	label       TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	revoked_at  TEXT
);
CREATE INDEX identity_tokens_identity ON identity_tokens(identity_id);

CREATE TABLE identity_grants (
	identity_id INTEGER NOT NULL REFERENCES identities(id),
	scope       TEXT NOT NULL,
	target      TEXT NOT NULL,
	access      TEXT NOT NULL,
	created_at  TEXT NOT NULL,
	PRIMARY KEY (identity_id, scope, target, access)
);
`

// IdentityStore keeps identities in the desk's database. It implements
// identity.Store.
type IdentityStore struct {
	db *DB
}

var _ identity.Store = (*IdentityStore)(nil)

// Identities returns the store of identities.
func (db *DB) Identities() *IdentityStore { return &IdentityStore{db: db} }

// CreateIdentity adds an identity.
func (s *IdentityStore) CreateIdentity(ctx context.Context, name, kind string) (*identity.Identity, error) {
	var id *identity.Identity
	err := s.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(`INSERT INTO identities (name, kind, created_at) VALUES (?, ?, ?)`, name, kind, tx.ts)
		if isUnique(err) {
			return desk.Errorf(desk.Conflict, "the identity %s exists", name)
		}
		if err != nil {
			return err
		}
		n, _ := res.LastInsertId()
		id = &identity.Identity{ID: n, Name: name, Kind: kind, CreatedAt: tx.ts}
		return nil
	})
	return id, err
}

func identityRow(ctx context.Context, q queryer, where string, arg any) (*identity.Identity, error) {
	id := &identity.Identity{}
	err := q.QueryRowContext(ctx, `SELECT i.id, i.name, i.kind, i.created_at FROM identities i `+where, arg).Scan(&id.ID, &id.Name, &id.Kind, &id.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no such identity")
	}
	return id, err
}

// Identity returns an identity by name.
func (s *IdentityStore) Identity(ctx context.Context, name string) (*identity.Identity, error) {
	id, err := identityRow(ctx, s.db.pool(), `WHERE i.name = ?`, name)
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.NotFound, "no identity %s", name).WithHint("desk identity add " + name + " makes it")
	}
	return id, err
}

// Identities lists every identity.
func (s *IdentityStore) Identities(ctx context.Context) ([]*identity.Identity, error) {
	var out []*identity.Identity
	err := eachRow(ctx, s.db.pool(), `SELECT id, name, kind, created_at FROM identities ORDER BY name`, nil, func(rs *sql.Rows) error {
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
	var t *identity.Token
	err := s.db.update(ctx, func(tx *Tx) error {
		id, err := identityRow(tx.ctx, tx, `WHERE i.name = ?`, name)
		if err != nil {
			return desk.Errorf(desk.NotFound, "no identity %s", name)
		}
		res, err := tx.exec(`INSERT INTO identity_tokens (identity_id, token_hash, label, created_at) VALUES (?, ?, ?, ?)`, id.ID, hash, label, tx.ts)
		if err != nil {
			return err
		}
		n, _ := res.LastInsertId()
		t = &identity.Token{ID: n, Identity: name, Label: label, CreatedAt: tx.ts}
		return nil
	})
	return t, err
}

// ByTokenHash returns the identity of a token that is not revoked.
func (s *IdentityStore) ByTokenHash(ctx context.Context, hash string) (*identity.Identity, error) {
	return identityRow(ctx, s.db.pool(), `JOIN identity_tokens t ON t.identity_id = i.id WHERE t.revoked_at IS NULL AND t.token_hash = ?`, hash)
}

// Tokens lists an identity's tokens.
func (s *IdentityStore) Tokens(ctx context.Context, name string) ([]*identity.Token, error) {
	var out []*identity.Token
	err := eachRow(ctx, s.db.pool(), `SELECT t.id, t.label, t.created_at, t.revoked_at FROM identity_tokens t
		JOIN identities i ON i.id = t.identity_id WHERE i.name = ? ORDER BY t.id DESC`, []any{name}, func(rs *sql.Rows) error {
		t := &identity.Token{Identity: name}
		var revoked sql.NullString
		if err := rs.Scan(&t.ID, &t.Label, &t.CreatedAt, &revoked); err != nil {
			return err
		}
		if revoked.Valid {
			t.RevokedAt = &revoked.String
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// RevokeToken stops a token.
func (s *IdentityStore) RevokeToken(ctx context.Context, id int64) error {
	return s.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE identity_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, tx.ts, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return desk.Errorf(desk.NotFound, "no token %d", id)
		}
		return nil
	})
}

// AddGrant gives a right.
func (s *IdentityStore) AddGrant(ctx context.Context, g identity.Grant) error {
	return s.db.update(ctx, func(tx *Tx) error {
		id, err := identityRow(tx.ctx, tx, `WHERE i.name = ?`, g.Identity)
		if err != nil {
			return desk.Errorf(desk.NotFound, "no identity %s", g.Identity)
		}
		_, err = tx.exec(`INSERT INTO identity_grants (identity_id, scope, target, access, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			id.ID, g.Scope, g.Target, g.Right, tx.ts)
		return err
	})
}

// RemoveGrant takes a right back.
func (s *IdentityStore) RemoveGrant(ctx context.Context, g identity.Grant) error {
	return s.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM identity_grants WHERE identity_id = (SELECT id FROM identities WHERE name = ?)
			AND scope = ? AND target = ? AND access = ?`, g.Identity, g.Scope, g.Target, g.Right)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return desk.Errorf(desk.NotFound, "%s holds no %s grant on %s", g.Identity, g.Right, g.Target)
		}
		return nil
	})
}

// Grants lists an identity's grants.
func (s *IdentityStore) Grants(ctx context.Context, name string) ([]identity.Grant, error) {
	out := []identity.Grant{}
	err := eachRow(ctx, s.db.pool(), `SELECT g.scope, g.target, g.access, g.created_at FROM identity_grants g
		JOIN identities i ON i.id = g.identity_id WHERE i.name = ? ORDER BY g.scope, g.target, g.access`, []any{name}, func(rs *sql.Rows) error {
		g := identity.Grant{Identity: name}
		if err := rs.Scan(&g.Scope, &g.Target, &g.Right, &g.CreatedAt); err != nil {
			return err
		}
		out = append(out, g)
		return nil
	})
	return out, err
}
