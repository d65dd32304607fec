package http

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"desk"
	"desk/agent"
	"desk/link"
	"desk/session"
)

// Terminals is what the session routes serve: managed sessions, launched
// and driven through a session.Manager, watched by a session.Supervisor.
// Every session route needs desk's page token or the terminal token; see
// checkTerminal.
type Terminals struct {
	Manager    *session.Manager
	Supervisor *session.Supervisor
	// Token is the data folder's terminal token (session.TerminalToken),
	// which clients other than desk's own page present.
	Token string
	// Disabled turns off launching, typing and attaching (desk serve
	// --no-terminal); records and screens stay readable.
	Disabled bool
	// Agent returns the live agent state of a managed session
	// (live.Service.ByLaunch); nil when agents are not tracked.
	Agent func(id string) (agent.Session, bool)
}

// sessionRoutes adds the session routes to rt.
func (s *Server) sessionRoutes(rt *router) {
	get, post, patch, del := http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
	rt.handle(get, "/api/session-kinds", s.sessionKinds)
	rt.handle(get, "/api/sessions", s.listSessions)
	rt.handle(post, "/api/sessions", s.launchSession)
	rt.handle(get, "/api/sessions/{id}", s.getSession)
	rt.handle(patch, "/api/sessions/{id}", s.renameSession)
	rt.handle(del, "/api/sessions/{id}", s.stopSession)
	rt.handle(post, "/api/sessions/{id}/resume", s.resumeSession)
	rt.handle(get, "/api/sessions/{id}/screen", s.sessionScreen)
	rt.handle(post, "/api/sessions/{id}/input", s.sessionInput)
	rt.handle(post, "/api/sessions/{id}/resize", s.sessionResize)
	rt.handle(get, "/api/sessions/{id}/terminal", s.sessionTerminal)
}

// terminalToken reads the token a request presents: Authorization:
// Bearer, X-Desk-Token, or ?token= (which a browser's WebSocket can
// carry; desk never logs a query).
func terminalToken(r *http.Request) string {
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	if t := r.Header.Get("X-Desk-Token"); t != "" {
		return t
	}
	return r.URL.Query().Get("token")
}

// checkTerminal guards every session route, the WebSocket before its
// upgrade included: the client and the Host name on this machine (unless
// --lan), no page of another origin, and the token of desk's own page or
// the terminal token, compared in constant time. act marks the routes
// that start, type into or attach to a process, which --no-terminal
// turns off.
func (s *Server) checkTerminal(r *http.Request, act bool) error {
	t := s.opts.Terminals
	forbid := func(msg string) error { return desk.Errorf(desk.Forbidden, "%s", msg) }
	if t == nil || t.Manager == nil {
		return &httpError{http.StatusServiceUnavailable, "managed sessions are not served here"}
	}
	if !s.opts.LAN {
		if !isLoopback(r.RemoteAddr) {
			return forbid("sessions answer only clients on this machine (desk serve --lan allows the local network)")
		}
		if !loopbackHost().MatchString(r.Host) {
			return forbid("foreign Host header refused: reach desk as 127.0.0.1 or localhost")
		}
	}
	if o := r.Header.Get("Origin"); o != "" && !s.sameOrigin(r, o) {
		return forbid("origin " + clipHeader(o) + " is not allowed: only desk's own page may reach the sessions from a browser")
	}
	got := []byte(terminalToken(r))
	if len(got) == 0 {
		return forbid("the session routes need desk's page token or the terminal token (the ?token= of the URL desk serve printed)")
	}
	page := subtle.ConstantTimeCompare(got, []byte(s.token))
	term := 0
	if t.Token != "" {
		term = subtle.ConstantTimeCompare(got, []byte(t.Token))
	}
	if page|term != 1 {
		return desk.Errorf(desk.Forbidden, "wrong token").WithHint("use the URL desk serve printed, or the contents of the data folder's " + session.TokenName)
	}
	if act && t.Disabled {
		return forbid("this desk runs with --no-terminal: sessions cannot be started, typed into or attached to here")
	}
	return nil
}

func clipHeader(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// view is a record's wire form with the live agent state of its hooks.
func (s *Server) view(rec *desk.Session) desk.SessionView {
	t := s.opts.Terminals
	if t.Agent != nil {
		if a, ok := t.Agent(rec.ID); ok {
			return rec.View(s.markManaged([]agent.Session{withoutRaw(a)})[0])
		}
	}
	return rec.View(nil)
}

// withoutRaw drops the payloads as received, as GET /api/agents/{id}
// does unless asked.
func withoutRaw(a agent.Session) agent.Session {
	events := make([]agent.Event, len(a.Events))
	for i, e := range a.Events {
		e.Raw = nil
		events[i] = e
	}
	a.Events = events
	return a
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, _ params) error {
	if err := s.checkTerminal(r, false); err != nil {
		return err
	}
	list, err := s.opts.Terminals.Manager.List(r.Context(), queryBool(r, "all"))
	if err != nil {
		return err
	}
	out := make([]desk.SessionView, len(list))
	for i, rec := range list {
		out[i] = s.view(rec)
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"sessions": out})
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, false); err != nil {
		return err
	}
	rec, err := s.opts.Terminals.Manager.Get(r.Context(), p["id"])
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, s.view(rec))
}

func (s *Server) launchSession(w http.ResponseWriter, r *http.Request, _ params) error {
	if err := s.checkTerminal(r, true); err != nil {
		return err
	}
	b, err := readBody(r, 1<<20)
	if err != nil {
		return err
	}
	var req session.Request
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return desk.Errorf(desk.Invalid, "the body is not a launch: %v", err).
			WithHint(`{"kind": "claude", "cwd": "/path", "name"?, "resume"?, "bypass"?, "profile"?, "args"?, "command"? (custom)}`)
	}
	t := s.opts.Terminals
	rec, err := t.Manager.Launch(r.Context(), req)
	if err != nil {
		return err
	}
	if t.Supervisor != nil {
		t.Supervisor.Notice(rec.ID)
	}
	return writeJSON(w, r, http.StatusCreated, s.view(rec))
}

func (s *Server) renameSession(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, false); err != nil {
		return err
	}
	m, err := readObject(r)
	if err != nil {
		return err
	}
	name, err := str(m, "name", 200)
	if err != nil {
		return err
	}
	rec, err := s.opts.Terminals.Manager.Rename(r.Context(), p["id"], name)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, s.view(rec))
}

func (s *Server) stopSession(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, true); err != nil {
		return err
	}
	rec, err := s.opts.Terminals.Manager.Stop(r.Context(), p["id"], queryBool(r, "kill"))
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, s.view(rec))
}

func (s *Server) resumeSession(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, true); err != nil {
		return err
	}
	t := s.opts.Terminals
	rec, err := t.Manager.Resume(r.Context(), p["id"])
	if err != nil {
		return err
	}
	if t.Supervisor != nil {
		t.Supervisor.Notice(rec.ID)
	}
	return writeJSON(w, r, http.StatusOK, s.view(rec))
}

func (s *Server) sessionScreen(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, false); err != nil {
		return err
	}
	text, err := s.opts.Terminals.Manager.Screen(r.Context(), p["id"])
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, text)
}

func (s *Server) sessionInput(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, true); err != nil {
		return err
	}
	b, err := readBody(r, 1<<20)
	if err != nil {
		return err
	}
	var in struct {
		Text *string  `json:"text"`
		Keys []string `json:"keys"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return desk.Errorf(desk.Invalid, "the body is not input: %v", err).WithHint(`{"text": "..."} or {"keys": ["enter"]}`)
	}
	m := s.opts.Terminals.Manager
	switch {
	case in.Text != nil && in.Keys != nil:
		return desk.Errorf(desk.Invalid, "give text or keys, not both")
	case in.Text != nil:
		err = m.Input(r.Context(), p["id"], []byte(*in.Text))
	case in.Keys != nil:
		err = m.Keys(r.Context(), p["id"], in.Keys)
	default:
		return desk.Errorf(desk.Invalid, "no input").WithHint(`{"text": "..."} or {"keys": ["enter"]}`)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]bool{"ok": true})
}

func (s *Server) sessionResize(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, true); err != nil {
		return err
	}
	b, err := readBody(r, 4096)
	if err != nil {
		return err
	}
	var sz session.Size
	if err := json.Unmarshal(b, &sz); err != nil {
		return desk.Errorf(desk.Invalid, "the body is not a size: %v", err).WithHint(`{"cols": 120, "rows": 40}`)
	}
	if err := s.opts.Terminals.Manager.Resize(r.Context(), p["id"], sz.Cols, sz.Rows); err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, sz)
}

// wsControl is a text frame of the terminal WebSocket.
type wsControl struct {
	Type   string `json:"type"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	Code   *int   `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
	Reason string `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"`
	Error  string `json:"error,omitempty"`
}

// sessionTerminal is the terminal's WebSocket. Every check runs before
// the upgrade, so that a refusal is a plain HTTP answer. Server to
// client: text {"type":"size"} frames, a text {"type":"snapshot"} before
// each binary snapshot (the first binary frame always is one), binary
// output, and text {"type":"exit"} at the end. Client to server: binary
// input, text {"type":"resize","cols","rows"}.
func (s *Server) sessionTerminal(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkTerminal(r, true); err != nil {
		return err
	}
	cols, err := queryInt(r, "cols", 0)
	if err != nil {
		return err
	}
	rows, err := queryInt(r, "rows", 0)
	if err != nil {
		return err
	}
	st, err := s.opts.Terminals.Manager.Attach(r.Context(), p["id"], cols, rows)
	if err != nil {
		return err
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		st.Close()
		return nil // Accept has answered
	}
	bridge(s.ctx, ws, st)
	return nil
}

// bridge carries a session's stream over a WebSocket until either ends.
func bridge(ctx context.Context, ws *websocket.Conn, st *session.Stream) {
	ws.SetReadLimit(1 << 20)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	end := func(code websocket.StatusCode, why string) {
		once.Do(func() {
			st.Close()
			ws.Close(code, why)
		})
	}
	stop := context.AfterFunc(ctx, func() { end(websocket.StatusGoingAway, "the server stops") })
	defer stop()
	send := func(c wsControl) error {
		b, _ := json.Marshal(c)
		return ws.Write(ctx, websocket.MessageText, b)
	}
	go func() {
		defer cancel()
		for {
			typ, b, err := ws.Read(ctx)
			if err != nil {
				end(websocket.StatusNormalClosure, "")
				return
			}
			if typ == websocket.MessageBinary {
				if st.Input(b) != nil {
					return
				}
				continue
			}
			var c wsControl
			if json.Unmarshal(b, &c) != nil || c.Type != "resize" {
				send(wsControl{Type: "error", Error: "unknown control message; send {\"type\":\"resize\",\"cols\":N,\"rows\":N}"})
				continue
			}
			if err := st.Resize(c.Cols, c.Rows); err != nil {
				send(wsControl{Type: "error", Error: desk.ErrorMessage(err)})
			}
		}
	}()
	for {
		ev, err := st.Next()
		if err != nil {
			end(websocket.StatusNormalClosure, "the session's holder closed")
			return
		}
		switch {
		case ev.Size != nil:
			err = send(wsControl{Type: "size", Cols: ev.Size.Cols, Rows: ev.Size.Rows})
		case ev.Snapshot:
			if err = send(wsControl{Type: "snapshot"}); err == nil {
				err = ws.Write(ctx, websocket.MessageBinary, ev.Output)
			}
		case ev.Output != nil:
			err = ws.Write(ctx, websocket.MessageBinary, ev.Output)
		case ev.Info != nil:
			err = send(wsControl{Type: "info", Note: ev.Info.Note})
		case ev.Exit != nil:
			send(wsControl{Type: "exit", Code: ev.Exit.Code, Signal: ev.Exit.Signal, Reason: ev.Exit.Reason, Note: ev.Exit.Note})
			end(websocket.StatusNormalClosure, "the session ended")
			return
		}
		if err != nil {
			end(websocket.StatusNormalClosure, "")
			return
		}
	}
}

// kindInfo is one kind on this machine, for the launch drawer.
type kindInfo struct {
	Kind      string `json:"kind"`
	Title     string `json:"title"`
	Found     bool   `json:"found"`
	Path      string `json:"path"`      // "" when not found
	Version   string `json:"version"`   // "" when not found, or it printed none
	Problem   string `json:"problem"`   // why it was not found, "" when it was
	Approvals bool   `json:"approvals"` // the bypass box is shown
	Resume    bool   `json:"resume"`
	Profiles  bool   `json:"profiles"`
	Hooks     string `json:"hooks"`
}

var versions = struct {
	sync.Mutex
	m map[string]string // by path and modification time
}{m: map[string]string{}}

// versionOf runs bin --version once per binary, briefly.
func versionOf(ctx context.Context, bin string) string {
	fi, err := os.Stat(bin)
	if err != nil {
		return ""
	}
	key := bin + "\x00" + fi.ModTime().String()
	versions.Lock()
	v, ok := versions.m[key]
	versions.Unlock()
	if ok {
		return v
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "--version").Output()
	v = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	if len(v) > 80 {
		v = v[:80]
	}
	versions.Lock()
	versions.m[key] = v
	versions.Unlock()
	return v
}

// sessionKinds answers what the launch drawer offers: whether terminals
// are on (and why not), the kinds found on this machine with their
// versions, and the folders to launch in (linked repos, recent folders).
func (s *Server) sessionKinds(w http.ResponseWriter, r *http.Request, _ params) error {
	if err := s.checkTerminal(r, false); err != nil {
		return err
	}
	t := s.opts.Terminals
	m := t.Manager
	term := map[string]any{"enabled": !t.Disabled, "reason": nil}
	if t.Disabled {
		term["reason"] = "desk serve runs with --no-terminal"
	}
	var kinds []kindInfo
	var wg sync.WaitGroup
	for _, k := range agent.LaunchKinds() {
		if k == "custom" {
			continue
		}
		l, _ := agent.LauncherFor(k)
		ki := kindInfo{Kind: k, Title: l.Title, Approvals: l.Approvals, Resume: l.Resume != nil, Profiles: l.ProfileEnv != "", Hooks: l.Hooks}
		if bin, err := l.Find(m.Getenv, m.Getenv("HOME")); err == nil {
			ki.Found, ki.Path = true, bin
		} else {
			ki.Problem = desk.ErrorMessage(err)
		}
		kinds = append(kinds, ki)
	}
	for i := range kinds {
		if kinds[i].Found {
			wg.Add(1)
			go func(k *kindInfo) {
				defer wg.Done()
				k.Version = versionOf(r.Context(), k.Path)
			}(&kinds[i])
		}
	}
	wg.Wait()
	folders := []map[string]string{}
	seen := map[string]bool{}
	if links, err := link.Read(m.DataDir); err == nil {
		dirs := make([]string, 0, len(links))
		for d := range links {
			dirs = append(dirs, d)
		}
		slices.Sort(dirs)
		for _, d := range dirs {
			seen[d] = true
			folders = append(folders, map[string]string{"path": d, "project": links[d], "why": "linked"})
		}
	}
	if recent, err := m.Store.Sessions(r.Context(), desk.SessionFilter{All: true, Limit: 50}); err == nil {
		for _, rec := range recent {
			if !seen[rec.Cwd] {
				seen[rec.Cwd] = true
				folders = append(folders, map[string]string{"path": rec.Cwd, "project": rec.Project, "why": "recent"})
			}
		}
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"terminal": term, "kinds": kinds, "folders": folders,
		"scrollback": session.DefaultScrollback, "max_cols": session.MaxCols, "max_rows": session.MaxRows,
		"detach_key": "ctrl-]"})
}

// markManaged writes agent sessions in their wire form, with
// "managed": true and "session": its id added to those a managed session
// launched (their hooks carry its DESK_SESSION_ID), "managed": false and
// "session": null to the others.
func (s *Server) markManaged(list []agent.Session) []json.RawMessage {
	out := make([]json.RawMessage, len(list))
	t := s.opts.Terminals
	for i, a := range list {
		b, _ := json.Marshal(a)
		if t != nil && t.Supervisor != nil && a.Launch != "" && t.Supervisor.Managed(a.Launch) {
			id, _ := json.Marshal(a.Launch)
			b = append(append(append(b[:len(b)-1], `,"managed":true,"session":`...), id...), '}')
		} else {
			b = append(b[:len(b)-1], `,"managed":false,"session":null}`...)
		}
		out[i] = b
	}
	return out
}
