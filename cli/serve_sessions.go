package cli

import (
	"context"
	"log/slog"
	"net/url"
	"os"

	"desk/agent/live"
	deskhttp "desk/http"
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
