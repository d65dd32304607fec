package mockmodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Request is one HTTP request the mock received.
type Request struct {
	// Seq numbers requests from 1 in arrival order.
	Seq      int
	Time     time.Time
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	// Body is the raw request body, decompressed if it was gzip-encoded.
	Body []byte
	// View is the normalised request; nil for requests that are not model
	// turns (probes, token counts, models lists).
	View *View
	// Answer is what the mock answered to a model request.
	Answer *Answer
	// Err is set when the request could not be parsed or the script's call
	// could not be resolved; the client then got an error or a text saying so.
	Err error
}

// Answer is what the mock sent back for one model request.
type Answer struct {
	Text string
	// CallID, CallName (flat, see Tool.FullName) and CallInput describe the
	// tool call, when there was one.
	CallID    string
	CallName  string
	CallInput json.RawMessage
}

// Requests returns every request received so far, oldest first.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// ModelRequests returns the requests that were model turns (those with a
// View), oldest first, side requests included.
func (s *Server) ModelRequests() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.View != nil {
			out = append(out, r)
		}
	}
	return out
}

// Find returns the first recorded request for which match is true, or nil.
func (s *Server) Find(match func(*Request) bool) *Request {
	for _, r := range s.Requests() {
		if match(r) {
			return r
		}
	}
	return nil
}

// Wait blocks until a request for which match is true has been recorded, and
// returns it; it gives up when ctx ends.
func (s *Server) Wait(ctx context.Context, match func(*Request) bool) (*Request, error) {
	seen := 0
	for {
		s.mu.Lock()
		reqs, changed := s.reqs[seen:], s.changed
		s.mu.Unlock()
		for _, r := range reqs {
			if match(r) {
				return r, nil
			}
		}
		seen += len(reqs)
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("mockmodel: no matching request among %d: %w", seen, ctx.Err())
		}
	}
}

// record stores a request and wakes waiters.
func (s *Server) record(r *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) nextSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// SessionID returns the client's session id when the request carries one:
// Codex sends a Session-Id header, Claude Code a JSON metadata.user_id with a
// session_id inside. It returns "" when neither is there.
func (r *Request) SessionID() string {
	if id := r.Header.Get("Session-Id"); id != "" {
		return id
	}
	var body struct {
		Metadata struct {
			UserID string `json:"user_id"`
		} `json:"metadata"`
	}
	if json.Unmarshal(r.Body, &body) != nil || body.Metadata.UserID == "" {
		return ""
	}
	var user struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal([]byte(body.Metadata.UserID), &user) == nil {
		return user.SessionID
	}
	return ""
}
