package http

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"desk"
	"desk/agent"
	"desk/agent/intake"
	"desk/agent/live"
)

// Agents is the live picture of the agent sessions on this machine; package
// agent/live implements it. A server without one answers the hook route
// with 503 and lists no sessions.
type Agents interface {
	// Start begins tracking once the server listens; Close ends it after
	// the last request.
	Start(ctx context.Context) error
	Close() error
	// Token is the install's hook token, which hook reports must carry.
	Token() string
	Receive(r *intake.Report) (live.Result, error)
	Sessions(f live.Filter) []agent.Session
	Session(id string) (agent.Session, bool)
	// OnIssue returns the live sessions that touched an issue.
	OnIssue(key string) []agent.Session
}

// feedFollower is an Agents whose picture follows the change feed, because
// other servers save agents to the same store (live.Service in team mode).
type feedFollower interface {
	Follow(ctx context.Context, cs []*desk.Change)
}

// agentRoutes adds the agent routes to rt.
func (s *Server) agentRoutes(rt *router) {
	rt.handle(http.MethodPost, "/api/hooks/{client}", s.receiveHook)
	rt.handle(http.MethodGet, "/api/agents", s.listAgents)
	rt.handle(http.MethodGet, "/api/agents/{id}", s.getAgent)
}

// receiveHook takes one hook report: from desk hook event, or straight from
// a client's http hook. Only processes of this machine that can read the
// data folder's hook token may report, whatever --lan says: a report moves
// what the owner sees about their agents.
func (s *Server) receiveHook(w http.ResponseWriter, r *http.Request, p params) error {
	if !s.opts.Team && !isLoopback(r.RemoteAddr) {
		return desk.Errorf(desk.Forbidden, "agent hooks report only from this machine")
	}
	if s.opts.Agents == nil {
		return &httpError{http.StatusServiceUnavailable, "agent tracking is not running in this server"}
	}
	// On the team server the member's token (checked before the route)
	// stands for the hook token of a machine.
	if !s.opts.Team {
		if err := checkHookToken(r, s.opts.Agents.Token()); err != nil {
			return err
		}
	}
	rep, err := intake.ReadRequest(r, p["client"], time.Now())
	if err != nil {
		return desk.Errorf(desk.Invalid, "%v", err)
	}
	res, err := s.opts.Agents.Receive(rep)
	if errors.Is(err, live.ErrUnavailable) {
		return &httpError{http.StatusServiceUnavailable, err.Error()}
	}
	if err != nil {
		return err
	}
	// Every key is always there: null when the report named no session
	// (a payload without one) or needed no note.
	out := map[string]any{"accepted": res.Events, "late": res.Late, "session": nil, "state": nil, "note": nil}
	if res.Session != "" {
		out["session"], out["state"] = res.Session, res.State
	}
	if res.Note != "" {
		out["note"] = res.Note
	}
	return writeJSON(w, r, http.StatusAccepted, out)
}

// checkHookToken compares the report's token with the install's, in
// constant time; it takes X-Desk-Hook-Token or an Authorization bearer.
func checkHookToken(r *http.Request, want string) error {
	got := r.Header.Get(intake.HeaderToken)
	if got == "" {
		if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
			got = strings.TrimSpace(a[7:])
		}
	}
	if got == "" {
		return &httpError{http.StatusUnauthorized, "agent hooks need the hook token: send " + intake.HeaderToken +
			" (or Authorization: Bearer) with the contents of the data folder's " + intake.TokenName}
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return desk.Errorf(desk.Forbidden, "wrong hook token").WithHint("read it again from the data folder's " + intake.TokenName)
	}
	return nil
}

// listAgents answers {"agents": [...]}, the sessions that need their owner
// first, filtered by project, state and client (comma-separated lists for
// the last two).
func (s *Server) listAgents(w http.ResponseWriter, r *http.Request, _ params) error {
	f := live.Filter{Project: query(r, "project"), Client: desk.SplitList(query(r, "client"))}
	for _, st := range desk.SplitList(query(r, "state")) {
		f.State = append(f.State, agent.State(st))
	}
	if err := f.Validate(); err != nil {
		return err
	}
	list := []agent.Session{}
	if s.opts.Agents != nil {
		list = s.opts.Agents.Sessions(f)
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"agents": s.markManaged(list)})
}

// getAgent answers one session with its recent events.
func (s *Server) getAgent(w http.ResponseWriter, r *http.Request, p params) error {
	if s.opts.Agents != nil {
		if ss, ok := s.opts.Agents.Session(p["id"]); ok {
			if ss.Events == nil {
				ss.Events = []agent.Event{}
			}
			if !queryBool(r, "raw") {
				// The payloads as received are for debugging a client's
				// hooks; a view re-reading the session needs none of them.
				events := make([]agent.Event, len(ss.Events))
				for i, e := range ss.Events {
					e.Raw = nil
					events[i] = e
				}
				ss.Events = events
			}
			return writeJSON(w, r, http.StatusOK, s.markManaged([]agent.Session{ss})[0])
		}
	}
	return desk.Errorf(desk.NotFound, "no agent session %q", p["id"]).WithHint("GET /api/agents lists them")
}

// issueAgent is a session as an issue shows it: who works on it and what
// it does this second.
type issueAgent struct {
	ID         string            `json:"id"`
	Client     string            `json:"client"`
	State      agent.State       `json:"state"`
	Activity   *agent.Activity   `json:"activity"`
	Permission *agent.Permission `json:"permission"`
	Since      string            `json:"since"`
}

// detailWithAgents is an issue's detail with the live sessions working on
// it in its agents field.
type detailWithAgents struct {
	*desk.IssueDetail
}

// MarshalJSON writes the detail.
func (d detailWithAgents) MarshalJSON() ([]byte, error) { return d.AppendJSON(nil) }

// AppendJSON appends what MarshalJSON gives to b. The server writes a
// detail into a buffer kept between requests (see writeJSON): the busiest
// issue's detail is hundreds of kB, and growing a new buffer for each
// request copied all of it at least once.
func (d detailWithAgents) AppendJSON(b []byte) ([]byte, error) {
	b = slices.Grow(b, 8192+len(d.Body)+len(d.Lists)+len(d.Agents)+512*len(d.Commands))
	return d.IssueDetail.AppendJSON(b), nil
}

// withAgents adds to d the live sessions that touched it.
func (s *Server) withAgents(d *desk.IssueDetail) detailWithAgents {
	return detailWithAgents{s.agentsOn(d)}
}

// agentsOn returns a copy of d (the store may keep d for the next reader)
// whose agents are the live sessions that touched it, for every answer that
// carries an issue's detail.
func (s *Server) agentsOn(d *desk.IssueDetail) *desk.IssueDetail {
	if d == nil || s.opts.Agents == nil {
		return d
	}
	on := s.opts.Agents.OnIssue(d.ID)
	if len(on) == 0 {
		return d
	}
	agents := make([]issueAgent, 0, len(on))
	for _, ss := range on {
		agents = append(agents, issueAgent{
			ID: ss.ID, Client: ss.Client, State: ss.State, Activity: ss.Activity, Permission: ss.Permission,
			Since: desk.FormatTime(ss.Since),
		})
	}
	list, err := desk.MarshalNoHTML(agents)
	if err != nil {
		return d // the sessions are plain values; this does not happen
	}
	c := *d
	c.Agents = list
	return &c
}
