package cli

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"desk"
	"desk/credential"
	"desk/folder"
	deskhttp "desk/http"
	"desk/identity"
	"desk/postgres"
)

func init() {
	Register(&Command{Name: "revoke-grant", Summary: "take back a right given with desk grant", Run: runRevokeGrant})
	Register(&Command{Name: "token", Summary: "an identity's tokens: new (shown once), list (never the tokens), revoke", Run: runToken})
}

// The commands that manage identities run on one of three desks: the
// local one (the data folder), a team server through its API (--server,
// with an admin's token), or a team server's database itself (--db, for
// its operator, with no server running).

// identityAdmin is what those commands need of a desk.
type identityAdmin interface {
	addIdentity(ctx context.Context, name, kind string, admin bool) (*identity.Identity, string, error)
	identities(ctx context.Context) ([]identityRow, error)
	grant(ctx context.Context, name, target, right string) (*identity.Grant, error)
	revokeGrant(ctx context.Context, name, target, right string) (*identity.Grant, error)
	newToken(ctx context.Context, name, label string) (string, *identity.Token, error)
	tokens(ctx context.Context, name string) ([]*identity.Token, error)
	revokeToken(ctx context.Context, id int64) error
	close()
}

type identityRow struct {
	*identity.Identity
	Grants []identity.Grant `json:"grants"`
}

// adminFlags are --server, --token-env and --db.
type adminFlags struct {
	server, tokenEnv, db *string
}

func addAdminFlags(fs *flag.FlagSet) *adminFlags {
	return &adminFlags{
		server:   fs.String("server", "", "a team server's URL: act through its API with an admin's token (DESK_TOKEN, or the one desk login kept)"),
		tokenEnv: fs.String("token-env", "", "with --server: the variable that holds the token (default DESK_TOKEN, then the login)"),
		db:       fs.String("db", "", "a team server's database, postgres://...: act on it directly"),
	}
}

// open returns the desk the flags name; the local one needs create for a
// command that may make the desk (identity add).
func (f *adminFlags) open(ctx context.Context, c *Context, cmd string, create bool) (identityAdmin, error) {
	switch {
	case *f.server != "" && *f.db != "":
		return nil, Usagef(cmd, "give --server or --db, not both")
	case *f.server != "":
		server, err := credential.NormalizeServer(*f.server)
		if err != nil {
			return nil, err
		}
		token, err := serverToken(c, server, *f.tokenEnv)
		if err != nil {
			return nil, err
		}
		return &remoteAdmin{r: deskhttp.NewRemote(server, token, 0)}, nil
	case *f.db != "":
		db, err := postgres.Open(ctx, *f.db, postgres.Options{Blobs: folder.New(c.DataDir)})
		if err != nil {
			return nil, err
		}
		return &storeAdmin{svc: identity.New(db.Identities()), self: identity.AdminName, done: func() { db.Close() }}, nil
	}
	db, err := openStore(ctx, c, create)
	if err != nil {
		return nil, err
	}
	_, ids := Code(db)
	return &storeAdmin{svc: ids, self: identity.OwnerName, done: func() { db.Close() },
		check: func(ctx context.Context, target string) error {
			scope, t, err := identity.ParseTarget(target)
			if err != nil {
				return err
			}
			switch scope {
			case identity.ScopeRepo:
				svc, _ := Code(db)
				_, err = svc.Open(ctx, t)
				return err
			case identity.ScopeProject:
				return checkProject(ctx, db, t)
			}
			return nil
		}}, nil
}

// serverToken is the token to send a server: the variable env names (or
// DESK_TOKEN), else the login kept for it.
func serverToken(c *Context, server, env string) (string, error) {
	name := env
	if name == "" {
		name = "DESK_TOKEN"
	}
	if t := strings.TrimSpace(c.Getenv(name)); t != "" {
		return t, nil
	}
	if env != "" {
		return "", desk.Errorf(desk.Invalid, "--token-env %s: the variable is empty", env)
	}
	store, err := credential.OpenDefault(c.Getenv)
	if err != nil {
		return "", err
	}
	cred, err := store.Get(server)
	if err != nil {
		return "", desk.Errorf(desk.Forbidden, "no token for %s", server).WithHint("run desk login " + server + " --token-stdin, or set DESK_TOKEN")
	}
	return cred.Token, nil
}

// storeAdmin manages the identities of a store: the local desk's, or a
// team database's. self is who a token command without --identity is for.
type storeAdmin struct {
	svc   *identity.Service
	self  string
	check func(ctx context.Context, target string) error // that a grant's target exists
	done  func()
}

func (a *storeAdmin) close() { a.done() }

func (a *storeAdmin) addIdentity(ctx context.Context, name, kind string, admin bool) (*identity.Identity, string, error) {
	return a.svc.AddWithRights(ctx, name, kind, admin)
}

func (a *storeAdmin) identities(ctx context.Context) ([]identityRow, error) {
	list, err := a.svc.Store.Identities(ctx)
	if err != nil {
		return nil, err
	}
	out := []identityRow{}
	for _, id := range list {
		g, err := a.svc.Store.Grants(ctx, id.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, identityRow{id, g})
	}
	return out, nil
}

func (a *storeAdmin) grant(ctx context.Context, name, target, right string) (*identity.Grant, error) {
	if err := identity.CheckRight(right); err != nil {
		return nil, err
	}
	if a.check != nil {
		if err := a.check(ctx, target); err != nil {
			return nil, err
		}
	}
	return a.svc.Grant(ctx, name, target, right)
}

func (a *storeAdmin) revokeGrant(ctx context.Context, name, target, right string) (*identity.Grant, error) {
	return a.svc.RemoveGrant(ctx, name, target, right)
}

func (a *storeAdmin) who(name string) string {
	if name == "" {
		return a.self
	}
	return name
}

func (a *storeAdmin) newToken(ctx context.Context, name, label string) (string, *identity.Token, error) {
	return a.svc.NewToken(ctx, a.who(name), label)
}

func (a *storeAdmin) tokens(ctx context.Context, name string) ([]*identity.Token, error) {
	if _, err := a.svc.Store.Identity(ctx, a.who(name)); err != nil {
		return nil, err
	}
	return a.svc.Store.Tokens(ctx, a.who(name))
}

func (a *storeAdmin) revokeToken(ctx context.Context, id int64) error {
	return a.svc.Store.RevokeToken(ctx, id)
}

// remoteAdmin manages a team server's identities through its API.
type remoteAdmin struct{ r *deskhttp.Remote }

func (a *remoteAdmin) close() {}

func (a *remoteAdmin) addIdentity(ctx context.Context, name, kind string, admin bool) (*identity.Identity, string, error) {
	var out struct {
		Identity *identity.Identity `json:"identity"`
		Token    string             `json:"token"`
	}
	err := a.r.Do(ctx, http.MethodPost, "/api/identities", map[string]any{"name": name, "kind": kind, "admin": admin}, &out)
	return out.Identity, out.Token, err
}

func (a *remoteAdmin) identities(ctx context.Context) ([]identityRow, error) {
	var out struct{ Identities []identityRow }
	err := a.r.Do(ctx, http.MethodGet, "/api/identities", nil, &out)
	return out.Identities, err
}

func (a *remoteAdmin) grant(ctx context.Context, name, target, right string) (*identity.Grant, error) {
	var out struct{ Grant *identity.Grant }
	err := a.r.Do(ctx, http.MethodPost, "/api/grants", map[string]any{"identity": name, "target": target, "right": right}, &out)
	return out.Grant, err
}

func (a *remoteAdmin) revokeGrant(ctx context.Context, name, target, right string) (*identity.Grant, error) {
	var out struct{ Removed *identity.Grant }
	err := a.r.Do(ctx, http.MethodDelete, "/api/grants", map[string]any{"identity": name, "target": target, "right": right}, &out)
	return out.Removed, err
}

func (a *remoteAdmin) newToken(ctx context.Context, name, label string) (string, *identity.Token, error) {
	var out struct {
		Token    string `json:"token"`
		ID       int64  `json:"id"`
		Identity string `json:"identity"`
		Label    string `json:"label"`
		Created  string `json:"created_at"`
	}
	if err := a.r.Do(ctx, http.MethodPost, "/api/tokens", map[string]any{"identity": name, "label": label}, &out); err != nil {
		return "", nil, err
	}
	return out.Token, &identity.Token{ID: out.ID, Identity: out.Identity, Label: out.Label, CreatedAt: out.Created}, nil
}

func (a *remoteAdmin) tokens(ctx context.Context, name string) ([]*identity.Token, error) {
	var out struct{ Tokens []*identity.Token }
	err := a.r.Do(ctx, http.MethodGet, "/api/tokens?identity="+url.QueryEscape(name), nil, &out)
	return out.Tokens, err
}

func (a *remoteAdmin) revokeToken(ctx context.Context, id int64) error {
	return a.r.Do(ctx, http.MethodDelete, "/api/tokens/"+strconv.FormatInt(id, 10), nil, nil)
}

func grantText(g *identity.Grant) string {
	if g.Scope == identity.ScopeAll {
		return "everything"
	}
	return g.Target
}

func runRevokeGrant(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("revoke-grant", c)
	af := addAdminFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "revoke-grant", 3, 3, "NAME OWNER/REPO|PROJECT|* RIGHT"); err != nil {
		return err
	}
	a, err := af.open(ctx, c, "revoke-grant", false)
	if err != nil {
		return err
	}
	defer a.close()
	g, err := a.revokeGrant(ctx, fs.Arg(0), fs.Arg(1), fs.Arg(2))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "%s may no longer %s %s (other grants may still give it)\n", g.Identity, g.Right, grantText(g))
	return nil
}

func runToken(ctx context.Context, c *Context, args []string) error {
	sub, rest := "", args
	if len(args) > 0 {
		sub, rest = args[0], args[1:]
	}
	fs := newFlags("token "+sub, c)
	af := addAdminFlags(fs)
	switch sub {
	case "new":
		who := fs.String("identity", "", "whose token (default: your own; another's needs admin)")
		label := fs.String("label", "", "what the token is for, e.g. the machine")
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if err := noArgs(fs, "token new"); err != nil {
			return err
		}
		a, err := af.open(ctx, c, "token new", false)
		if err != nil {
			return err
		}
		defer a.close()
		token, t, err := a.newToken(ctx, *who, *label)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "A new token of %s (id %d), shown this once (the desk keeps only its hash):\n%s\n", t.Identity, t.ID, token)
		return nil
	case "list":
		who := fs.String("identity", "", "whose tokens (default: your own)")
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if err := noArgs(fs, "token list"); err != nil {
			return err
		}
		a, err := af.open(ctx, c, "token list", false)
		if err != nil {
			return err
		}
		defer a.close()
		list, err := a.tokens(ctx, *who)
		if err != nil {
			return err
		}
		if list == nil {
			list = []*identity.Token{}
		}
		if *asJSON {
			return printJSON(c.Stdout, map[string]any{"tokens": list})
		}
		for _, t := range list {
			state := "in force"
			if t.RevokedAt != nil {
				state = "revoked " + *t.RevokedAt
			}
			fmt.Fprintf(c.Stdout, "%-6d %-16s %-24s %s  %s\n", t.ID, t.Identity, t.CreatedAt, state, t.Label)
		}
		return nil
	case "revoke":
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if err := argCount(fs, "token revoke", 1, 1, "ID (desk token list shows them)"); err != nil {
			return err
		}
		id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil || id <= 0 {
			return Usagef("token revoke", "%q is not a token's id: desk token list shows them", clipArg(fs.Arg(0)))
		}
		a, err := af.open(ctx, c, "token revoke", false)
		if err != nil {
			return err
		}
		defer a.close()
		if err := a.revokeToken(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "Revoked token %d: it stops within %v on every server\n", id, 2*identity.CacheTTL)
		return nil
	case "", "-h", "--help", "help":
		fmt.Fprint(c.Stdout, "Usage: desk token new [--identity NAME] [--label TEXT] | desk token list [--identity NAME] [--json] | desk token revoke ID\n"+
			"Each takes --server URL (a team server, with an admin's token) or --db postgres://... (its database).\n")
		if sub == "" {
			return Usagef("token", "name a command: new, list or revoke")
		}
		return errHelp
	}
	return Usagef("token", "unknown command %q: new, list or revoke", clipArg(sub))
}
