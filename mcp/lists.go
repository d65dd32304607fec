package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"desk"
	deskhttp "desk/http"
	"desk/serverfile"
)

// ownListMax is the largest project (in issues) whose lists this process
// makes from its own store while a desk server runs. Its index then holds
// a few MB, and a list from it answers in well under a millisecond, where
// a list through the server takes 2-3 ms (a request and a second decoding
// of the answer). A larger project is held once, by the server, instead of
// by every agent's process.
const ownListMax = 5000

// issues lists a project's issues. A small project is listed from the
// store; a large one through the desk server that runs on the data folder,
// when there is one: a list walks every issue of the project, and the
// server keeps them in memory and follows every write once, where twenty
// agents' processes would each load and follow them on their own. Without
// a server (or with one of another desk version) every list comes from
// the store, as every other call does.
func (s *server) issues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error) {
	if s.remote != nil {
		return s.remoteIssues(ctx, slug, f)
	}
	if !s.large(ctx, slug) {
		return s.db.Issues(ctx, slug, f)
	}
	if info, err := serverfile.Read(s.opts.DataDir); err == nil && info != nil && serverfile.Alive(info.PID) {
		body, err := s.serverClient(info.URL).Get(ctx, deskhttp.IssuesPath(slug, f))
		switch {
		case err == nil:
			l := &desk.IssueList{Summary: f.Summary}
			if err := json.Unmarshal(body, l); err == nil {
				return l, nil
			}
		case !errors.Is(err, deskhttp.ErrUnreachable):
			return nil, err // the server's refusal is the store's
		}
	}
	return s.db.Issues(ctx, slug, f)
}

// large reports whether project slug has more than ownListMax issues. A
// project found large stays so for the session; a small one is counted
// again, which its index, once loaded, does without a query.
func (s *server) large(ctx context.Context, slug string) bool {
	s.mu.Lock()
	known := s.largeProjects[slug]
	s.mu.Unlock()
	if known {
		return true
	}
	n, err := s.db.IssueCount(ctx, slug)
	if err != nil || n <= s.ownListMax {
		return false
	}
	s.mu.Lock()
	s.largeProjects[slug] = true
	s.mu.Unlock()
	return true
}

// serverClient returns the client of the server at url, kept between calls
// so that they share its connection.
func (s *server) serverClient(url string) *deskhttp.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deskServer == nil || s.deskServerURL != url {
		s.deskServer, s.deskServerURL = deskhttp.NewClient(url), url
	}
	return s.deskServer
}
