package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk"
	deskhttp "desk/http"
)

// A folder linked to a team project (package member) gets the MCP server
// of the team: the same tools, under the same names and arguments, whose
// calls go to the team server's API with the member's token instead of to
// a data folder. The rules are the server's, as they are the store's on
// the local desk; what an agent may do is what its identity's rights let
// it. The tools that act on this machine's folders (the pair protocol's
// patches, attachments read from paths) stay with the local desk.

// remoteRuns are the tools a team's MCP server offers, with how each one
// calls the API. Their names, descriptions and arguments are the local
// tools'.
var remoteRuns = map[string]func(context.Context, *server, *args) (any, error){
	"list_projects": remoteListProjects,
	"list_issues":   listIssues, // through s.issues
	"search":        search,     // through s.issues
	"get_issue":     remoteGetIssue,
	"create_issue":  remoteCreateIssue,
	"comment":       remoteComment,
	"set_status":    remoteSetStatus,
	"claim_issue":   remoteClaim,
	"release_issue": remoteRelease,
	"list_claims":   remoteListClaims,
	"get_handoff":   remoteGetHandoff,
}

// ServeRemote runs the team's MCP server for one agent on in and out: its
// tools call remote. Nothing of the local data folder is opened.
func ServeRemote(ctx context.Context, opts Options, remote *deskhttp.Remote, in io.ReadCloser, out io.WriteCloser) error {
	s := newServer(opts, nil, out)
	s.remote = remote
	// Only the tools the team's server answers: the others would fail on
	// every call.
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "desk (team server " + remote.Base() + ")", Version: desk.Version},
		&sdk.ServerOptions{Instructions: instructions(s.delegated), Logger: opts.Logger, Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}}})
	s.tools = map[string]*tool{}
	for _, group := range [][]*tool{readTools, issueTools, planTools, groupTools, projectTools, claimTools} {
		for _, t := range group {
			if run, ok := remoteRuns[t.name]; ok {
				rt := *t
				rt.run = run
				s.add(&rt)
			}
		}
	}
	s.sdk.AddReceivingMiddleware(s.unknownTools)
	defer s.calls.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in = newFrameReader(in, s.out, func(id, params json.RawMessage) bool { return s.callDirect(ctx, id, params) })
	err := s.sdk.Run(ctx, &sdk.IOTransport{Reader: in, Writer: s.out})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func remoteListProjects(ctx context.Context, s *server, a *args) (any, error) {
	var out struct{ Projects []*desk.Project }
	if err := s.remote.Do(ctx, http.MethodGet, "/api/projects", nil, &out); err != nil {
		return nil, err
	}
	return projectsAnswer(s, out.Projects), nil
}

// remoteSlugs lists the projects the member may read on the team server.
func (s *server) remoteSlugs(ctx context.Context) ([]string, error) {
	var out struct{ Projects []struct{ Slug string } }
	if err := s.remote.Do(ctx, http.MethodGet, "/api/projects", nil, &out); err != nil {
		return nil, err
	}
	slugs := make([]string, len(out.Projects))
	for i, p := range out.Projects {
		slugs[i] = p.Slug
	}
	return slugs, nil
}

func (s *server) remoteIssues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error) {
	l := &desk.IssueList{Summary: f.Summary}
	if err := s.remote.Do(ctx, http.MethodGet, deskhttp.IssuesPath(slug, f), nil, l); err != nil {
		return nil, err
	}
	return l, nil
}

func issuePath(id string, rest string) string { return "/api/issues/" + url.PathEscape(id) + rest }

func remoteGetIssue(ctx context.Context, s *server, a *args) (any, error) {
	var d json.RawMessage
	err := s.remote.Do(ctx, http.MethodGet, issuePath(a.str("id"), ""), nil, &d)
	return d, err
}

func remoteCreateIssue(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	if len(a.list("attachment_paths")) > 0 {
		return nil, desk.Errorf(desk.Invalid, "create_issue: attachment_paths are read from this machine, which a team server cannot do yet").
			WithHint("file the issue without them")
	}
	body := a.fields(append(issueFieldNames, "status", "external_ref", "parent")...)
	author, _ := json.Marshal(s.author(a))
	body["author"] = author
	var is desk.Issue
	if err := s.remote.Do(ctx, http.MethodPost, "/api/projects/"+url.PathEscape(slug)+"/issues", body, &is); err != nil {
		return nil, err
	}
	return compact(&is, false), nil
}

func remoteComment(ctx context.Context, s *server, a *args) (any, error) {
	in := map[string]any{"text": a.str("text"), "author": s.author(a)}
	if v := a.str("verdict"); v != "" {
		in["verdict"] = v
	}
	var out struct {
		Comment struct {
			ID     int64  `json:"id"`
			Author string `json:"author"`
		} `json:"comment"`
		Issue struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"issue"`
	}
	if err := s.remote.Do(ctx, http.MethodPost, issuePath(a.str("id"), "/comments"), in, &out); err != nil {
		return nil, err
	}
	return map[string]any{"comment": out.Comment, "issue": out.Issue}, nil
}

func remoteSetStatus(ctx context.Context, s *server, a *args) (any, error) {
	var d desk.Issue
	if err := s.remote.Do(ctx, http.MethodPatch, issuePath(a.str("id"), ""), map[string]any{"status": a.str("status"), "actor": s.author(a)}, &d); err != nil {
		return nil, err
	}
	out := map[string]any{"id": d.ID, "status": d.Status}
	if d.Build != nil {
		out["build"] = d.Build.Label
	}
	return out, nil
}

func remoteClaim(ctx context.Context, s *server, a *args) (any, error) {
	in := map[string]any{"holder": s.claimHolder()}
	if a.has("hours") {
		in["hours"] = a.number("hours")
	}
	var c json.RawMessage
	err := s.remote.Do(ctx, http.MethodPost, issuePath(a.str("id"), "/claim"), in, &c)
	return c, err
}

func remoteRelease(ctx context.Context, s *server, a *args) (any, error) {
	var c json.RawMessage
	err := s.remote.Do(ctx, http.MethodDelete, issuePath(a.str("id"), "/claim?holder="+url.QueryEscape(s.claimHolder())), nil, &c)
	return c, err
}

func remoteListClaims(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	var c json.RawMessage
	err = s.remote.Do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(slug)+"/claims", nil, &c)
	return c, err
}

func remoteGetHandoff(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	path := "/api/projects/" + url.PathEscape(slug) + "/handoff"
	if v := a.integer("version", 0); v > 0 {
		path += "?version=" + itoa(v)
	}
	var h desk.Handoff
	if err := s.remote.Do(ctx, http.MethodGet, path, nil, &h); err != nil {
		return nil, err
	}
	return handoffAnswer(&h), nil
}
