package identity

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"desk"
)

// Service applies the rules of identities over a Store.
type Service struct {
	Store Store
}

// New returns the service over store.
func New(store Store) *Service { return &Service{Store: store} }

// Add makes an identity and its first token, and returns the token: the
// only time it is shown, since the store keeps its hash alone.
func (s *Service) Add(ctx context.Context, name, kind string) (*Identity, string, error) {
	if err := CheckName(name); err != nil {
		return nil, "", err
	}
	if err := CheckKind(kind); err != nil {
		return nil, "", err
	}
	id, err := s.Store.CreateIdentity(ctx, name, kind)
	if err != nil {
		return nil, "", err
	}
	token, _, err := s.NewToken(ctx, name, "first token")
	if err != nil {
		return nil, "", err
	}
	return id, token, nil
}

// NewToken makes another token of an identity (one per machine, say) and
// returns it once.
func (s *Service) NewToken(ctx context.Context, name, label string) (string, *Token, error) {
	if len(label) > 200 {
		return "", nil, desk.Errorf(desk.Invalid, "a token's label is at most 200 characters")
	}
	token := NewToken()
	t, err := s.Store.AddToken(ctx, name, HashToken(token), label)
	if err != nil {
		return "", nil, err
	}
	return token, t, nil
}

// Authenticate returns the caller a token stands for. Forbidden for a
// token that is unknown or revoked: the message never repeats the token.
func (s *Service) Authenticate(ctx context.Context, token string) (*Caller, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, desk.Errorf(desk.Forbidden, "no token")
	}
	id, err := s.Store.ByTokenHash(ctx, HashToken(token))
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.Forbidden, "the token is unknown or revoked").WithHint("ask the desk's owner for a token: desk identity add NAME")
	}
	if err != nil {
		return nil, err
	}
	grants, err := s.Store.Grants(ctx, id.Name)
	if err != nil {
		return nil, err
	}
	return &Caller{Identity: *id, Grants: grants}, nil
}

// ParseTarget reads what a grant names: owner/name is a repository, * is
// everything, and anything else a project's slug.
func ParseTarget(target string) (scope, name string, err error) {
	target = strings.TrimSpace(target)
	switch {
	case target == "*":
		return ScopeAll, "", nil
	case strings.Count(target, "/") == 1 && !strings.HasPrefix(target, "/") && !strings.HasSuffix(target, "/"):
		return ScopeRepo, target, nil
	case target != "" && !strings.Contains(target, "/"):
		return ScopeProject, target, nil
	}
	return "", "", desk.Errorf(desk.Invalid, "%q names no repository (owner/name), project (its slug) or everything (*)", clip(target))
}

// Grant gives identity name a right on target (see ParseTarget).
func (s *Service) Grant(ctx context.Context, name, target, right string) (*Grant, error) {
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
	if err := s.Store.AddGrant(ctx, g); err != nil {
		return nil, err
	}
	return &g, nil
}

// OwnerTokenFile is where the embedded desk keeps its owner's token, in the
// data folder, readable by its user alone.
const OwnerTokenFile = "owner-token"

// EnsureOwner returns the token of the owner's identity on the embedded
// desk, making the identity (every right on everything) and its token on
// first use and keeping the token in <dataDir>/owner-token (mode 0600).
// A token file whose token no longer opens the desk (a restored database)
// is replaced.
func (s *Service) EnsureOwner(ctx context.Context, dataDir string) (string, error) {
	path := filepath.Join(dataDir, OwnerTokenFile)
	if b, err := os.ReadFile(path); err == nil {
		token := strings.TrimSpace(string(b))
		if c, err := s.Authenticate(ctx, token); err == nil && c.Name == OwnerName {
			return token, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the owner's token: %w", err)
	}
	if _, err := s.Store.Identity(ctx, OwnerName); desk.ErrorCode(err) == desk.NotFound {
		if _, err := s.Store.CreateIdentity(ctx, OwnerName, Person); err != nil && desk.ErrorCode(err) != desk.Conflict {
			return "", err
		}
	} else if err != nil {
		return "", err
	}
	if err := s.Store.AddGrant(ctx, Grant{Identity: OwnerName, Scope: ScopeAll, Right: Admin}); err != nil {
		return "", err
	}
	token, _, err := s.NewToken(ctx, OwnerName, OwnerTokenFile)
	if err != nil {
		return "", err
	}
	if err := writePrivate(path, token+"\n"); err != nil {
		return "", fmt.Errorf("keep the owner's token: %w", err)
	}
	return token, nil
}

// writePrivate writes a file only its user can read, through a temporary
// file, so no reader sees half a token.
func writePrivate(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".owner-token-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
