package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"desk"
	"desk/credential"
	deskhttp "desk/http"
	"desk/member"
)

// The commands an agent runs most (list, show, comment, claim, release,
// claims) work in a folder linked to a team project too: they call the
// team server with the member's token (see package member) instead of
// opening the data folder.

// workStore is what those commands need of a desk; *sqlite.DB and
// *deskhttp.Remote both have it.
type workStore interface {
	desk.ClaimService
	Issue(ctx context.Context, id string) (*desk.IssueDetail, error)
	Issues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error)
	AddComment(ctx context.Context, id string, in desk.CommentInput) (*desk.Comment, *desk.Issue, error)
}

// teamWork returns the team server of c's folder as a workStore, and how
// a command finds its project there (flag first); nil when the folder
// works with the local desk.
func teamWork(c *Context, cmd string) (workStore, func(flag string) (string, error), error) {
	t, err := member.Resolve(c.Getenv, c.DataDir, c.Dir)
	if err != nil || t == nil {
		return nil, nil, err
	}
	projectOf := func(flag string) (string, error) {
		if p := strings.TrimSpace(flag); p != "" {
			return p, nil
		}
		if t.Project != "" {
			return t.Project, nil
		}
		return "", Usagef(cmd, "this folder names the team server %s but no project: pass --project", t.Server)
	}
	return deskhttp.NewRemote(t.Server, t.Token, 10*time.Second), projectOf, nil
}

// openWork opens the desk of c's folder: the team server of a folder
// linked to one, else the data folder. projectOf finds the project a
// command is about there (flag first); done closes the desk.
func openWork(ctx context.Context, c *Context, cmd string) (st workStore, projectOf func(flag string) (string, error), done func(), err error) {
	if st, projectOf, err := teamWork(c, cmd); err != nil || st != nil {
		return st, projectOf, func() {}, err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return nil, nil, nil, err
	}
	return db, func(flag string) (string, error) { return project(ctx, c, db, flag, cmd) }, func() { db.Close() }, nil
}

// linkTeamFolder links dir to a project of a team server, once the
// server says the member may read it: the folder's marker names both, so
// every clone of a repo that keeps the marker works with the team.
func linkTeamFolder(ctx context.Context, c *Context, dir, project, server string, asJSON bool) error {
	server, err := credential.NormalizeServer(server)
	if err != nil {
		return err
	}
	token, err := serverToken(c, server, "")
	if err != nil {
		return err
	}
	var p struct{ Slug string }
	if err := deskhttp.NewRemote(server, token, 10*time.Second).Do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project), nil, &p); err != nil {
		return err
	}
	path, err := member.LinkFolder(dir, p.Slug, server)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(c.Stdout, map[string]any{"project": p.Slug, "server": server, "marker": path})
	}
	fmt.Fprintf(c.Stdout, "Linked %s to project %s on %s (in %s)\n", dir, p.Slug, server, path)
	return nil
}
