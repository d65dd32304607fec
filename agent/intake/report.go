// Package intake carries agent hook reports from the hook process to the
// running desk server, and keeps them in the data folder when no server
// runs.
//
// A command hook (desk hook event) reads the client's payload on stdin and
// calls Deliver, which finds the server through server.json in the data
// folder, posts the report to POST /api/hooks/{client} with the install's
// hook token, and gives up within a hard deadline: a hook must never hold up
// the agent. When no server answers, the report goes to the spool file in
// the data folder, which the server replays when it starts (and whenever it
// finds the file again). Claude Code's http hooks post the same payloads to
// the same route themselves.
//
// The package is small on purpose: the hook process runs it on every tool
// call, so it does no decoding, only moving bytes.
package intake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"desk/agent"
)

// Report is one hook report as desk received it: which client, which event
// when the transport names it, the payload as the client wrote it, the few
// environment variables the mappers read, and when the hook ran.
type Report struct {
	Client   string
	Event    string
	Payload  []byte
	Env      map[string]string
	Received time.Time
	// Truncated is the size of a payload that was over MaxPayload; Payload
	// then holds only its head, and the server drops the report saying so.
	Truncated int64
}

// MaxPayload is the largest payload a report carries. Tool results ride in
// PostToolUse payloads; the state needs none of them, but a report cut
// short cannot be read, so the limit is the mappers' own.
const MaxPayload = agent.MaxPayload

// EnvKeys are the environment variables a hook forwards: desk's launch
// stamps and the session ids clients put in the environment instead of the
// payload. Nothing else of the agent's environment leaves the hook.
var EnvKeys = []string{agent.EnvLaunch, agent.EnvGeneration, "CLAUDE_CODE_SESSION_ID"}

// The HTTP form of a report: the payload is the body, as Claude Code's http
// hooks send it, and what desk's own hook adds rides in headers.
const (
	HeaderToken     = "X-Desk-Hook-Token"
	HeaderEvent     = "X-Desk-Event"
	HeaderReceived  = "X-Desk-Received"
	HeaderEnv       = "X-Desk-Env"
	HeaderTruncated = "X-Desk-Truncated"
)

// Input returns the report in the form agent.Decode reads.
func (r *Report) Input() agent.Input {
	return agent.Input{Client: r.Client, Event: r.Event, Payload: r.Payload, Env: r.Env, Received: r.Received}
}

// Header sets a request's headers for r (the token aside).
func (r *Report) Header(h http.Header) {
	if r.Event != "" {
		h.Set(HeaderEvent, r.Event)
	}
	if !r.Received.IsZero() {
		h.Set(HeaderReceived, r.Received.UTC().Format(time.RFC3339Nano))
	}
	if len(r.Env) > 0 {
		v := url.Values{}
		for k, val := range r.Env {
			v.Set(k, val)
		}
		h.Set(HeaderEnv, v.Encode())
	}
	if r.Truncated > 0 {
		h.Set(HeaderTruncated, strconv.FormatInt(r.Truncated, 10))
	}
	h.Set("Content-Type", "application/json")
}

// ReadRequest reads a report posted to /api/hooks/{client}. The event name
// may also come as ?event=, for http hooks whose URL is all they configure.
// A body over MaxPayload is cut there and marked Truncated. received is the
// time to use when the request does not say when its hook ran, and the
// latest time a request may claim.
func ReadRequest(r *http.Request, client string, received time.Time) (*Report, error) {
	rep := &Report{Client: client, Event: r.Header.Get(HeaderEvent), Received: received}
	if rep.Event == "" {
		rep.Event = r.URL.Query().Get("event")
	}
	if s := r.Header.Get(HeaderReceived); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an RFC 3339 time", HeaderReceived, clip(s))
		}
		// A hook may have waited for the server, never run ahead of it.
		if t.Before(received) {
			rep.Received = t.UTC()
		}
	}
	if s := r.Header.Get(HeaderEnv); s != "" {
		v, err := url.ParseQuery(s)
		if err != nil {
			return nil, fmt.Errorf("%s is not a query string: %v", HeaderEnv, err)
		}
		rep.Env = map[string]string{}
		for _, k := range EnvKeys {
			if val := v.Get(k); val != "" {
				rep.Env[k] = val
			}
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read the payload: %w", err)
	}
	if len(body) > MaxPayload {
		rep.Truncated = int64(len(body))
		if r.ContentLength > rep.Truncated {
			rep.Truncated = r.ContentLength
		}
		body = body[:MaxPayload]
	} else if s := r.Header.Get(HeaderTruncated); s != "" {
		rep.Truncated, _ = strconv.ParseInt(s, 10, 64)
	}
	rep.Payload = body
	return rep, nil
}

// spooled is a report's line in the spool file.
type spooled struct {
	Client    string            `json:"client"`
	Event     string            `json:"event,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Received  string            `json:"received"`
	Truncated int64             `json:"truncated,omitempty"`
	// Payload holds the payload when it is JSON, which is nearly always;
	// Text holds anything else, so that a bad payload is replayed as bad
	// and refused with its reason rather than lost.
	Payload json.RawMessage `json:"payload,omitempty"`
	Text    string          `json:"text,omitempty"`
}

func (r *Report) marshalLine() ([]byte, error) {
	s := spooled{Client: r.Client, Event: r.Event, Env: r.Env, Truncated: r.Truncated,
		Received: r.Received.UTC().Format(time.RFC3339Nano)}
	if r.Truncated == 0 && json.Valid(r.Payload) {
		s.Payload = r.Payload
	} else {
		s.Text = strings.ToValidUTF8(string(r.Payload), "\uFFFD")
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func unmarshalLine(line []byte) (*Report, error) {
	var s spooled
	if err := json.Unmarshal(line, &s); err != nil {
		return nil, err
	}
	t, err := time.Parse(time.RFC3339Nano, s.Received)
	if err != nil {
		return nil, err
	}
	r := &Report{Client: s.Client, Event: s.Event, Env: s.Env, Received: t, Truncated: s.Truncated, Payload: []byte(s.Payload)}
	if s.Text != "" {
		r.Payload = []byte(s.Text)
	}
	return r, nil
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Unattributable reports whether a report comes from a hook of a managed
// launch (DESK_SESSION_ID set) that inherited no generation: a producer
// desk cannot place among the launch's runs. Such a hook posts nothing,
// since silence is the correct answer when an event cannot be attributed.
func (r *Report) Unattributable() bool {
	return r.Env[agent.EnvLaunch] != "" && r.Env[agent.EnvGeneration] == ""
}
