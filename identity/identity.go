// Package identity is who may use a desk over its API: people and agents,
// each with tokens (kept only as hashes, each revocable on its own) and
// grants of rights on repositories, on projects or on everything.
//
// The rules are here: how a token is made and checked, which right implies
// which, what a grant may name. Backends only store (package sqlite for the
// embedded desk); every surface asks Can before it acts.
package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"desk"
)

// Kinds of identity.
const (
	Person = "person"
	Agent  = "agent"
)

// Rights. Each implies the ones before it: merge also writes and reads.
// Admin gives every right on its scope and lets its holder give rights.
const (
	Read  = "read"
	Write = "write"
	Merge = "merge"
	Admin = "admin"
)

// Rights lists the rights in the order they imply each other.
var Rights = []string{Read, Write, Merge, Admin}

// Scopes of a grant.
const (
	ScopeRepo    = "repo"    // one repository, owner/name
	ScopeProject = "project" // one desk project, by slug, and its repositories
	ScopeAll     = "all"     // everything on this desk
)

// OwnerName is the identity of the desk's owner on the embedded desk: it
// holds every right on everything.
const OwnerName = "owner"

// Identity is a person or an agent.
type Identity struct {
	ID        int64  `json:"-"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	CreatedAt string `json:"created_at"`
}

// Token is one of an identity's tokens, as listed: never the token itself.
type Token struct {
	ID        int64   `json:"id"`
	Identity  string  `json:"identity"`
	Label     string  `json:"label"`
	CreatedAt string  `json:"created_at"`
	RevokedAt *string `json:"revoked_at"`
}

// Grant gives an identity a right on a scope.
type Grant struct {
	Identity  string `json:"identity"`
	Scope     string `json:"scope"`
	Target    string `json:"target"` // owner/name, a project slug, or "" for all
	Right     string `json:"right"`
	CreatedAt string `json:"created_at"`
}

// Store keeps identities, token hashes and grants. Errors are *desk.Error
// with NotFound and Conflict where said.
type Store interface {
	// CreateIdentity adds an identity. Conflict when the name is taken.
	CreateIdentity(ctx context.Context, name, kind string) (*Identity, error)
	// Identity returns an identity by name. NotFound when there is none.
	Identity(ctx context.Context, name string) (*Identity, error)
	// Identities lists every identity by name.
	Identities(ctx context.Context) ([]*Identity, error)
	// AddToken keeps the hash of a new token of an identity.
	AddToken(ctx context.Context, identity, hash, label string) (*Token, error)
	// ByTokenHash returns the identity of a token that is not revoked.
	// NotFound for any other hash.
	ByTokenHash(ctx context.Context, hash string) (*Identity, error)
	// Tokens lists an identity's tokens, the newest first.
	Tokens(ctx context.Context, identity string) ([]*Token, error)
	// RevokeToken stops a token. NotFound when there is no such token.
	RevokeToken(ctx context.Context, id int64) error
	// AddGrant gives a right; a grant that exists is left.
	AddGrant(ctx context.Context, g Grant) error
	// RemoveGrant takes a right back. NotFound when it was not given.
	RemoveGrant(ctx context.Context, g Grant) error
	// Grants lists an identity's grants.
	Grants(ctx context.Context, identity string) ([]Grant, error)
}

// namePattern is an identity's name: lower case, digits, and . _ -.
var namePattern = desk.LazyRegexp(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// CheckName refuses a name an identity cannot have.
func CheckName(name string) error {
	if !namePattern().MatchString(name) {
		return desk.Errorf(desk.Invalid, "identity %q: a name is 1 to 64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", clip(name))
	}
	return nil
}

// CheckKind refuses a kind that is not person or agent.
func CheckKind(kind string) error {
	if kind != Person && kind != Agent {
		return desk.Errorf(desk.Invalid, "kind %q: an identity is a person or an agent", clip(kind))
	}
	return nil
}

// CheckRight refuses a right that is not read, write, merge or admin.
func CheckRight(right string) error {
	for _, r := range Rights {
		if r == right {
			return nil
		}
	}
	return desk.Errorf(desk.Invalid, "right %q: a right is read, write, merge or admin", clip(right))
}

// rank orders the rights; 0 for an unknown one.
func rank(right string) int {
	for i, r := range Rights {
		if r == right {
			return i + 1
		}
	}
	return 0
}

// implies reports whether holding right have gives right want.
func implies(have, want string) bool {
	h, w := rank(have), rank(want)
	return h > 0 && w > 0 && h >= w
}

// TokenPrefix starts every token, so a token pasted in the wrong place is
// recognised (and a scanner of secrets can find one).
const TokenPrefix = "desk_"

// NewToken returns a new random token.
func NewToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is what the store keeps of a token. A token holds 256 random
// bits, so a plain SHA-256 cannot be reversed by guessing; a slow hash
// would only slow every request.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// Caller is an authenticated identity with its grants.
type Caller struct {
	Identity
	Grants []Grant
}

// Can reports whether the caller holds right on the repository slug
// (owner/name), which belongs to project ("" for none): through a grant on
// the repository, on its project, or on everything.
func (c *Caller) Can(slug, project, right string) bool {
	for _, g := range c.Grants {
		switch {
		case g.Scope == ScopeAll:
		case g.Scope == ScopeRepo && strings.EqualFold(g.Target, slug):
		case g.Scope == ScopeProject && project != "" && g.Target == project:
		default:
			continue
		}
		if implies(g.Right, right) {
			return true
		}
	}
	return false
}

// CanProject reports whether the caller holds right on a project.
func (c *Caller) CanProject(project, right string) bool {
	for _, g := range c.Grants {
		if (g.Scope == ScopeAll || (g.Scope == ScopeProject && g.Target == project)) && implies(g.Right, right) {
			return true
		}
	}
	return false
}
