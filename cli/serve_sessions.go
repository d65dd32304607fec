package cli

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"time"

	"desk/agent/live"
	deskhttp "desk/http"
	"desk/pair"
	"desk/pairterm"
	"desk/session"
	"desk/sqlite"
)

// envDetached marks the server serve --detach starts: its output is the
// data folder's server.log, which must never hold the terminal token, so
// the parent prints the tokened URL instead.
const envDetached = "DESK_SERVE_DETACHED"

// serveTerminals sets up the server's managed sessions: the manager its
// routes launch with, the supervisor that re-attaches to every holder
// found at start, and the terminal token.
func serveTerminals(ctx context.Context, c *Context, db *sqlite.DB, agents *live.Service, logger *slog.Logger, disabled bool) (*deskhttp.Terminals, error) {
	tok, err := session.TerminalToken(db.Dir())
	if err != nil {
		return nil, err
	}
	m := &session.Manager{Store: db, DataDir: db.Dir(), Environ: c.Environ, OnLaunch: agents.Fence}
	sup := &session.Supervisor{M: m, Log: logger, Agent: agents.ByLaunch}
	if err := sup.Start(ctx); err != nil {
		return nil, err
	}
	if !disabled {
		go servePilot(ctx, db, m, logger)
	}
	return &deskhttp.Terminals{Manager: m, Supervisor: sup, Token: tok, Disabled: disabled, Agent: agents.ByLaunch}, nil
}

// terminalQuery is what the printed URL carries: the terminal token, for
// the one line that shows it, unless terminals are off or the output is
// a log file.
func terminalQuery(t *deskhttp.Terminals) string {
	if t == nil || t.Disabled || t.Token == "" || os.Getenv(envDetached) != "" {
		return ""
	}
	return "/?token=" + url.QueryEscape(t.Token)
}

// serveEvery is how often desk serve's supervisor passes over the pairs.
const serveEvery = 3 * time.Second

// servePilot supervises every live pair of the data folder whose lease
// this server can take (see pairterm.Leases), with the server's session
// manager, until ctx ends.
func servePilot(ctx context.Context, db *sqlite.DB, m *session.Manager, logger *slog.Logger) {
	svc := &pair.Service{Store: db, PatchRoot: pair.PatchRootIn(db.Dir())}
	svc.Terminals = &pairterm.Terminals{M: m, Pairs: svc}
	leases := &pairterm.Leases{DataDir: db.Dir()}
	defer leases.Close()
	pairterm.Pilot(ctx, &pair.Pilot{Service: svc}, leases, serveEvery, "", func(id string, acts []pair.Action, err error) {
		for _, a := range acts {
			logger.Info("pair supervisor", "pair", id, "kind", a.Kind, "role", a.Role, "text", a.Text)
		}
		if err != nil && ctx.Err() == nil {
			logger.Warn("pair supervisor", "pair", id, "err", err)
		}
	})
}
