package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"desk"
	deskhttp "desk/http"
	"desk/serverfile"
)

// issues lists a project's issues, asking the desk server that runs on
// the data folder when there is one. A list walks every issue of the
// project; the server keeps them in memory and follows every write once,
// where twenty agents' servers would each load and follow them on their
// own. Without a server (or with one of another desk version) the list
// comes from the store, as every other call does.
func (s *server) issues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error) {
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
