package cli

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	deskhttp "desk/http"
	"desk/link"
	"desk/serverfile"
)

// A read command asks the desk server running on its data folder when there
// is one: the server's issue index is warm, where this process would have
// to load it first. When no server (of this desk version) answers, the
// command reads the store itself. Writes never take this path.

// runningServer returns a client for the server of c's data folder, or
// nil when none runs.
func runningServer(c *Context) *deskhttp.Client {
	info, err := serverfile.Read(c.DataDir)
	if err != nil || info == nil || !serverfile.Alive(info.PID) {
		return nil
	}
	return deskhttp.NewClient(info.URL)
}

// serverGet reads path from the server; ok is false when the server could
// not be used and the caller should read the store.
func serverGet(ctx context.Context, cl *deskhttp.Client, path string) (body []byte, ok bool, err error) {
	body, err = cl.Get(ctx, path)
	if errors.Is(err, deskhttp.ErrUnreachable) {
		return nil, false, nil
	}
	return body, true, err
}

// serverProject finds the project a command is about the way project
// does, asking the server for the list of projects; ok is false when only
// the store path can explain what is missing.
func serverProject(ctx context.Context, c *Context, cl *deskhttp.Client, flag string) (slug string, ok bool) {
	if p := strings.TrimSpace(flag); p != "" {
		return p, true
	}
	found, err := link.Resolve(c.DataDir, c.Dir)
	if err == nil {
		return found.Project, true
	}
	if !errors.Is(err, link.ErrNotLinked) {
		return "", false
	}
	b, err := cl.Get(ctx, "/api/projects")
	if err != nil {
		return "", false
	}
	var ps struct{ Projects []struct{ Slug string } }
	if json.Unmarshal(b, &ps) != nil || len(ps.Projects) != 1 {
		return "", false
	}
	return ps.Projects[0].Slug, true
}
